#!/usr/bin/env bash
# Real Redis servers on free loopback ports for the tests in tests/redis/: a
# standalone server with a password, one with TLS (certificate made here),
# a 3-master Redis Cluster, and a master with a replica watched by three
# redis-sentinel processes. Stopped at the end, whatever happens.
set -euo pipefail
extension=${1:?usage: redis.sh PATH/TO/circuit_breaker.so [TEST]}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
free_port() { php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo explode(":", stream_socket_get_name($s, false))[1];'; }
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -CONT "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

start_redis() { # name, then redis-server arguments
    local name=$1
    shift
    mkdir -p "$work/$name"
    (cd "$work/$name" && exec redis-server --bind 127.0.0.1 --save '' --appendonly no --logfile "$work/$name/log" "$@") &
    pids+=($!)
    echo $! > "$work/$name/pid"
}

wait_for() { # port [redis-cli arguments]
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
port=$(free_port)
start_redis standalone --port "$port" --requirepass "$password"
wait_for "$port" -a "$password" --no-auth-warning

# TLS with a certificate authority made for this run.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=test CA" -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > "$work/san.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial -days 1 -extfile "$work/san.ext" -out "$work/server.crt" 2>/dev/null
tls_port=$(free_port)
start_redis tls --port 0 --tls-port "$tls_port" --tls-cert-file "$work/server.crt" --tls-key-file "$work/server.key" --tls-ca-cert-file "$work/ca.crt" --tls-auth-clients no
wait_for "$tls_port" --tls --cacert "$work/ca.crt"

# A 3-master cluster; sets cluster_ports and cluster_pids.
make_cluster() { # name, then more redis-server arguments
    local name=$1
    shift
    cluster_ports=()
    cluster_pids=()
    for node in 1 2 3; do
        local cluster_port
        cluster_port=$(free_port)
        cluster_ports+=("$cluster_port")
        start_redis "$name-$node" --port "$cluster_port" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 "$@"
        cluster_pids+=("$(cat "$work/$name-$node/pid")")
        wait_for "$cluster_port"
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
for role in master replica; do
    data_port=$(free_port)
    sentinel_data_ports+=("$data_port")
    replica_of=()
    [ "$role" = master ] || replica_of=(--replicaof 127.0.0.1 "${sentinel_data_ports[0]}")
    start_redis "sentinel-$role" --port "$data_port" --requirepass "$password" --masterauth "$password" "${replica_of[@]}"
    wait_for "$data_port" -a "$password" --no-auth-warning
done
for _ in $(seq 100); do
    redis-cli -p "${sentinel_data_ports[1]}" -a "$password" --no-auth-warning info replication | grep -q 'master_link_status:up' && break
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
    redis-sentinel "$work/sentinel-$sentinel/sentinel.conf" &
    pids+=($!)
    wait_for "$sentinel_port" -a "$sentinel_password" --no-auth-warning
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
export CB_REDIS_FREE_PORT=$(free_port) CB_REDIS_RESTART_PORT=$(free_port) CB_REDIS_SLOW_PORT=$(free_port)

# A second argument runs one test (or another directory) of tests/redis.
"$here/../scripts/run-phpt.sh" "$extension" "${2:-tests/redis}" redis

# The conformance suite (tests/conformance/) over the standalone server and the cluster.
(cd "$here/.." && REDIS_URL=$CB_REDIS_DSN REDIS_CLUSTER_NODES=$CB_REDIS_CLUSTER \
    nice cargo test --quiet --no-default-features --test conformance_servers)
