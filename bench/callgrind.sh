#!/usr/bin/env bash
# Instructions per iteration of each scenario of bench/scenarios.php, under
# callgrind: stable on a loaded machine, where timings are not. Each figure
# is the difference of two runs (N and 11N iterations) over 10N, so that
# startup and setup cancel out. The `fleet` scenario (FleetStorage, issue 12)
# and the `redis` and `redis-rejected` ones (RedisStorage, issue 22: a
# permitted call, a call rejected while open) are measured only when named,
# against a redis-server started here; so is the `memcached` one
# (MemcachedStorage, issue 22), against a memcached started here, with the
# server commands of a call beside it (bench/memcached-commands.php).
# `per-request-userland` is the floor of `per-request`: the same code on
# classes written in PHP that do nothing (bench/userland-floor.php).
# Usage: bench/callgrind.sh PATH/TO/circuit_breaker.so [scenario...]
set -euo pipefail
extension=${1:?usage: bench/callgrind.sh PATH/TO/circuit_breaker.so [scenario...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
source "$here/../scripts/processes.sh"
at_exit 'rm -rf "$work"'
n=${CALLGRIND_ITERATIONS:-2000}
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(floor reused bulkhead rejected per-request per-request-userland one-service many-services listener)
if [[ " ${scenarios[*]} " =~ \ (fleet|redis|redis-rejected)\  ]]; then
    port=$(php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];')
    start_group -C "$work" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --logfile "$work/redis.log"
    for _ in $(seq 100); do redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
    export CB_BENCH_REDIS=127.0.0.1:$port
fi
if [[ " ${scenarios[*]} " == *" memcached"* ]]; then
    source "$here/../scripts/lib.sh"
    memcached_port=$(free_port)
    start_group memcached -l 127.0.0.1 -p "$memcached_port" -U 0 -u "$(id -un)"
    wait_for_port "$memcached_port" memcached
    export CB_BENCH_MEMCACHED=127.0.0.1:$memcached_port
    php -n -d "extension=$extension" "$here/memcached-commands.php" "$CB_BENCH_MEMCACHED" 1000
fi
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$work/out" php -n -d "extension=$extension" \
        -d circuit_breaker.shm_size=96M "$here/scenarios.php" "$1" "$2" 2>&1 | sed -n 's/.*Collected : //p'
}
for scenario in "${scenarios[@]}"; do
    runs=$n
    # The first call on each of the 5 000 services claims its record: the
    # shorter run makes them all, so that the difference is of calls on
    # known services only.
    [ "$scenario" != many-services ] || [ "$runs" -ge 5000 ] || runs=5000
    low=$(instructions "$scenario" "$runs")
    high=$(instructions "$scenario" "$((11 * runs))")
    printf '%-22s %10d instructions/iteration\n' "$scenario" $(((high - low) / (10 * runs)))
done
