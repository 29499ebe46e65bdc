#!/usr/bin/env bash
# Instructions per iteration of each scenario of bench/scenarios.php, under
# callgrind: stable on a loaded machine, where timings are not. Each figure
# is the difference of two runs (N and 11N iterations) over 10N, so that
# startup and setup cancel out.
# Usage: bench/callgrind.sh PATH/TO/circuit_breaker.so [scenario...]
set -euo pipefail
extension=${1:?usage: bench/callgrind.sh PATH/TO/circuit_breaker.so [scenario...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=${CALLGRIND_ITERATIONS:-2000}
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(floor reused rejected per-request one-service many-services listener)
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$work/out" php -n -d "extension=$extension" \
        -d circuit_breaker.shm_size=64M "$here/scenarios.php" "$1" "$2" 2>&1 | sed -n 's/.*Collected : //p'
}
for scenario in "${scenarios[@]}"; do
    runs=$n
    # The first call on each of the 5 000 services claims its record: the
    # shorter run makes them all, so that the difference is of calls on
    # known services only.
    [ "$scenario" != many-services ] || [ "$runs" -ge 5000 ] || runs=5000
    low=$(instructions "$scenario" "$runs")
    high=$(instructions "$scenario" "$((11 * runs))")
    printf '%-16s %10d instructions/iteration\n' "$scenario" $(((high - low) / (10 * runs)))
done
