#!/usr/bin/env bash
# The HTTP guard in a real PHP-FPM pool, with an application that has no
# breaker code (plain curl): failures seen by different workers open the
# host's circuit for all of them, and then no worker's request reaches the
# upstream; each worker's refusal is a refused connection (errno 7); the
# transition is logged once for the pool.
set -euo pipefail
extension=${1:?usage: fpm-http.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fpm-lib.sh"

start_upstream

cat > "$work/breakers.ini" <<INI
[defaults]
minimum_requests = 100
consecutive_failures = 4
open_duration = 60
INI
curl_extension=$(php -r 'echo ini_get("extension_dir");')/curl.so
fpm_start 4 "" -d "extension=$curl_extension" -d "extension=$extension" \
    -d circuit_breaker.http_hosts=127.0.0.1 -d "circuit_breaker.http_config=$work/breakers.ini"

fail() { fpm_request "$here/fpm-http-app.php" "url=http://127.0.0.1:$upstream/status/503/1000" | sed -n '/^{/p'; }
# Four slow failures at once: each of the four workers sees one, and
# together they open the circuit.
concurrently fail 4 "$work/failures"
check "the failing requests were served by the four workers" "$(sed 's/.*"pid":\([0-9]*\).*/\1/' "$work/failures" | sort -u | wc -l)" 4
check "they reached the upstream" "$(cat "$work/served")" 4
served=$(cat "$work/served")

ok() { fpm_request "$here/fpm-http-app.php" "url=http://127.0.0.1:$upstream/status/200" | sed -n '/^{/p'; }
concurrently ok 16 "$work/refused"
check "16 requests answered" "$(wc -l < "$work/refused")" 16
check "every one refused as a refused connection (errno 7)" "$(grep -c '"errno":7,' "$work/refused" || true)" 16
check "none reached the upstream" "$(cat "$work/served")" "$served"
fpm_stop
check "the opening was logged once for the pool" "$(grep -c "HTTP circuit '127.0.0.1:$upstream' opened" "$work/fpm.log" || true)" 1
check "no worker died" "$(grep -c 'exited on signal' "$work/fpm.log" || true)" 0

finish "fpm http"
