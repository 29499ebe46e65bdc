#!/usr/bin/env bash
# A real PHP-FPM pool with one worker (pm=static) and the built extension:
# requests whose PHP code, called by the extension (the protected call, a
# userland storage, a listener), ends them with exit() or a fatal error. The
# worker survives each one (same pid, no "signal" in php-fpm's log), the
# request ends as PHP ends it (shutdown functions run, nothing after the
# exit), nothing is registered for it, and the next request works.
set -euo pipefail
extension=${1:?usage: fpm-exit.sh PATH/TO/circuit_breaker.so}
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
pm.max_children = 1
catch_workers_output = yes
CONF

# -R: CI runs as root, and the pool then runs as root too.
"$fpm" -n -d "extension=$extension" -d display_errors=1 -d html_errors=0 -y "$work/php-fpm.conf" -F -R &
fpm_pid=$!
cleanup() {
    kill "$fpm_pid" 2>/dev/null || true
    wait "$fpm_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The body of the answer to `?action=$1&service=$2`, headers left out; empty
# when the worker died.
request() {
    SCRIPT_FILENAME="$here/fpm-exit-app.php" REQUEST_METHOD=GET QUERY_STRING="action=$1&service=${2:-upstream}" \
        timeout 10 cgi-fcgi -bind -connect "127.0.0.1:$port" | tr -d '\r' | sed '1,/^$/d' || true
}

for attempt in $(seq 50); do
    [ -n "$(request state 2>/dev/null)" ] && break
    kill -0 "$fpm_pid" 2>/dev/null || { echo "php-fpm did not start:"; cat "$work/fpm.log"; exit 1; }
    [ "$attempt" -lt 50 ] || { echo "php-fpm does not answer on port $port"; exit 1; }
    sleep 0.1
done

failed=0
checks=0
check() {
    checks=$((checks + 1))
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAILED: $1: expected $3, got $2"; failed=$((failed + 1)); fi
}
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([a-z_0-9]*\).*/\1/p" | tail -1; }

worker=$(request state | field pid)
for action in call-exit call-fatal storage-exit storage-fatal listener-exit listener-fatal; do
    body=$(request "$action" "$action")
    # What PHP prints without the extension: the lines before the exit, the
    # fatal error's message, then the shutdown function's line.
    shown=$(echo "$body" | grep -v '^$' | sed 's/^.*Allowed memory size.*$/fatal error/; s/{"pid".*/shutdown/' | tr '\n' ' ' || true)
    case "$action" in
        *-exit) expected="before exit shutdown " ;;
        *-fatal) expected="before fatal error shutdown " ;;
    esac
    check "$action: the request ends as PHP ends it" "$shown" "$expected"
    check "$action: the same worker answered" "$(echo "$body" | field pid)" "$worker"
    answer=$(request state "$action")
    check "$action: the next request works, nothing registered" "$(echo "$answer" | field state)" closed
done
check "php-fpm logged no crashed worker" "$(grep -c -i 'signal\|exited' "$work/fpm.log" || true)" 0
echo "requests answered by worker $worker"

passed=$((checks - failed))
echo "fpm-exit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
