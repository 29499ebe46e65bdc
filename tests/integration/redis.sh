#!/usr/bin/env bash
# Real Redis servers on free loopback ports for the tests in tests/redis/: a
# standalone server with a password, one with TLS (certificate made here),
# a 3-master Redis Cluster, and a master with a replica watched by three
# redis-sentinel processes. Stopped at the end, whatever happens.
set -euo pipefail
extension=${1:?usage: redis.sh PATH/TO/circuit_breaker.so [TEST]}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
source "$here/../scripts/processes.sh"
source "$here/../scripts/lib.sh"
at_exit 'rm -rf "$work"'
redis_cli_auth=()

# start_redis NAME PORT [redis-server arguments]: a server in a process
# group of its own, on PORT or, when another process took that port first
# (the ports are free when chosen, not reserved), on another free one; returns
# when that server itself answers (INFO's process_id is its pid: a PONG from
# another run's server on the same port is not taken for it). Sets $port_of_NAME.
# $port_option names the port (--tls-port for the TLS server).
port_option=--port
start_redis() {
    local name=$1 port=$2 attempt pid
    shift 2
    mkdir -p "$work/$name"
    for attempt in 1 2 3 4 5; do
        start_group -C "$work/$name" redis-server "$port_option" "$port" --bind 127.0.0.1 --save '' --appendonly no --logfile "$work/$name/log" "$@"
        pid=$started
        echo "$pid" > "$work/$name/pid"
        if wait_for_own "$pid" "$port" "${redis_cli_auth[@]}"; then
            printf -v "port_of_${name//-/_}" %s "$port"
            return 0
        fi
        stop_group "$pid"
        port=$(free_port)
    done
    echo "redis-server $name did not start:"; cat "$work/$name/log"
    exit 1
}

# wait_for_own PID PORT [redis-cli arguments]: waits until the server on PORT
# is the process PID; fails at once when that process ended.
wait_for_own() {
    local pid=$1 port=$2
    shift 2
    for _ in $(seq 200); do
        kill -0 "$pid" 2>/dev/null || return 1
        [ "$(redis-cli -p "$port" "$@" info server 2>/dev/null | tr -d '\r' | sed -n 's/^process_id://p')" = "$pid" ] && return 0
        sleep 0.05
    done
    return 1
}

# wait_for PORT [redis-cli arguments]: until the server on PORT answers.
wait_for() {
    local port=$1
    shift
    for _ in $(seq 100); do
        redis-cli -p "$port" "$@" ping 2>/dev/null | grep -q PONG && return 0
        sleep 0.05
    done
    echo "redis on port $port did not start"
    exit 1
}

password=test-secret
redis_cli_auth=(-a "$password" --no-auth-warning)
start_redis standalone "$(free_port)" --requirepass "$password"
port=$port_of_standalone
redis_cli_auth=()

# TLS with a certificate authority made for this run.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=test CA" -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > "$work/san.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial -days 1 -extfile "$work/san.ext" -out "$work/server.crt" 2>/dev/null
redis_cli_auth=(--tls --cacert "$work/ca.crt")
port_option=--tls-port
start_redis tls "$(free_port)" --port 0 --tls-cert-file "$work/server.crt" --tls-key-file "$work/server.key" --tls-ca-cert-file "$work/ca.crt" --tls-auth-clients no
tls_port=$port_of_tls
port_option=--port
redis_cli_auth=()

# A 3-master cluster; sets cluster_ports and cluster_pids.
make_cluster() { # name, then more redis-server arguments
    local name=$1
    shift
    cluster_ports=()
    cluster_pids=()
    for node in 1 2 3; do
        start_redis "$name-$node" "$(free_port)" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 "$@"
        local port_name="port_of_${name}_$node"
        cluster_ports+=("${!port_name}")
        cluster_pids+=("$(cat "$work/$name-$node/pid")")
    done
    redis-cli --cluster create "${cluster_ports[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes > "$work/$name-create.log" 2>&1
    # Every node must see the whole cluster before the tests start: a node that
    # has not yet learnt the slots of the others answers CLUSTERDOWN.
    for cluster_port in "${cluster_ports[@]}"; do
        for attempt in $(seq 100); do
            info=$(redis-cli -p "$cluster_port" cluster info)
            grep -q 'cluster_state:ok' <<< "$info" && grep -q 'cluster_known_nodes:3' <<< "$info" \
                && grep -q 'cluster_slots_ok:16384' <<< "$info" && break
            [ "$attempt" -lt 100 ] || { echo "the cluster did not form"; cat "$work/$name-create.log"; exit 1; }
            sleep 0.1
        done
    done
}

make_cluster cluster
export CB_REDIS_CLUSTER=$(printf 'redis://127.0.0.1:%s\n' "${cluster_ports[@]}" | paste -sd, -)
# A cluster whose masters the tests stop and kill. Without replicas, the
# masters left serve their own slots only when the cluster does not require
# full coverage (with it, Redis itself refuses every key when a slot is lost).
make_cluster faulty --cluster-require-full-coverage no
export CB_REDIS_FAULTY_CLUSTER=$(printf 'redis://127.0.0.1:%s\n' "${cluster_ports[@]}" | paste -sd, -)
export CB_REDIS_FAULTY_CLUSTER_PIDS=$(printf '%s\n' "${cluster_pids[@]}" | paste -sd, -)

