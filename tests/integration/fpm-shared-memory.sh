#!/usr/bin/env bash
# A real PHP-FPM pool (pm=static, 4 workers) with the built extension, on a
# free loopback port: failures registered by some workers open the circuit
# for all of them, and none is lost.
set -euo pipefail
extension=${1:?usage: fpm-shared-memory.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fpm-lib.sh"
fpm_start 4 "" -d "extension=$extension"

request() {
    fpm_request "$here/fpm-app.php" "action=$1" | sed -n '/^{/p'
}

# 39 failures, 13 at a time so that every worker takes some.
for wave in 1 2 3; do
    concurrently "request fail" 13 "$work/failures"
done
workers=$(sed 's/.*"pid":\([0-9]*\).*/\1/' "$work/failures" | sort -u | wc -l)
check "failures were registered by several workers" "$([ "$workers" -ge 2 ] && echo yes || echo "no ($workers)")" yes
check "39 failures keep it closed" "$(request state | sed 's/.*"state":"\([a-z_]*\)".*/\1/')" closed
request fail > /dev/null
check "the 40th failure opens it" "$(request state | sed 's/.*"state":"\([a-z_]*\)".*/\1/')" open

# Every worker now rejects the call.
concurrently "request acquire" 16 "$work/acquired"
workers=$(sed 's/.*"pid":\([0-9]*\).*/\1/' "$work/acquired" | sort -u | wc -l)
check "all workers saw it open" "$(grep -c '"state":"open","permitted":false' "$work/acquired")" 16
echo "requests answered by $workers workers"

finish fpm
