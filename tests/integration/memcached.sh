#!/usr/bin/env bash
# Real memcached servers on free loopback ports for tests/memcached/: one
# serves most tests, two show that a service stays on one server, a small
# one fills up; and a proxy in front of the first that delays every reply
# by 45 ms (a slow server, for the tests that bound the time of a call).
set -euo pipefail
extension=${1:?usage: memcached.sh PATH/TO/circuit_breaker.so [TEST]}
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/../scripts/processes.sh"
source "$here/../scripts/lib.sh"
pids=()

# Each server listens before the next free port is chosen, which could
# otherwise be the same one.
# The third has 2 MB and answers SERVER_ERROR when full (-M) rather than
# evicting: a server out of memory.
ports=()
for options in "-m 64" "-m 64" "-m 2 -I 512k -M"; do
    port=$(free_port)
    # shellcheck disable=SC2086
    start_group memcached -l 127.0.0.1 -p "$port" -U 0 -u "$(id -un)" $options
    pids+=("$started")
    ports+=("$port")
    wait_for_port "$port" "memcached on port $port" || exit 1
done

slow_port=$(free_port)
start_group php "$here/support/proxy.php" "$slow_port" "127.0.0.1:${ports[0]}" --delay 45
wait_for_port "$slow_port" "the delaying proxy on port $slow_port" || exit 1

export CB_MEMCACHED=127.0.0.1:${ports[0]} CB_MEMCACHED_PID=${pids[0]}
export CB_MEMCACHED_SLOW=127.0.0.1:$slow_port CB_MEMCACHED_DELAY_MS=45
export CB_MEMCACHED_PAIR=127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}
export CB_MEMCACHED_SMALL=127.0.0.1:${ports[2]}
# tests/memcached, then the suite written once for both network stores
# (tests/network) with CB_STORE=memcached; a second argument runs one test
# or directory instead.
export CB_STORE=memcached
status=0
if [ -n "${2:-}" ]; then
    "$here/../scripts/run-phpt.sh" "$extension" "$2" memcached || status=1
else
    "$here/../scripts/run-phpt.sh" "$extension" tests/memcached memcached || status=1
    "$here/../scripts/run-phpt.sh" "$extension" tests/network network-memcached || status=1
    # The tests that print key names again, their run named by the first
    # digits of the current minute, which every 3600 s window's bucket
    # number holds (tests/phpt/bootstrap.inc, run_id()): a pid that occurs
    # inside a bucket number must not change what they print.
    minute=$(($(date +%s) / 60))
    for test in bad-value-per-circuit hostile-data; do
        CB_TEST_RUN=${minute:0:3} "$here/../scripts/run-phpt.sh" "$extension" "tests/memcached/$test.phpt" "memcached-run-in-bucket" || status=1
    done
fi

# The conformance suite (tests/conformance/) over both servers.
# No PHP takes part in it: CB_PHP_ONLY=1 (the PHP 8.4 run of make test)
# leaves it to the run of Debian's PHP.
if [ -z "${CB_PHP_ONLY:-}" ]; then
    (cd "$here/.." && MEMCACHED_SERVERS=$CB_MEMCACHED_PAIR \
        nice cargo test --quiet --no-default-features --test conformance_servers)
fi
exit "$status"
