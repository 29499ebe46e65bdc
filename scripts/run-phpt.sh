#!/usr/bin/env bash
# Runs the phpt tests with PHP's own run-tests.php against the built extension.
set -euo pipefail
extension=${1:?usage: run-phpt.sh PATH/TO/circuit_breaker.so}
runner=/usr/lib/php/$(php-config --phpapi)/build/run-tests.php
[ -f "$runner" ] || runner=$(dirname "$(php-config --extension-dir)")/build/run-tests.php
cd "$(dirname "$0")/.."
NO_INTERACTION=1 REPORT_EXIT_STATUS=1 php "$runner" -q --show-diff -p "$(command -v php)" -n -d "extension=$extension" tests/phpt
