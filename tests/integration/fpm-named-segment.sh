#!/usr/bin/env bash
# A real php-fpm pool and CLI processes naming the same segment
# (circuit_breaker.shm_name): a circuit forced open from the command line,
# and one opened there by failures, are rejected by every worker of the
# pool; a circuit the pool opens is seen open, and listed, from the
# command line; shortening the object kills no worker. Run with the
# extension loaded at php-fpm's startup (the master makes the segment, the
# workers inherit it; a reload with USR2 keeps the circuits) and loaded by
# the pool (each worker attaches by name). The segment's name is unique to
# the run; it survives php-fpm's exit and is removed at the end.
set -euo pipefail
extension=${1:?usage: fpm-named-segment.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fpm-lib.sh"
name="cb-it-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
at_exit 'rm -f "/dev/shm/$name"'

cli() {
    php -n -d "extension=$extension" -d "circuit_breaker.shm_name=$name" "$here/fpm-named-app.php" "$@"
}

request() {
    fpm_request "$here/fpm-named-app.php" "action=$1&service=$2" | sed -n '/^{/p'
}

# Runs `request acquire $1` 12 times at once; prints the answers.
acquire_concurrently() {
    rm -f "$work/acquired"
    concurrently "request acquire $1" 12 "$work/acquired"
    cat "$work/acquired"
}

state_of() { sed 's/.*"state":"\([a-z_]*\)".*/\1/'; }

# $1 names the mode; $2 is the pool's extra line; the rest are php-fpm's options.
run_pool() {
    local mode=$1 pool_line=$2
    shift 2
    rm -f "/dev/shm/$name"
    fpm_start 3 "$pool_line" -d "circuit_breaker.shm_name=$name" "$@"

    # The command line forces a circuit open; every worker rejects its calls.
    check "$mode: the CLI forces cli-forced open" "$(cli force cli-forced | state_of)" open
    answers=$(acquire_concurrently cli-forced)
    check "$mode: 12 requests for cli-forced rejected by the pool" "$(grep -c '"state":"open","permitted":false' <<< "$answers")" 12

    # Failures registered from the command line open a circuit too.
    check "$mode: the CLI opens cli-opened" "$(cli fail cli-opened | state_of)" open
    answers=$(acquire_concurrently cli-opened)
    check "$mode: 12 requests for cli-opened rejected by the pool" "$(grep -c '"state":"open","permitted":false' <<< "$answers")" 12
    workers=$(sed 's/.*"pid":\([0-9]*\).*/\1/' <<< "$answers" | sort -u | wc -l)
    check "$mode: by several workers" "$([ "$workers" -ge 2 ] && echo yes || echo "no ($workers)")" yes

    # The pool opens a circuit; the command line sees it open.
    check "$mode: the pool opens pool-opened" "$(request fail pool-opened | state_of)" open
    check "$mode: the CLI is rejected" "$(cli acquire pool-opened | sed 's/.*"permitted":\([a-z]*\).*/\1/')" false
    check "$mode: untouched circuits stay closed" "$(cli acquire other | state_of)" closed
    # `other` is listed too: the permitted call is counted in its record.
    check "$mode: the CLI lists the pool's circuits" "$(cli list - | sed -n 's/.*"circuits":\(\[.*\]\).*/\1/p')" \
        '["cli-forced:open:forced","cli-opened:open","other:closed","pool-opened:open"]'

    check "$mode: the object is private to its user" "$(stat -c '%a %U' "/dev/shm/$name")" "600 $(id -un)"
    check "$mode: no worker died" "$(grep -c 'exited on signal' "$work/fpm.log" || true)" 0
    check "$mode: no notice that circuits are per worker" "$(grep -c 'circuits are not shared' "$work/fpm.log" || true)" 0
}

run_pool "loaded at startup" "" -d "extension=$extension"
# A reload re-executes the master, which attaches to the same segment.
kill -USR2 "$fpm_pid"
fpm_wait_ready 2
check "after kill -USR2: the pool still rejects cli-opened" \
    "$(acquire_concurrently cli-opened | grep -c '"state":"open","permitted":false')" 12
fpm_stop
check "the segment outlives php-fpm" "$(cli acquire pool-opened | state_of)" open

run_pool "loaded by the pool" "php_admin_value[extension] = $extension"
# An operator shortens the object under the pool (truncate, cp over it):
# no worker dies of SIGBUS, every one fails open.
truncate -s 4096 "/dev/shm/$name"
answers=$(acquire_concurrently cli-opened)
check "after truncate: 12 requests for cli-opened fail open" \
    "$(grep -c '"state":"storage-failed","permitted":true' <<< "$answers")" 12
check "after truncate: no worker died" "$(grep -c 'exited on signal' "$work/fpm.log" || true)" 0
fpm_stop

finish "fpm named segment"
