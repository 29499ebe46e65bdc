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
. "$here/fpm-lib.sh"

# Runs one pool; $1 names the mode, the rest are php-fpm's -d options.
run_pool() {
    local mode=$1
    shift
    rm -f "$work/answers"
    # Only the pool loads the extension.
    fpm_start 1 "php_admin_value[extension] = $extension" "$@"
    for i in $(seq 40); do
        action=state
        [ "$i" -le 10 ] && action=fail
        fpm_request "$here/fpm-pool-app.php" "action=$action" | sed -n '/^{/p' >> "$work/answers" || true
    done
    fpm_stop
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

finish "fpm pool"
