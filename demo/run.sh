#!/usr/bin/env bash
# The demo: a flaky upstream service, a PHP-FPM pool calling it, and a load
# generator, run twice over the same timeline: with the breaker (on the
# shared-memory storage), then without. Prints a line per second, then a
# side-by-side summary, and writes a chart. Everything runs on loopback and
# stops at the end.
# DEMO_STORAGE=redis: the circuit in a redis-server of the demo's own.
# DEMO_STORAGE=fleet: two hosts (two PHP-FPM masters, so two shared-memory
# segments) sharing the circuit in that redis-server through FleetStorage;
# Redis is stopped for 10 s during the outage, then started again.
set -euo pipefail
extension=${1:?usage: demo/run.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
output=${DEMO_OUTPUT:-$here/../build/demo}
storage=${DEMO_STORAGE:-shm}
case $storage in
    shm | redis) hosts=(demo) ;;
    fleet) hosts=(A B) ;;
    *) echo "DEMO_STORAGE: shm (the default), redis or fleet, not '$storage'" >&2; exit 2 ;;
esac
# DEMO_SECONDS: a shorter run (tests/integration/demo-leftovers.sh), only healthy.
seconds=${DEMO_SECONDS:-45}
# The Redis outage of DEMO_STORAGE=fleet, in seconds from the start of a run:
# once the circuit is open, inside the upstream's failing phase (10 to 25 s).
redis_down_from=13
redis_down_for=10
mkdir -p "$output"
rm -f "$output"/*.log "$output"/*.json
fpm=$(command -v php-fpm8.2 || command -v php-fpm)
work=$(mktemp -d)
source "$here/../scripts/lib.sh"
upstream_port=$(free_port)

export DEMO_START_FILE=$work/start DEMO_UPSTREAM_LOG=$work/upstream.log DEMO_STORAGE=$storage
export DEMO_UPSTREAM=http://127.0.0.1:$upstream_port/stock
echo 0 > "$DEMO_START_FILE"
touch "$DEMO_UPSTREAM_LOG"

# Every server in a process group of its own, each group stopped whole at
# the end or on Ctrl-C (the upstream's 32 workers, php-fpm's).
source "$here/../scripts/processes.sh"
at_exit 'rm -rf "$work"'

start_redis() {
    start_group redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" >> "$work/redis.out" 2>&1
    redis_pid=$started
    for _ in $(seq 100); do
        [ "$(redis-cli -p "$redis_port" info server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p')" = "$redis_pid" ] && return
        sleep 0.05
    done
    echo "redis-server did not start:"; cat "$work/redis.out"; exit 1
}
stop_redis() { stop_group "$redis_pid"; }
redis_stats() { php -n "$here/redis-stats.php" "127.0.0.1:$redis_port" "$@"; }

if [ "$storage" != shm ]; then
    redis_port=$(free_port)
    start_redis
    export DEMO_REDIS=redis://127.0.0.1:$redis_port
fi

PHP_CLI_SERVER_WORKERS=32 start_group php -n -S "127.0.0.1:$upstream_port" "$here/upstream.php" > "$work/upstream.out" 2>&1

# start_master NAME [PHP OPTIONS...]: a PHP-FPM master of 8 workers, with its
# own shared-memory segment; its addresses in $master_fpm and $master_status.
start_master() {
    local host=$1 fpm_port status_port
    shift
    fpm_port=$(free_port)
    status_port=$(free_port)
    cat > "$work/php-fpm-$host.conf" <<CONF
[global]
pid = $work/fpm-$host.pid
error_log = $work/fpm-$host.log
daemonize = no

[$host]
user = $(id -un)
listen = 127.0.0.1:$fpm_port
listen.backlog = 512
pm = static
pm.max_children = 8
pm.status_path = /status
pm.status_listen = 127.0.0.1:$status_port
catch_workers_output = yes
env[DEMO_HOST] = $host
CONF
    start_group "$fpm" -n -d "extension=$extension" "$@" -y "$work/php-fpm-$host.conf" -F -R
    for attempt in $(seq 50); do
        php -r "require '$here/fastcgi.php'; exit(fcgi_request('127.0.0.1:$status_port', ['SCRIPT_NAME' => '/status', 'SCRIPT_FILENAME' => '/status', 'REQUEST_METHOD' => 'GET'], 1.0) === null ? 1 : 0);" && break
        [ "$attempt" -lt 50 ] || { echo "php-fpm did not start:"; cat "$work/fpm-$host.log"; exit 1; }
        sleep 0.1
    done
    master_fpm=127.0.0.1:$fpm_port
    master_status=127.0.0.1:$status_port
}

# One PHP-FPM master per host: each has its own shared-memory segment.
fpm_addresses=()
status_addresses=()
for host in "${hosts[@]}"; do
    start_master "$host"
    fpm_addresses+=("$master_fpm")
    status_addresses+=("$master_status")
done
runs=("breaker|1|$(IFS=,; echo "${fpm_addresses[*]}")|$(IFS=,; echo "${status_addresses[*]}")")
if [ "$storage" = shm ]; then
    # The zero-code run: an application with no breaker code at all, in a
    # pool whose php.ini names the upstream's host (HTTP guarding), with
    # the same settings as the breaker the app writes by hand.
    cat > "$work/http-breakers.ini" <<INI
[defaults]
time_window = 10
failure_rate = 50
minimum_requests = 10
slow_call_duration = 0.5
slow_call_rate = 60
consecutive_failures = 5
open_duration = 3
max_open_duration = off
half_open = ramp
ramp_duration = 5
ramp_curve = exponential
ramp_initial_ratio = 0.1
probe_timeout = 1
INI
    start_master zero -d "circuit_breaker.http_hosts=127.0.0.1:$upstream_port" -d "circuit_breaker.http_config=$work/http-breakers.ini"
    runs+=("zero-code|0|$master_fpm|$master_status")
    # The breaker with a bulkhead: at most 5 of the 8 workers wait on the
    # hanging upstream; the others answer with the fallback at once.
    runs=("${runs[0]}" "bulkhead|2|$(IFS=,; echo "${fpm_addresses[*]}")|$(IFS=,; echo "${status_addresses[*]}")" "${runs[@]:1}")
fi
runs+=("no-breaker|0|$(IFS=,; echo "${fpm_addresses[*]}")|$(IFS=,; echo "${status_addresses[*]}")")

echo "Timeline of each run (${seconds} s): healthy, failing from 10 s (the upstream hangs; calls time out after 1 s),"
if [ "$storage" = fleet ]; then
    echo "slow from 25 s (700 ms answers), recovered from 35 s. Two hosts (PHP-FPM masters) A and B,"
    echo "each with 8 workers and 12 clients. Redis is down from ${redis_down_from} s to $((redis_down_from + redis_down_for)) s."
    echo "The breaker's storage: FleetStorage, each host's shared memory in front of $DEMO_REDIS."
else
    echo "slow from 25 s (700 ms answers), recovered from 35 s. 12 clients, 8 PHP-FPM workers."
    echo "The breaker's storage: ${DEMO_REDIS:-shared memory}."
    [ "$storage" != shm ] || echo "Four runs: the breaker written in the app; the same with a bulkhead (maxConcurrentCalls: 5); zero-code (no breaker code, circuit_breaker.http_hosts names the upstream); none."
fi
echo
for run in "${runs[@]}"; do
    IFS='|' read -r label use_breaker run_fpms run_statuses <<< "$run"
    : > "$DEMO_UPSTREAM_LOG"
    start=$(php -r 'echo microtime(true) + 0.5;')
    echo "$start" > "$DEMO_START_FILE"
    [ "$storage" = shm ] || redis_stats reset
    DEMO_EVENT_LOG=$output/$label-events.log start_group php -n "$here/loadgen.php" "$label" "$run_fpms" \
        "$run_statuses" "$use_breaker" "$seconds" "$output"
    loadgen=$started
    if [ "$storage" = fleet ] && [ "$seconds" -gt "$redis_down_from" ]; then
        # Redis restarted has counted nothing: what it served before is kept.
        php -r "time_sleep_until($start + $redis_down_from);"
        redis_stats read > "$output/$label-redis-1.json"
        stop_redis
        php -r "time_sleep_until($start + $redis_down_from + $redis_down_for);"
        start_redis
    fi
    wait "$loadgen"
    [ "$storage" = shm ] || redis_stats read > "$output/$label-redis-2.json"
    echo
done
DEMO_REDIS_DOWN="$([ "$storage" = fleet ] && echo "$redis_down_from,$((redis_down_from + redis_down_for))")" \
    php -n "$here/report.php" "$output"
