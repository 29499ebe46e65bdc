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
. "$here/fpm-lib.sh"
fpm_start 1 "" -d "extension=$extension" -d display_errors=1 -d html_errors=0

# The body of the answer to `?action=$1&service=$2`, headers left out; empty
# when the worker died.
request() {
    fpm_request "$here/fpm-exit-app.php" "action=$1&service=${2:-upstream}" | tr -d '\r' | sed '1,/^$/d' || true
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

finish fpm-exit
