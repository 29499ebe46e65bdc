#!/usr/bin/env bash
# Two real memcached servers on free loopback ports for tests/memcached/:
# one serves most tests, both show that a service stays on one server.
set -euo pipefail
extension=${1:?usage: memcached.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")/.." && pwd)
free_port() { php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];'; }
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -CONT "$pid" 2>/dev/null || true; kill -KILL "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

# Each server listens before the next free port is chosen, which could
# otherwise be the same one.
ports=()
for _ in 1 2; do
    port=$(free_port)
    memcached -l 127.0.0.1 -p "$port" -U 0 -u "$(id -un)" -m 64 &
    pids+=($!)
    ports+=("$port")
    for attempt in $(seq 100); do
        php -r "exit(@stream_socket_client('tcp://127.0.0.1:$port') ? 0 : 1);" && break
        [ "$attempt" -lt 100 ] || { echo "memcached on port $port did not start"; exit 1; }
        sleep 0.05
    done
done

export CB_MEMCACHED=127.0.0.1:${ports[0]} CB_MEMCACHED_PID=${pids[0]}
export CB_MEMCACHED_PAIR=127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}
export CB_MEMCACHED_FREE_PORT=$(free_port)
"$here/../scripts/run-phpt.sh" "$extension" tests/memcached memcached

# The conformance suite (tests/conformance/) over both servers.
(cd "$here/.." && MEMCACHED_SERVERS=$CB_MEMCACHED_PAIR \
    nice cargo test --quiet --no-default-features --test conformance_servers)
