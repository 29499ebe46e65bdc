#!/usr/bin/env bash
# `make demo` interrupted (Ctrl-C: SIGINT to its process group) once its
# servers are up, with each storage: nothing it started may be left
# running (the upstream's PHP_CLI_SERVER_WORKERS, php-fpm and its workers,
# redis-server, the load generator). The end of a whole run is checked the
# same way by the Makefile, which runs every integration script through
# tests/integration/no-leftovers.php.
set -euo pipefail
extension=${1:?usage: demo-leftovers.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")/../.." && pwd)
output=$(mktemp -d)
logs=$(mktemp -d)
trap 'rm -rf "$output" "$logs"' EXIT
passed=0
failed=0
# run LABEL [--interrupt-after=TEXT] (ENVIRONMENT=VALUE...): make demo, checked.
run() {
    local label=$1 interrupt=() log=$logs/$passed-$failed.log
    shift
    if [[ $1 == --interrupt-after=* ]]; then interrupt=("$1"); shift; fi
    env DEMO_OUTPUT="$output" "$@" php -d ffi.enable=1 "$here/tests/integration/no-leftovers.php" \
        "${interrupt[@]}" "$here/demo/run.sh" "$extension" > "$log" 2>&1 || true
    if grep -q '^no-leftovers: nothing left running' "$log" && { [ ${#interrupt[@]} -eq 0 ] || grep -q '^no-leftovers: SIGINT' "$log"; }; then
        echo "ok: $label leaves nothing running"
        passed=$((passed + 1))
    else
        echo "FAILED: $label:"
        sed 's/^/    /' "$log"
        failed=$((failed + 1))
    fi
}
# Two seconds of each run: the whole demo, servers started and stopped.
run 'make demo (2 s runs) to its end' DEMO_SECONDS=2
run 'make demo (2 s runs, DEMO_STORAGE=redis) to its end' DEMO_SECONDS=2 DEMO_STORAGE=redis
# Ctrl-C once the servers are up, in the first run.
run 'make demo interrupted' --interrupt-after='Timeline of each run' DEMO_STORAGE=shm
run 'make demo (DEMO_STORAGE=fleet) interrupted' --interrupt-after='Timeline of each run' DEMO_STORAGE=fleet
echo "demo-leftovers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
