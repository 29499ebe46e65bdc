# Sourced by the php-fpm integration scripts: one php-fpm pool on a free
# loopback port in a temporary directory, the checks they count, and the
# clean-up that stops everything they started.
#
# The php-fpm is PHP_FPM's, else Debian 12's.
#
# After sourcing: $work (removed at exit), $fpm (the binary), free_port,
# fpm_start / fpm_stop (set $fpm_pid and $port), fpm_request, check,
# concurrently, start_upstream, and `at_exit COMMAND` for a script's own
# clean-up.

source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/processes.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
fpm=${PHP_FPM:-$(command -v php-fpm8.2 || command -v php-fpm)}
work=$(mktemp -d)
at_exit 'rm -rf "$work"'
fpm_pid=
passed=0
failed=0

# php-fpm and its workers: one process group, stopped whole.
fpm_stop() {
    if [ -n "$fpm_pid" ]; then
        stop_group "$fpm_pid"
        fpm_pid=
    fi
}

# Waits until php-fpm logged "ready to handle connections" $1 times (a
# reload logs it again), or fails with its log.
fpm_wait_ready() {
    local attempt ready
    for attempt in $(seq 100); do
        ready=$(grep -c 'ready to handle connections' "$work/fpm.log" 2>/dev/null) || ready=0
        [ "$ready" -ge "${1:-1}" ] && return 0
        kill -0 "$fpm_pid" 2>/dev/null || { echo "php-fpm stopped:"; cat "$work/fpm.log"; exit 1; }
        [ "$attempt" -lt 100 ] || { echo "php-fpm is not ready on port $port:"; cat "$work/fpm.log"; exit 1; }
        sleep 0.1
    done
}

# fpm_start WORKERS POOL_LINES [PHP-FPM OPTIONS...]: a static pool of
# WORKERS workers with the extra pool lines, started with the options
# (`-n` is always given: only what the test sets), ready when it returns.
fpm_start() {
    local workers=$1 pool_lines=$2
    shift 2
    port=$(free_port)
    rm -f "$work/fpm.log"
    cat > "$work/php-fpm.conf" <<CONF
[global]
pid = $work/fpm.pid
error_log = $work/fpm.log
daemonize = no

[pool]
user = $(id -un)
listen = 127.0.0.1:$port
pm = static
pm.max_children = $workers
catch_workers_output = yes
$pool_lines
CONF
    # -R: CI runs as root, and the pool then runs as root too.
    start_group "$fpm" -n "$@" -y "$work/php-fpm.conf" -F -R
    fpm_pid=$started
    fpm_wait_ready 1
}

# fpm_request SCRIPT QUERY: the whole FastCGI answer, headers included,
# from the pool on $port, or at $fpm_address when set (a Unix socket path).
fpm_request() {
    SCRIPT_FILENAME="$1" REQUEST_METHOD=GET QUERY_STRING="$2" \
        timeout 10 cgi-fcgi -bind -connect "${fpm_address:-127.0.0.1:$port}" 2>/dev/null
}

check() {
    if [ "$2" = "$3" ]; then
        echo "ok: $1"
        passed=$((passed + 1))
    else
        echo "FAILED: $1: expected $3, got $2"
        failed=$((failed + 1))
    fi
}

# concurrently COMMAND COUNT FILE: runs COMMAND (a function taking no
# argument, or a word list) COUNT times at once, appending the outputs to
# FILE. Waits for these only: a plain `wait` would wait for php-fpm too.
concurrently() {
    local pids=() i
    for i in $(seq "$2"); do
        $1 >> "$3" &
        pids+=($!)
    done
    wait "${pids[@]}"
}

# start_upstream: tests/http/upstream.php, a single process that counts
# the requests it serves in $work/served; sets $upstream to its port once
# it listens (it prints the port then).
start_upstream() {
    local attempt
    start_group php -n "$(dirname "${BASH_SOURCE[0]}")/../http/upstream.php" "$work/served" > "$work/upstream-port"
    for attempt in $(seq 100); do
        [ -s "$work/upstream-port" ] && break
        kill -0 "$started" || { echo "the upstream did not start"; exit 1; }
        sleep 0.05
    done
    upstream=$(cat "$work/upstream-port")
}

# The summary line and the exit status of a script.
finish() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
