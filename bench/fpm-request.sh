#!/usr/bin/env bash
# The instructions a breaker adds to a request in a real php-fpm worker.
# One php-fpm master under callgrind (the extension loaded at the master, so
# the workers share its segment; OPcache on, validate_timestamps=0), one
# static worker, and a temporary docroot:
#   empty.php       echo "ok"
#   ours.php        new SharedMemoryStorage + new Configuration (a rule and a
#                   ramp) + new CircuitBreaker + one protected call, as the
#                   `per-request` scenario of bench/scenarios.php
#   ours-redis.php  the same on a RedisStorage (when redis-server exists,
#                   against one started here)
#   userland.php    the same code on the classes of bench/userland-floor.php,
#                   written in PHP and doing nothing, declared at the top of
#                   the script: what PHP spends on the seed's usage itself
# The master runs twice, with pm.max_requests K1 then K2: each script is
# served by a worker of its own, which exits after K requests and leaves its
# callgrind profile. Instructions per request = (the worker's total at K2 -
# at K1) / (K2 - K1), so that the worker's startup and first request cancel
# out; "added" is the script's minus empty.php's. User space only.
# Usage: bench/fpm-request.sh PATH/TO/circuit_breaker.so [K1 K2]  (50 550)
set -euo pipefail
extension=$(realpath "${1:?usage: bench/fpm-request.sh PATH/TO/circuit_breaker.so [K1 K2]}")
k1=${2:-50}
k2=${3:-550}
here=$(cd "$(dirname "$0")" && pwd)
fpm=${PHP_FPM:-$(command -v php-fpm8.2 || command -v php-fpm)}
work=$(mktemp -d)
source "$here/../scripts/processes.sh"
source "$here/../scripts/lib.sh"
at_exit 'rm -rf "$work"'

# Polls COMMAND until it succeeds, or fails saying WHAT after 10 minutes.
wait_until() {
    local what=$1 attempt
    shift
    for attempt in $(seq 6000); do
        "$@" && return 0
        sleep 0.1
    done
    echo "timed out waiting for $what" >&2
    cat "$work"/fpm*.out "$work"/fpm*.log >&2 2> /dev/null
    return 1
}

www=$work/www
mkdir -p "$www"
scripts=(empty.php ours.php)
echo '<?php echo "ok\n";' > "$www/empty.php"
# The request itself, on the storage of expression $1.
request() {
    cat <<PHP
\$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 10)],
    openDuration: 10,
    halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
);
\$breaker = new CircuitBreaker('per-request', \$configuration, $1);
if (\$breaker->acquirePermission()) {
    \$breaker->registerSuccess();
}
echo "ok\n";
PHP
}
ours() { # the storage's expression
    echo '<?php'
    printf 'use Zeusi\\CircuitBreaker\\%s;\n' CircuitBreaker Configuration HalfOpen\\RampPolicy Opening\\FailureRateRule
    request "$1"
}
ours "new Zeusi\CircuitBreaker\Storage\SharedMemoryStorage('bench:')" > "$www/ours.php"
if command -v redis-server > /dev/null; then
    redis_port=$(free_port)
    start_group -C "$work" redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --logfile "$work/redis.log"
    wait_for_port "$redis_port" redis-server
    ours "new Zeusi\CircuitBreaker\Storage\RedisStorage('redis://127.0.0.1:$redis_port', 'bench:', 1.0)" > "$www/ours-redis.php"
    scripts+=(ours-redis.php)
fi
# In the namespace of the classes it declares, which need no import.
{
    cat "$here/userland-floor.php"
    request "new SharedMemoryStorage('bench:')"
} > "$www/userland.php"
scripts+=(userland.php)

php_flags=(-n -d "extension=$extension" -d circuit_breaker.shm_size=96M)
# Not `| grep -q`: with pipefail, php's write after grep quit fails the test.
modules=$(php -n -d zend_extension=opcache -m 2> /dev/null || true)
if [[ $modules == *"Zend OPcache"* ]]; then
    # file_update_protection=0: OPcache would otherwise compile each request
    # a script written less than 2 s before, as these are.
    php_flags+=(-d zend_extension=opcache -d opcache.enable=1 -d opcache.validate_timestamps=0
        -d opcache.file_update_protection=0)
fi

# Profiles that callgrind finished: it writes `totals:` last.
finished() { grep -l '^totals:' "$1"/out.* 2> /dev/null || true; }
count_finished() { [ "$(finished "$1" | wc -l)" -ge "$2" ]; }

declare -A total
for k in "$k1" "$k2"; do
    profiles=$work/cg$k
    mkdir -p "$profiles"
    port=$(free_port)
    cat > "$work/fpm.conf" <<CONF
[global]
error_log = $work/fpm$k.log
daemonize = no
[bench]
user = $(id -un)
listen = 127.0.0.1:$port
pm = static
pm.max_children = 1
pm.max_requests = $k
CONF
    # A forked worker stays under the master's valgrind, profiled to a file
    # of its own (%p).
    start_group valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$profiles/out.%p" \
        "$fpm" "${php_flags[@]}" -y "$work/fpm.conf" -F -R > "$work/fpm$k.out" 2>&1
    master=$started
    # The probe's empty connection reaches the first worker in both runs.
    wait_until "php-fpm on port $port" php -r "exit(@stream_socket_client('tcp://127.0.0.1:$port') ? 0 : 1);"
    served=0
    for script in "${scripts[@]}"; do
        php -n "$here/fpm-client.php" "127.0.0.1:$port" "$www" "$script" "$k"
        # The worker exits after its k requests, callgrind then writes its profile.
        served=$((served + 1))
        wait_until "the profile of the worker that served $script" count_finished "$profiles" "$served"
        profile=$(comm -13 <(sort "$work/seen" 2> /dev/null) <(finished "$profiles" | sort))
        echo "$profile" >> "$work/seen"
        total[$script,$k]=$(sed -n 's/^totals: *//p' "$profile")
    done
    stop_group "$master"
done

printf '| script | instructions per request | added |\n|---|---:|---:|\n'
base=$(((total[empty.php,$k2] - total[empty.php,$k1]) / (k2 - k1)))
for script in "${scripts[@]}"; do
    per=$(((total[$script,$k2] - total[$script,$k1]) / (k2 - k1)))
    printf '| %s | %d | %+d |\n' "$script" "$per" $((per - base))
done
