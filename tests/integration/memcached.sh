#!/usr/bin/env bash
# Real memcached servers on free loopback ports for tests/memcached/: one
# serves most tests, two show that a service stays on one server, a small
# one fills up; and a proxy in front of the first that delays every reply
# by 45 ms (a slow server, for the tests that bound the time of a call).
set -euo pipefail
extension=${1:?usage: memcached.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")/.." && pwd)
free_port() { php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];'; }
source "$here/../scripts/processes.sh"
pids=()

# Each server listens before the next free port is chosen, which could
# otherwise be the same one.
# The third has 2 MB and answers SERVER_ERROR when full (-M) rather than
# evicting: a server out of memory.
ports=()
for options in "-m 64" "-m 64" "-m 2 -I 512k -M"; do
    port=$(free_port)
    # shellcheck disable=SC2086
    start_group memcached -l 127.0.0.1 -p "$port" -U 0 -u "$(id -un)" $options
    pids+=("$started")
    ports+=("$port")
    for attempt in $(seq 100); do
        php -r "exit(@stream_socket_client('tcp://127.0.0.1:$port') ? 0 : 1);" && break
        [ "$attempt" -lt 100 ] || { echo "memcached on port $port did not start"; exit 1; }
        sleep 0.05
    done
done

slow_port=$(free_port)
start_group php "$here/integration/delay-proxy.php" "$slow_port" "127.0.0.1:${ports[0]}" 45
for attempt in $(seq 100); do
    php -r "exit(@stream_socket_client('tcp://127.0.0.1:$slow_port') ? 0 : 1);" && break
    [ "$attempt" -lt 100 ] || { echo "the delaying proxy on port $slow_port did not start"; exit 1; }
    sleep 0.05
done

export CB_MEMCACHED=127.0.0.1:${ports[0]} CB_MEMCACHED_PID=${pids[0]}
export CB_MEMCACHED_SLOW=127.0.0.1:$slow_port CB_MEMCACHED_DELAY_MS=45
export CB_MEMCACHED_PAIR=127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}
export CB_MEMCACHED_SMALL=127.0.0.1:${ports[2]}
export CB_MEMCACHED_FREE_PORT=$(free_port)
"$here/../scripts/run-phpt.sh" "$extension" tests/memcached memcached

# The conformance suite (tests/conformance/) over both servers.
# No PHP takes part in it: CB_PHP_ONLY=1 (the PHP 8.4 run of make test)
# leaves it to the run of Debian's PHP.
if [ -z "${CB_PHP_ONLY:-}" ]; then
    (cd "$here/.." && MEMCACHED_SERVERS=$CB_MEMCACHED_PAIR \
        nice cargo test --quiet --no-default-features --test conformance_servers)
fi
