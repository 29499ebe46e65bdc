#!/usr/bin/env bash
# What the HTTP guard costs a request, against a loopback upstream
# (tests/http/upstream.php) in the same run: callgrind instructions per
# request (the difference of N and 11N requests over 10N, so that startup
# cancels out), and the CPU time per request of a plain run beside them.
#   off        the hooks not installed (no circuit_breaker.http_hosts)
#   unguarded  the hooks on, the host not in the list: must cost about nothing
#   guarded    the host guarded, its circuit closed
#   refused    the host's circuit open: the whole cost of a refused request
# Usage: bench/http.sh PATH/TO/circuit_breaker.so
set -euo pipefail
extension=${1:?usage: bench/http.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
source "$here/../scripts/processes.sh"
at_exit 'rm -rf "$work"'
start_group php -n "$here/../tests/http/upstream.php" "$work/served" > "$work/port"
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
base=http://127.0.0.1:$(cat "$work/port")
n=${HTTP_BENCH_ITERATIONS:-200}
curl_so=$(php -r 'echo ini_get("extension_dir");')/curl.so

settings() {
    case $1 in
        off) ;;
        unguarded) echo "-d circuit_breaker.http_hosts=elsewhere.example" ;;
        guarded | refused) echo "-d circuit_breaker.http_hosts=127.0.0.1 -d circuit_breaker.http_config=$here/http-breakers.ini" ;;
    esac
}
run() { # run MODE SCENARIO ITERATIONS [valgrind...]
    local mode=$1 scenario=$2 iterations=$3
    shift 3
    # shellcheck disable=SC2046
    "$@" php -n -d "extension=$curl_so" -d "extension=$extension" $(settings "$mode") "$here/http-scenarios.php" "$scenario" "$iterations" "$base"
}
instructions() {
    run "$1" "$2" "$3" valgrind --tool=callgrind --callgrind-out-file="$work/out" 2>&1 | sed -n 's/.*Collected : //p'
}
printf '%-8s %-10s %14s %16s\n' client mode instructions "CPU µs/request"
for client in curl stream; do
    for mode in off unguarded guarded refused; do
        scenario=$client
        [ "$mode" != refused ] || scenario=$client-refused
        low=$(instructions "$mode" "$scenario" "$n")
        high=$(instructions "$mode" "$scenario" "$((11 * n))")
        cpu=$(run "$mode" "$scenario" "$((20 * n))")
        printf '%-8s %-10s %14d %16s\n' "$client" "$mode" $(((high - low) / (10 * n))) "$cpu"
    done
done
