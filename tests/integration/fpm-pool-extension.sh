#!/usr/bin/env bash
# The extension loaded by a pool (`php_admin_value[extension]`) rather than
# php.ini: php-fpm then starts it in each worker after the fork. One static
# worker serves 40 requests that touch the enum cases and a breaker on
# shared memory: every request is answered, no worker dies, the circuit
# opens in that worker, and the worker says once that its circuits are its
# own. Run without OPcache (where the engine resets its per-request table
# between requests) and with it.
set -euo pipefail
extension=${1:?usage: fpm-pool-extension.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
fpm=$(command -v php-fpm8.2 || command -v php-fpm)
work=$(mktemp -d)
fpm_pid=
cleanup() {
    if [ -n "$fpm_pid" ]; then
        kill "$fpm_pid" 2>/dev/null || true
        wait "$fpm_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
check() {
    if [ "$2" = "$3" ]; then
        echo "ok: $1"
        passed=$((passed + 1))
    else
        echo "FAILED: $1: expected $3, got $2"
        failed=$((failed + 1))
    fi
}

# Runs one pool; $1 names the mode, the rest are php-fpm's -d options.
run_pool() {
    local mode=$1
    shift
    local port
    port=$(php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];')
    rm -f "$work/fpm.log" "$work/answers"
    cat > "$work/php-fpm.conf" <<CONF
[global]
pid = $work/fpm.pid
error_log = $work/fpm.log
daemonize = no

[pool]
user = $(id -un)
listen = 127.0.0.1:$port
pm = static
pm.max_children = 1
catch_workers_output = yes
php_admin_value[extension] = $extension
CONF
    # -n: the extension comes from the pool only. -R: CI runs as root.
    "$fpm" -n "$@" -y "$work/php-fpm.conf" -F -R &
    fpm_pid=$!
    for attempt in $(seq 50); do
        grep -q "ready to handle connections" "$work/fpm.log" 2>/dev/null && break
        kill -0 "$fpm_pid" 2>/dev/null || { echo "php-fpm did not start:"; cat "$work/fpm.log"; exit 1; }
        [ "$attempt" -lt 50 ] || { echo "php-fpm does not start on port $port"; exit 1; }
        sleep 0.1
    done
    for i in $(seq 40); do
        action=state
        [ "$i" -le 10 ] && action=fail
        SCRIPT_FILENAME="$here/fpm-pool-app.php" REQUEST_METHOD=GET QUERY_STRING="action=$action" \
            timeout 10 cgi-fcgi -bind -connect "127.0.0.1:$port" 2>/dev/null | sed -n '/^{/p' >> "$work/answers" || true
    done
    kill "$fpm_pid"
    wait "$fpm_pid" 2>/dev/null || true
    fpm_pid=
    check "$mode: 40 requests answered" "$(wc -l < "$work/answers")" 40
    check "$mode: no worker died" "$(grep -c 'exited on signal' "$work/fpm.log" || true)" 0
    check "$mode: one worker served them" "$(sed 's/.*"pid":\([0-9]*\).*/\1/' "$work/answers" | sort -u | wc -l)" 1
    check "$mode: ten failures opened the circuit" "$(tail -1 "$work/answers" | sed 's/.*"open":\([a-z]*\).*/\1/')" true
    check "$mode: enum cases" "$(tail -1 "$work/answers" | sed 's/.*"cases":\(\[[^]]*\]\).*/\1/')" '["Closed","Open","HalfOpen"]'
    check "$mode: the worker says its circuits are its own, once" "$(grep -c 'circuits are not shared with other workers' "$work/fpm.log" || true)" 1
}

run_pool "without opcache"
opcache=$(php -r 'echo ini_get("extension_dir");')/opcache.so
if [ -f "$opcache" ]; then
    run_pool "with opcache" -d "zend_extension=$opcache" -d opcache.enable=1
else
    echo "skipped: with opcache ($opcache not found)"
fi

echo "fpm pool: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
