#!/usr/bin/env bash
# bin/circuit-breaker against a real php-fpm pool naming its segment
# (circuit_breaker.shm_name): the pool's workers open a circuit; the CLI,
# run with the same setting and no Configuration, lists it, shows its
# status, forces it closed and another open, resets that one, and prints
# the metrics; the workers see each command. The CLI says plainly when it
# has no named segment, when a listing is empty and when a circuit is
# unknown. The segment's name is unique to the run and removed at the end.
set -euo pipefail
extension=${1:?usage: fpm-cli.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/fpm-lib.sh"
name="cb-cli-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
at_exit 'rm -f "/dev/shm/$name"'

# cli ARGS...: the operator's command line; stdout, stderr and the exit
# status in $work/out, $work/err and $status.
cli() {
    status=0
    php -n -d "extension=$extension" -d "circuit_breaker.shm_name=$name" "$root/bin/circuit-breaker" "$@" \
        >"$work/out" 2>"$work/err" || status=$?
}

request() {
    fpm_request "$here/fpm-named-app.php" "action=$1&service=$2" | sed -n '/^{/p'
}

# How many of 12 concurrent requests for $1 were permitted.
permitted_of_12() {
    rm -f "$work/acquired"
    concurrently "request acquire $1" 12 "$work/acquired"
    grep -c '"permitted":true' "$work/acquired" || true
}

# Waits until $2 of 12 concurrent requests for $1 are permitted (a worker
# trusts a circuit it saw open for up to 2 s without reading the segment):
# prints the last count.
await_permitted() {
    local attempt count
    for attempt in $(seq 50); do
        count=$(permitted_of_12 "$1")
        [ "$count" = "$2" ] && break
        sleep 0.1
    done
    echo "$count"
}

rm -f "/dev/shm/$name"
fpm_start 3 "" -d "extension=$extension" -d "circuit_breaker.shm_name=$name"

cli list
check "an empty segment: list succeeds" "$status" 0
check "an empty segment: list prints no table" "$(cat "$work/out")" ""
check "an empty segment: list says so" "$(grep -c "No circuit in the shared memory segment /dev/shm/$name" "$work/err")" 1

# The pool opens named-it:payments (3 failures) and calls named-it:other.
check "the pool opens payments" "$(request fail payments | sed 's/.*"state":"\([a-z]*\)".*/\1/')" open
check "the pool calls other" "$(request acquire other | sed 's/.*"permitted":\([a-z]*\).*/\1/')" true

cli list
check "list without the application's prefix succeeds" "$status" 0
check "list without the application's prefix points to --prefix" \
    "$(grep -c 'The segment holds 2 more circuits under the prefixes of applications .*--prefix=PREFIX' "$work/err")" 1
cli --prefix=named-it: list
check "list succeeds" "$status" 0
check "list shows the pool's circuits" "$(awk 'NR > 1 { print $1, $2, $3 }' "$work/out" | tr '\n' ',')" \
    "other closed no,payments open no,"
cli --prefix=named-it: list pay
check "list NAME-PREFIX shows only those" "$(awk 'NR > 1 { print $1 }' "$work/out" | tr '\n' ',')" "payments,"
cli --prefix=named-it: list nothing-
check "list of a prefix with no circuit says so" \
    "$status $(grep -c "No circuit in the shared memory segment /dev/shm/$name (prefix 'named-it:') whose name starts with 'nothing-'" "$work/err")" "0 1"

cli --prefix=named-it: status payments
check "status of payments: open, not forced" "$status $(grep -E '^(state|forced):' "$work/out" | tr '\n' ' ')" \
    "0 state: open forced: no "
check "the pool's workers reject payments" "$(permitted_of_12 payments)" 0

cli --prefix=named-it: force-closed payments 10m
check "force-closed payments succeeds" "$status $(cat "$work/out")" "0 payments: forced closed for 600s"
check "every worker then permits payments" "$(await_permitted payments 12)" 12
cli --prefix=named-it: status payments
# However long the workers took to see it, the forced state ends within
# the 600 s it was forced for, and has not ended yet.
check "status of payments: closed, forced, 600 s" \
    "$(grep -E '^(state|forced):' "$work/out" | tr '\n' ' ')$(awk '/^remaining:/ { sub(/s$/, "", $2); print ($2 + 0 > 0 && $2 + 0 <= 600) }' "$work/out")" \
    "state: closed forced: yes 1"
# Failures open nothing while forced closed.
check "failures open no forced-closed circuit" "$(request fail payments | sed 's/.*"state":"\([a-z]*\)".*/\1/')" closed

cli --prefix=named-it: force-open other 1h
check "force-open other succeeds" "$status $(cat "$work/out")" "0 other: forced open for 3600s"
check "every worker rejects other at once" "$(permitted_of_12 other)" 0
cli --prefix=named-it: list
check "list shows both forced" "$(awk 'NR > 1 { print $1, $2, $3 }' "$work/out" | tr '\n' ',')" \
    "other open yes,payments closed yes,"

cli --prefix=named-it: metrics
check "metrics: other is open" "$(grep -c '^circuit_breaker_state{service="other",state="open"} 1$' "$work/out")" 1
check "metrics: other is forced" "$(grep -c '^circuit_breaker_forced{service="other"} 1$' "$work/out")" 1
check "metrics: the pool's rejections counted" \
    "$(grep -E '^circuit_breaker_calls_rejected_total\{service="other"\} [1-9]' "$work/out" | wc -l)" 1

cli --prefix=named-it: reset other
check "reset other succeeds" "$status $(cat "$work/out")" "0 other: reset (closed)"
check "every worker then permits other" "$(await_permitted other 12)" 12
cli --prefix=named-it: status other
check "status of other: closed, not forced" "$(grep -E '^(state|forced):' "$work/out" | tr '\n' ' ')" "state: closed forced: no "

cli --prefix=named-it: status unknown
check "status of an unknown circuit fails" "$status $(grep -c "no circuit 'unknown' in the shared memory segment" "$work/err")" "1 1"

# Without the pool's setting the CLI would read a segment of its own.
status=0
php -n -d "extension=$extension" "$root/bin/circuit-breaker" list >"$work/out" 2>"$work/err" || status=$?
check "no shm_name: list fails" "$status" 1
check "no shm_name: says the segment is its own" \
    "$(grep -c 'circuit_breaker.shm_name is not set: this process has an anonymous shared memory segment of its own' "$work/err")" 1

check "no worker died" "$(grep -c 'exited on signal' "$work/fpm.log" || true)" 0
fpm_stop

finish "fpm cli"