# Redis Sentinel: a master and its replica (both with the password, so that
# either serves after a failover) watched by three sentinels with a password
# of their own. Short timings: a failover takes a second or two.
sentinel_password=sentinel-secret
sentinel_data_ports=()
redis_cli_auth=(-a "$password" --no-auth-warning)
start_redis sentinel-master "$(free_port)" --requirepass "$password" --masterauth "$password"
sentinel_data_ports+=("$port_of_sentinel_master")
start_redis sentinel-replica "$(free_port)" --requirepass "$password" --masterauth "$password" --replicaof 127.0.0.1 "$port_of_sentinel_master"
sentinel_data_ports+=("$port_of_sentinel_replica")
redis_cli_auth=()
# The replica in sync (its first full synchronisation done) before the
# sentinels look at it.
for attempt in $(seq 200); do
    info=$(redis-cli -p "${sentinel_data_ports[1]}" -a "$password" --no-auth-warning info replication | tr -d '\r')
    grep -q '^master_link_status:up$' <<< "$info" && grep -q '^master_sync_in_progress:0$' <<< "$info" && break
    [ "$attempt" -lt 200 ] || { echo "the Sentinel replica did not synchronise:"; echo "$info"; cat "$work/sentinel-replica/log"; exit 1; }
    sleep 0.05
done
sentinel_ports=()
for sentinel in 1 2 3; do
    sentinel_port=$(free_port)
    sentinel_ports+=("$sentinel_port")
    mkdir -p "$work/sentinel-$sentinel"
    # A sentinel rewrites its configuration file: each has its own.
    cat > "$work/sentinel-$sentinel/sentinel.conf" <<EOF_CONF
port $sentinel_port
bind 127.0.0.1
dir $work/sentinel-$sentinel
logfile $work/sentinel-$sentinel/log
requirepass $sentinel_password
sentinel sentinel-pass $sentinel_password
sentinel monitor mymaster 127.0.0.1 ${sentinel_data_ports[0]} 2
sentinel auth-pass mymaster $password
sentinel down-after-milliseconds mymaster 1000
sentinel failover-timeout mymaster 2000
EOF_CONF
    start_group redis-sentinel "$work/sentinel-$sentinel/sentinel.conf"
    wait_for_own "$started" "$sentinel_port" -a "$sentinel_password" --no-auth-warning \
        || { echo "redis-sentinel on port $sentinel_port did not start:"; cat "$work/sentinel-$sentinel/log"; exit 1; }
done
# Each sentinel must know the replica (from the master's INFO) before a test
# asks for a failover, and the two other sentinels (their hellos, every 2 s)
# to agree that a master is down.
for sentinel_port in "${sentinel_ports[@]}"; do
    for attempt in $(seq 100); do
        sentinel_cli=(redis-cli -p "$sentinel_port" -a "$sentinel_password" --no-auth-warning)
        "${sentinel_cli[@]}" sentinel replicas mymaster | grep -q "^${sentinel_data_ports[1]}\$" \
            && [ "$("${sentinel_cli[@]}" sentinel sentinels mymaster | grep -c '^name$')" -eq 2 ] && break
        [ "$attempt" -lt 100 ] || { echo "sentinel on $sentinel_port did not find the replica and the other sentinels"; exit 1; }
        sleep 0.1
    done
done
export CB_REDIS_SENTINEL_DSN="redis-sentinel://:$password@$(printf '127.0.0.1:%s\n' "${sentinel_ports[@]}" | paste -sd, -)/mymaster/2?sentinel_password=$sentinel_password"
export CB_REDIS_SENTINEL_PORTS=$(printf '%s\n' "${sentinel_ports[@]}" | paste -sd, -) CB_REDIS_SENTINEL_PASSWORD=$sentinel_password
export CB_REDIS_SENTINEL_DATA_PORTS=$(printf '%s\n' "${sentinel_data_ports[@]}" | paste -sd, -)
export CB_EXTENSION=$extension

export CB_REDIS_ADDRESS=127.0.0.1:$port CB_REDIS_PASSWORD=$password
export CB_REDIS_DSN=redis://:$password@127.0.0.1:$port
export CB_REDIS_PID=$(cat "$work/standalone/pid")
export CB_REDIS_TLS_DSN=rediss://127.0.0.1:$tls_port SSL_CERT_FILE=$work/ca.crt
export CB_REDIS_RESTART_PORT=$(free_port) CB_REDIS_SLOW_PORT=$(free_port)

# tests/redis, then the suite written once for both network stores
# (tests/network) with CB_STORE=redis; a second argument runs one test or
# directory instead.
export CB_STORE=redis
status=0
if [ -n "${2:-}" ]; then
    "$here/../scripts/run-phpt.sh" "$extension" "$2" redis || status=1
else
    "$here/../scripts/run-phpt.sh" "$extension" tests/redis redis || status=1
    "$here/../scripts/run-phpt.sh" "$extension" tests/network network-redis || status=1
fi

# The conformance suite (tests/conformance/) over the standalone server and the cluster.
# No PHP takes part in it: CB_PHP_ONLY=1 (the PHP 8.4 run of make test)
# leaves it to the run of Debian's PHP.
if [ -z "${CB_PHP_ONLY:-}" ]; then
    (cd "$here/.." && REDIS_URL=$CB_REDIS_DSN REDIS_CLUSTER_NODES=$CB_REDIS_CLUSTER \
        nice cargo test --quiet --no-default-features --test conformance_servers)
fi
exit "$status"
