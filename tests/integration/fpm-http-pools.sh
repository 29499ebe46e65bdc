#!/usr/bin/env bash
# The HTTP guard's settings per PHP-FPM pool: a master whose php.ini guards
# nothing, and two pools that each set their own hosts, breakers file and
# mode with php_admin_value. Each pool guards its own hosts only, with its
# own settings; a mistake in a pool's value is a warning in the log.
set -euo pipefail
extension=${1:?usage: fpm-http-pools.sh PATH/TO/circuit_breaker.so}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/fpm-lib.sh"

start_upstream

cat > "$work/breakers.ini" <<INI
[defaults]
minimum_requests = 100
consecutive_failures = 2
open_duration = 60
INI
# The second pool listens on a Unix socket: a second free TCP port, chosen
# before either pool binds, could be the first one again.
other_pool=$work/other.sock
curl_extension=$(php -r 'echo ini_get("extension_dir");')/curl.so
fpm_start 1 "php_admin_value[circuit_breaker.http_hosts] = 127.0.0.1
php_admin_value[circuit_breaker.http_config] = $work/breakers.ini

[other]
user = $(id -un)
listen = $other_pool
pm = static
pm.max_children = 1
catch_workers_output = yes
php_admin_value[circuit_breaker.http_hosts] = localhost, http://x/
php_admin_value[circuit_breaker.http_config] = $work/breakers.ini
php_admin_value[circuit_breaker.http_mode] = observe" \
    -d "extension=$curl_extension" -d "extension=$extension"
pool=127.0.0.1:$port

# request POOL URL: the app's answer in the pool at that address.
request() {
    fpm_address=$1 fpm_request "$here/fpm-http-app.php" "url=$2" | sed -n '/^{/p'
}
circuit() { sed 's/.*"circuit":\(null\|"[^"]*"\).*/\1/' | tr -d '"'; }
errno() { sed 's/.*"errno":\([0-9]*\).*/\1/'; }

check "the first pool guards 127.0.0.1" "$(request "$pool" "http://127.0.0.1:$upstream/status/200" | circuit)" "127.0.0.1:$upstream"
check "the first pool leaves localhost alone" "$(request "$pool" "http://localhost:$upstream/status/200" | circuit)" null
check "the second pool guards localhost" "$(request "$other_pool" "http://localhost:$upstream/status/200" | circuit)" "localhost:$upstream"
check "the second pool leaves 127.0.0.1 alone" "$(request "$other_pool" "http://127.0.0.1:$upstream/status/200" | circuit)" null

# Each pool's breakers file and mode: two failures open a circuit; the
# first pool enforces it, the second only observes.
for each in "$pool 127.0.0.1" "$other_pool localhost"; do
    set -- $each
    request "$1" "http://$2:$upstream/status/503" > /dev/null
    request "$1" "http://$2:$upstream/status/503" > /dev/null
done
check "the first pool refuses its open circuit (errno 7)" "$(request "$pool" "http://127.0.0.1:$upstream/status/200" | errno)" 7
check "the second pool observes: its request goes" "$(request "$other_pool" "http://localhost:$upstream/status/200" | errno)" 0
fpm_stop
check "the second pool's bad pattern is a warning in the log" "$(grep -c "circuit_breaker.http_hosts: 'http://x/' is not a host pattern" "$work/fpm.log" || true)" 1
check "each opening was logged" "$(grep -c "HTTP circuit '\(127.0.0.1\|localhost\):$upstream' opened" "$work/fpm.log" || true)" 2
check "no worker died" "$(grep -c 'exited on signal' "$work/fpm.log" || true)" 0

finish "fpm http pools"
