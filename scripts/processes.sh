# Sourced by every script that starts servers (demo/, bench/, tests/): each
# server runs in a process group of its own and is stopped as a whole group
# (php -S with PHP_CLI_SERVER_WORKERS, php-fpm and their workers included),
# at the end and also when the script is interrupted (INT, TERM).
#
#   start_group [-C DIRECTORY] COMMAND...   runs COMMAND in the background in
#       a new session (setsid): its pid, in $started, is its process group
#   stop_group PGID...   TERM to each whole group, then waits until none of
#       its processes is left (KILL after 5 s)
#   at_exit COMMAND      a script's own clean-up, run at exit once the
#       groups are stopped
#
# The script must not turn job control on (set -m): a background command is
# then a group leader already, and setsid would fork away from $!.

process_groups=()
exit_commands=()

start_group() {
    local directory=.
    if [ "$1" = -C ]; then
        directory=$2
        shift 2
    fi
    (cd "$directory" && exec setsid "$@") &
    started=$!
    process_groups+=("$started")
}

# Whether a process of group $1 is still running (zombies do not count).
group_running() {
    ps -e -o pgid=,stat= | awk -v group="$1" '$1 == group && $2 !~ /^Z/ { found = 1 } END { exit !found }'
}

stop_group() {
    local group attempt
    for group in "$@"; do
        kill -CONT -- "-$group" 2>/dev/null || true
        kill -TERM -- "-$group" 2>/dev/null || true
    done
    for group in "$@"; do
        for attempt in $(seq 100); do
            group_running "$group" || break
            [ "$attempt" -lt 100 ] || kill -KILL -- "-$group" 2>/dev/null || true
            sleep 0.05
        done
        wait "$group" 2>/dev/null || true
    done
}

at_exit() { exit_commands+=("$1"); }

stop_everything() {
    local status=$? command
    trap - EXIT INT TERM
    ((${#process_groups[@]} == 0)) || stop_group "${process_groups[@]}"
    for command in "${exit_commands[@]}"; do eval "$command" || true; done
    exit "$status"
}
trap stop_everything EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
