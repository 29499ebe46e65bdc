#!/usr/bin/env bash
# The /metrics recipe of the README (examples/metrics.php) under a real
# PHP-FPM pool (pm=static, 4 workers) on a free loopback port: workers call
# through breakers, open one, and an operator forces another open; a scrape
# through the same pool shows every worker's calls, and changes nothing.
set -euo pipefail
extension=${1:?usage: fpm-metrics.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
examples=$(cd "$here/../../examples" && pwd)
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

# request SCRIPT QUERY: the whole FastCGI answer, headers included.
request() {
    SCRIPT_FILENAME="$1" REQUEST_METHOD=GET QUERY_STRING="$2" \
        timeout 10 cgi-fcgi -bind -connect "127.0.0.1:$port"
}
app() {
    request "$here/fpm-metrics-app.php" "$1" | sed -n '/^{/p'
}
scrape() {
    request "$examples/metrics.php" ""
}

for attempt in $(seq 50); do
    [ -n "$(app action=none 2>/dev/null)" ] && break
    kill -0 "$fpm_pid" 2>/dev/null || { echo "php-fpm did not start:"; cat "$work/fpm.log"; exit 1; }
    [ "$attempt" -lt 50 ] || { echo "php-fpm does not answer on port $port"; exit 1; }
    sleep 0.1
done

# Runs `app $1` $2 times at once, appending the answers to $3. Waits for
# these requests only: a plain `wait` would wait for php-fpm too.
concurrently() {
    local pids=()
    for _ in $(seq "$2"); do
        app "$1" >> "$3" &
        pids+=($!)
    done
    wait "${pids[@]}"
}

# payments: 4 failures at once (all permitted: none is registered before
# the others acquire), which open it; then 3 calls, rejected.
concurrently "action=call&service=payments&outcome=failure" 4 "$work/answers"
for _ in 1 2 3; do app "action=call&service=payments" >> "$work/answers"; done
# search: 10 successes, 5 at a time.
concurrently "action=call&service=search" 5 "$work/answers"
concurrently "action=call&service=search" 5 "$work/answers"
# inventory "eu": one success, then forced open by an operator for 300 s
# (no opening by the rules), then 2 calls, rejected.
inventory='service=inventory%20%22eu%22'
app "action=call&$inventory" >> "$work/answers"
app "action=force-open&seconds=300&$inventory" >> "$work/answers"
app "action=call&$inventory" >> "$work/answers"
app "action=call&$inventory" >> "$work/answers"
workers=$(sed 's/.*"pid":\([0-9]*\).*/\1/' "$work/answers" | sort -u | wc -l)
echo "calls answered by $workers workers"

failed=0
scrape > "$work/scrape1"
php -n -d "extension=$extension" "$here/fpm-metrics-check.php" < "$work/scrape1" || failed=1
# A second scrape, by whichever worker: the same text (nothing counted or
# changed by scraping, but the seconds left).
scrape > "$work/scrape2"
if diff <(grep -v remaining_seconds "$work/scrape1") <(grep -v remaining_seconds "$work/scrape2") > /dev/null; then
    echo "ok: a second scrape changes nothing"
else
    echo "FAILED: a second scrape differs:"
    diff <(grep -v remaining_seconds "$work/scrape1") <(grep -v remaining_seconds "$work/scrape2") || true
    failed=1
fi
if [ "$workers" -lt 2 ]; then
    echo "FAILED: the calls were answered by $workers worker(s), not several"
    failed=1
fi
echo "fpm metrics: $([ "$failed" -eq 0 ] && echo passed || echo failed)"
[ "$failed" -eq 0 ]
