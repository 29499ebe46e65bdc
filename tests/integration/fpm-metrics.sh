#!/usr/bin/env bash
# The /metrics recipe of docs/operations.md (examples/metrics.php) under a real
# PHP-FPM pool (pm=static, 4 workers) on a free loopback port: workers call
# through breakers, open one, and an operator forces another open; a scrape
# through the same pool shows every worker's calls, and changes nothing.
set -euo pipefail
extension=${1:?usage: fpm-metrics.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
examples=$(cd "$here/../../examples" && pwd)
. "$here/fpm-lib.sh"
fpm_start 4 "" -d "extension=$extension"

app() {
    fpm_request "$here/fpm-metrics-app.php" "$1" | sed -n '/^{/p'
}
scrape() {
    fpm_request "$examples/metrics.php" ""
}

# payments: 4 failures at once (all permitted: none is registered before
# the others acquire), which open it; then 3 calls, rejected.
concurrently "app action=call&service=payments&outcome=failure" 4 "$work/answers"
for _ in 1 2 3; do app "action=call&service=payments" >> "$work/answers"; done
# search: 10 successes, 5 at a time.
concurrently "app action=call&service=search" 5 "$work/answers"
concurrently "app action=call&service=search" 5 "$work/answers"
# inventory "eu": one success, then forced open by an operator for 300 s
# (no opening by the rules), then 2 calls, rejected.
inventory='service=inventory%20%22eu%22'
app "action=call&$inventory" >> "$work/answers"
app "action=force-open&seconds=300&$inventory" >> "$work/answers"
app "action=call&$inventory" >> "$work/answers"
app "action=call&$inventory" >> "$work/answers"
workers=$(sed 's/.*"pid":\([0-9]*\).*/\1/' "$work/answers" | sort -u | wc -l)
echo "calls answered by $workers workers"

scrape > "$work/scrape1"
check "the scrape parses and holds every circuit's figures" \
    "$(php -n -d "extension=$extension" "$here/fpm-metrics-check.php" < "$work/scrape1" > "$work/check.out" 2>&1 && echo yes || echo no)" yes
cat "$work/check.out"
# A second scrape, by whichever worker: the same text (nothing counted or
# changed by scraping, but the seconds left).
scrape > "$work/scrape2"
check "a second scrape changes nothing" \
    "$(diff <(grep -v remaining_seconds "$work/scrape1") <(grep -v remaining_seconds "$work/scrape2") || true)" ""
check "the calls were answered by several workers" "$([ "$workers" -ge 2 ] && echo yes || echo "no ($workers)")" yes
finish "fpm metrics"
