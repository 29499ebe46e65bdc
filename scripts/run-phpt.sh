#!/usr/bin/env bash
# Runs phpt tests with PHP's own run-tests.php against the built extension,
# then prints a closing line "LABEL: N passed, N failed". The PHP is the
# php (and php-config) on PATH, with its own run-tests.php.
# Usage: run-phpt.sh PATH/TO/circuit_breaker.so [TEST_DIR (tests/phpt)] [LABEL (phpt)]
set -uo pipefail
extension=${1:?usage: run-phpt.sh PATH/TO/circuit_breaker.so [TEST_DIR] [LABEL]}
cd "$(dirname "$0")/.."
directory=${2:-tests/phpt}
label=${3:-phpt}
# Debian's packages put the runner under the API number, PHP's own
# `make install` (scripts/php84.sh) under the prefix.
for runner in "$(php-config --prefix)/lib/php/build/run-tests.php" "/usr/lib/php/$(php-config --phpapi)/build/run-tests.php"; do
    [ -f "$runner" ] && break
done
log=$(mktemp)
NO_INTERACTION=1 REPORT_EXIT_STATUS=1 php "$runner" -q --show-diff -p "$(command -v php)" -n -d "extension=$extension" -d circuit_breaker.log_interval=0 "$directory" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(sed -n 's/^Tests passed *: *\([0-9]*\).*/\1/p' "$log")
failed=$(sed -n 's/^Tests failed *: *\([0-9]*\).*/\1/p' "$log")
# run-tests.php runs a failed test again when its output says "connection
# refused" or "timed out", and counts it passed if the second run passes:
# here that is a failure, since a test must not depend on luck.
retried=$(grep -c 'passed on retry attempt' "$log")
grep 'passed on retry attempt' "$log"
rm -f "$log"
echo "$label: ${passed:-0} passed, ${failed:-0} failed, $retried passed only on retry"
[ "$retried" -eq 0 ] || status=1
exit "$status"
