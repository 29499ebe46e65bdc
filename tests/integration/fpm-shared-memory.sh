#!/usr/bin/env bash
# A real PHP-FPM pool (pm=static, 4 workers) with the built extension, on a
# free loopback port: failures registered by some workers open the circuit
# for all of them, and none is lost.
set -euo pipefail
extension=${1:?usage: fpm-shared-memory.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
fpm=$(command -v php-fpm8.2 || command -v php-fpm)
work=$(mktemp -d)
port=$(php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];')

cat > "$work/php-fpm.conf" <<CONF
[global]
pid = $work/fpm.pid
error_log = $work/fpm.log
daemonize = no

[test]
user = $(id -un)
listen = 127.0.0.1:$port
pm = static
pm.max_children = 4
catch_workers_output = yes
CONF

# -R: CI runs as root, and the pool then runs as root too.
"$fpm" -n -d "extension=$extension" -y "$work/php-fpm.conf" -F -R &
fpm_pid=$!
cleanup() {
    kill "$fpm_pid" 2>/dev/null || true
    wait "$fpm_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

request() {
    SCRIPT_FILENAME="$here/fpm-app.php" REQUEST_METHOD=GET QUERY_STRING="action=$1" \
        timeout 10 cgi-fcgi -bind -connect "127.0.0.1:$port" | sed -n '/^{/p'
}

for attempt in $(seq 50); do
    [ -n "$(request state 2>/dev/null)" ] && break
    kill -0 "$fpm_pid" 2>/dev/null || { echo "php-fpm did not start:"; cat "$work/fpm.log"; exit 1; }
    [ "$attempt" -lt 50 ] || { echo "php-fpm does not answer on port $port"; exit 1; }
    sleep 0.1
done

failed=0
check() {
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAILED: $1: expected $3, got $2"; failed=$((failed + 1)); fi
}

# Runs `request $1` $2 times at once, appending the answers to $3. Waits
# for these requests only: a plain `wait` would wait for php-fpm too.
concurrently() {
    local pids=()
    for _ in $(seq "$2"); do
        request "$1" >> "$3" &
        pids+=($!)
    done
    wait "${pids[@]}"
}

# 39 failures, 13 at a time so that every worker takes some.
for wave in 1 2 3; do
    concurrently fail 13 "$work/failures"
done
workers=$(sed 's/.*"pid":\([0-9]*\).*/\1/' "$work/failures" | sort -u | wc -l)
check "failures were registered by several workers" "$([ "$workers" -ge 2 ] && echo yes || echo "no ($workers)")" yes
check "39 failures keep it closed" "$(request state | sed 's/.*"state":"\([a-z_]*\)".*/\1/')" closed
request fail > /dev/null
check "the 40th failure opens it" "$(request state | sed 's/.*"state":"\([a-z_]*\)".*/\1/')" open

# Every worker now rejects the call.
concurrently acquire 16 "$work/acquired"
workers=$(sed 's/.*"pid":\([0-9]*\).*/\1/' "$work/acquired" | sort -u | wc -l)
check "all workers saw it open" "$(grep -c '"state":"open","permitted":false' "$work/acquired")" 16
echo "requests answered by $workers workers"

passed=$((4 - failed))
echo "fpm: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
