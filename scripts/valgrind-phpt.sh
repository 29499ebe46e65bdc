#!/usr/bin/env bash
# Runs the phpt suite under valgrind (memcheck), through run-tests.php -m,
# with PHP's allocator off so that every read is checked. Fails on any
# failed test and on any test with a valgrind error ("leaked" in run-tests'
# words: its .mem log is not empty), and prints those logs.
# Usage: valgrind-phpt.sh PATH/TO/circuit_breaker.so [TEST_DIR_OR_FILES...]
set -uo pipefail
extension=${1:?usage: valgrind-phpt.sh PATH/TO/circuit_breaker.so [TESTS...]}
shift
cd "$(dirname "$0")/.."
[ "$#" -gt 0 ] || set -- tests/phpt
command -v valgrind > /dev/null || { echo "valgrind is not installed"; exit 1; }
runner=/usr/lib/php/$(php-config --phpapi)/build/run-tests.php
log=$(mktemp)
# pcre.jit=0: valgrind cannot follow PCRE's JIT-compiled code and reports
# reads in it that are not errors.
# CB_UNDER_VALGRIND: tests that cannot run under valgrind skip themselves.
CB_UNDER_VALGRIND=1 USE_ZEND_ALLOC=0 ZEND_DONT_UNLOAD_MODULES=1 NO_INTERACTION=1 \
    php "$runner" -q -m -j"${JOBS:-2}" -p "$(command -v php)" -n -d pcre.jit=0 -d "extension=$extension" -d circuit_breaker.log_interval=0 "$@" 2>&1 | tee "$log"
passed=$(sed -n 's/^Tests passed *: *\([0-9]*\).*/\1/p' "$log")
failed=$(sed -n 's/^Tests failed *: *\([0-9]*\).*/\1/p' "$log")
leaked=$(sed -n 's/^Tests leaked *: *\([0-9]*\).*/\1/p' "$log")
rm -f "$log"
for memlog in $(find "$@" -name '*.mem' 2> /dev/null); do
    echo "== $memlog"
    head -40 "$memlog"
done
echo "valgrind: ${passed:-0} passed, ${failed:-0} failed, ${leaked:-0} with valgrind errors"
[ "${passed:-0}" -gt 0 ] && [ "${failed:-0}" -eq 0 ] && [ "${leaked:-0}" -eq 0 ]
