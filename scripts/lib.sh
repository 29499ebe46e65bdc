# Sourced by the scripts that start servers (tests/, demo/, bench/): what
# they share beside processes.sh.
#
#   free_port     prints a loopback TCP port free at that moment (free when
#                 chosen, not reserved: a server that fails to bind it is
#                 started again on another)
#   wait_for_port PORT [WHAT]   returns once something accepts on
#                 127.0.0.1:PORT; fails after 5 s, saying WHAT did not start

free_port() {
    php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];'
}

wait_for_port() {
    local port=$1 what=${2:-"the server on port $1"} attempt
    for attempt in $(seq 100); do
        php -r "exit(@stream_socket_client('tcp://127.0.0.1:$port') ? 0 : 1);" && return 0
        sleep 0.05
    done
    echo "$what did not start"
    return 1
}
