#!/usr/bin/env bash
# The bulkhead in a real PHP-FPM pool. One worker (pm=static): a call that
# never registers gives its permit back however its request ends (returned,
# kept in a static property freed after the modules' shutdown, an uncaught
# exception, exit(), a fatal error), since the next request of the same
# live worker finds room with a limit of 1; a worker killed while holding
# one (request_terminate_timeout, SIGKILL) leaves it to the next worker.
# Four workers: with a limit of 2, exactly two of four concurrent calls are
# let through, counted across the workers.
set -euo pipefail
extension=${1:?usage: fpm-bulkhead.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fpm-lib.sh"
app="$here/fpm-bulkhead-app.php"

request() { fpm_request "$app" "$1" | tr -d '\r' | sed '1,/^$/d' || true; }
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([a-z_0-9]*\).*/\1/p" | tail -1; }

fpm_start 1 "" -d "extension=$extension" -d display_errors=1 -d html_errors=0
worker=$(request "action=try" | field pid)
for how in return static exception exit fatal; do
    check "$how: the call was permitted" "$(request "action=hold&how=$how" | field permitted)" true
    answer=$(request "action=try")
    check "$how: the same worker, alive" "$(echo "$answer" | field pid)" "$worker"
    check "$how: its permit was given back at the end of the request" "$(echo "$answer" | field permitted)" true
done

# SIGKILLed while holding a permit.
worker=$(request "action=try" | field pid)
touch_file="$work/release-sigkill"
request "action=hold&how=until&file=$touch_file" > "$work/sigkill.out" &
holder=$!
for attempt in $(seq 200); do
    grep -q permitted "$work/sigkill.out" && break
    sleep 0.05
done
check "sigkill: the call was permitted" "$(field permitted < "$work/sigkill.out")" true
kill -KILL "$worker"
wait "$holder" || true
answer=$(request "action=try")
check "sigkill: the killed worker's permit was reclaimed" "$(echo "$answer" | field permitted)" true
check "sigkill: one call in flight, its own" "$(echo "$answer" | field in_flight)" 1
fpm_stop

fpm_start 1 "request_terminate_timeout = 1" -d "extension=$extension"
worker=$(request "action=try" | field pid)
# Killed by php-fpm past request_terminate_timeout, while holding a permit.
check "hang: the call was permitted" "$(request "action=hold&how=hang" | field permitted)" true
answer=$(request "action=try")
check "hang: another worker answered" "$([ "$(echo "$answer" | field pid)" != "$worker" ] && echo yes)" yes
check "hang: the killed worker's permit was reclaimed" "$(echo "$answer" | field permitted)" true
check "php-fpm killed the hanging worker" "$(grep -c 'execution timed out' "$work/fpm.log" || true)" 1

fpm_stop

# Four workers, a limit of 2: the holders wait for a file the script makes
# once the two others answered, so all four overlap whatever the load.
fpm_start 4 "" -d "extension=$extension"
release="$work/release"
for i in 1 2 3 4; do
    request "action=hold&how=until&limit=2&file=$release" > "$work/concurrent-$i.out" &
    holders[i]=$!
done
for attempt in $(seq 400); do
    [ "$(cat "$work"/concurrent-*.out | grep -c '"permitted":false')" -ge 2 ] && break
    sleep 0.05
done
touch "$release"
wait "${holders[@]}"
check "4 concurrent calls, limit 2: 2 permitted" "$(cat "$work"/concurrent-*.out | grep -c '"permitted":true')" 2
check "4 concurrent calls, limit 2: 2 rejected" "$(cat "$work"/concurrent-*.out | grep -c '"permitted":false')" 2
check "four workers answered" "$(for i in 1 2 3 4; do field pid < "$work/concurrent-$i.out"; done | sort -u | wc -l)" 4
check "once released, nothing in flight" "$(request "action=try&limit=2" | field in_flight)" 1

finish fpm-bulkhead
