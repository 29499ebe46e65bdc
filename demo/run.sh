#!/usr/bin/env bash
# The demo: a flaky upstream service, a PHP-FPM pool calling it, and a load
# generator, run twice over the same timeline: with the breaker (on the
# shared-memory storage), then without. Prints a line per second, then a
# side-by-side summary, and writes a chart. Everything runs on loopback and
# stops at the end.
set -euo pipefail
extension=${1:?usage: demo/run.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
output=${DEMO_OUTPUT:-$here/../build/demo}
seconds=45
mkdir -p "$output"
rm -f "$output"/*.log "$output"/*.json
fpm=$(command -v php-fpm8.2 || command -v php-fpm)
work=$(mktemp -d)
free_port() { php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];'; }
upstream_port=$(free_port)
fpm_port=$(free_port)
status_port=$(free_port)

export DEMO_START_FILE=$work/start DEMO_UPSTREAM_LOG=$work/upstream.log
export DEMO_UPSTREAM=http://127.0.0.1:$upstream_port/stock
echo 0 > "$DEMO_START_FILE"
touch "$DEMO_UPSTREAM_LOG"

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# DEMO_STORAGE=redis: the breaker keeps its circuit in a redis-server of its own.
if [ "${DEMO_STORAGE:-shm}" = redis ]; then
    redis_port=$(free_port)
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" > "$work/redis.out" 2>&1 &
    pids+=($!)
    export DEMO_REDIS=redis://127.0.0.1:$redis_port
    for _ in $(seq 100); do redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
fi

PHP_CLI_SERVER_WORKERS=32 php -n -S "127.0.0.1:$upstream_port" "$here/upstream.php" > "$work/upstream.out" 2>&1 &
pids+=($!)

cat > "$work/php-fpm.conf" <<CONF
[global]
pid = $work/fpm.pid
error_log = $work/fpm.log
daemonize = no

[demo]
user = $(id -un)
listen = 127.0.0.1:$fpm_port
listen.backlog = 512
pm = static
pm.max_children = 8
pm.status_path = /status
pm.status_listen = 127.0.0.1:$status_port
CONF
"$fpm" -n -d "extension=$extension" -y "$work/php-fpm.conf" -F -R &
pids+=($!)

for attempt in $(seq 50); do
    php -r "require '$here/fastcgi.php'; exit(fcgi_request('127.0.0.1:$status_port', ['SCRIPT_NAME' => '/status', 'SCRIPT_FILENAME' => '/status', 'REQUEST_METHOD' => 'GET'], 1.0) === null ? 1 : 0);" && break
    [ "$attempt" -lt 50 ] || { echo "php-fpm did not start:"; cat "$work/fpm.log"; exit 1; }
    sleep 0.1
done

echo "Timeline of each run (${seconds} s): healthy, failing from 10 s (the upstream hangs; calls time out after 1 s),"
echo "slow from 25 s (700 ms answers), recovered from 35 s. 12 clients, 8 PHP-FPM workers."
echo "The breaker's storage: ${DEMO_REDIS:-shared memory}."
echo
for run in breaker:1 no-breaker:0; do
    label=${run%%:*}
    : > "$DEMO_UPSTREAM_LOG"
    php -r 'echo microtime(true) + 0.5;' > "$DEMO_START_FILE"
    php -n "$here/loadgen.php" "$label" "127.0.0.1:$fpm_port" "127.0.0.1:$status_port" "${run##*:}" "$seconds" "$output"
    echo
done
php -n "$here/report.php" "$output"
