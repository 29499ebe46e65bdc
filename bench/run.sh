#!/usr/bin/env bash
# `make bench`: starts a redis-server on a free loopback port for the Redis
# rows, runs the benchmark, and stops the server.
set -euo pipefail
extension=${1:?usage: bench/run.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
# Every server in a process group of its own, stopped whole at the end or on Ctrl-C.
source "$here/../scripts/processes.sh"
source "$here/../scripts/lib.sh"
port=$(free_port)
at_exit 'rm -rf "$work"'
start_group -C "$work" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --logfile "$work/redis.log"
for _ in $(seq 100); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
memcached_port=$(free_port)
start_group memcached -l 127.0.0.1 -p "$memcached_port" -U 0 -u "$(id -un)"
wait_for_port "$memcached_port" memcached
# Round trips are counted by proxies in front of both servers.
redis_proxy=$(free_port)
start_group php "$here/../tests/support/proxy.php" "$redis_proxy" "127.0.0.1:$port" --count "$work/redis-round-trips"
memcached_proxy=$(free_port)
start_group php "$here/../tests/support/proxy.php" "$memcached_proxy" "127.0.0.1:$memcached_port" --count "$work/memcached-round-trips"
for proxy in $redis_proxy $memcached_proxy; do
    wait_for_port "$proxy" "the proxy on port $proxy"
done
# Heap allocations of a rejected call on Memcached: valgrind counts every
# malloc; two runs, 200 and 1200 calls, cancel out startup.
if command -v valgrind >/dev/null; then
    allocations() {
        valgrind php -n -d "extension=$extension" "$here/memcached-rejected.php" "127.0.0.1:$memcached_port" "$1" 2>&1 \
            | sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,
    }
    low=$(allocations 200)
    high=$(allocations 1200)
    CB_BENCH_MEMCACHED_ALLOCATIONS=$(awk "BEGIN { printf \"%.2f\", ($high - $low) / 1000 }")
    export CB_BENCH_MEMCACHED_ALLOCATIONS
fi

CB_BENCH_PROXIES="redis=127.0.0.1:$redis_proxy=$work/redis-round-trips,memcached=127.0.0.1:$memcached_proxy=$work/memcached-round-trips" \
CB_BENCH_MEMCACHED=127.0.0.1:$memcached_port CB_BENCH_REDIS=127.0.0.1:$port php -n -d "extension=$extension" -d circuit_breaker.shm_size=96M "$here/protected-call.php" "${BENCH_ITERATIONS:-500000}"

# The HTTP guard: what it costs an unguarded, a guarded and a refused
# request, beside the same requests with the hooks off.
echo
"$here/http.sh" "$extension"
echo
php -n -d "extension=$extension" "$here/brownout.php"
# What a breaker built per request adds to a request in a php-fpm worker,
# in instructions (callgrind).
if command -v valgrind > /dev/null && command -v "${PHP_FPM:-php-fpm8.2}" > /dev/null; then
    echo
    "$here/fpm-request.sh" "$extension"
fi
