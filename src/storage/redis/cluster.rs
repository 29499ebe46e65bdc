//! Redis Cluster, routed by us: every key of a service shares one hash tag,
//! so each call talks to the one master that owns the service's slot. Each
//! master is a standalone connection of the pool, with its own backoff and
//! the call's deadline: a master that is down or paused fails only the
//! circuits whose slots it owns.
//!
//! The slot map (`CLUSTER SLOTS`) is read from a reachable node at the first
//! call, and again, at most once a second, after a redirection (`MOVED`,
//! `ASK`) or a failure of a node (a replica may have taken its slots over).
//! A refresh asks first the node the call is for, then the other known
//! nodes and the seeds, skipping nodes in backoff, within the call's
//! deadline.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use redis::{ConnectionAddr, ConnectionInfo, ErrorKind, RedisResult, ServerErrorKind, Value};

use super::connection::{CONNECTIONS, Connection, SLOT_MAP_REPLY_LIMIT};
use super::{CallError, on_node, pool_key};
use crate::storage::persistent::backing_off;

/// The shortest time between two reads of the slot map.
const REFRESH_INTERVAL: Duration = Duration::from_secs(1);

type Node = (String, u16);

struct SlotMap {
    /// (first slot, last slot, master), as `CLUSTER SLOTS` lists them.
    ranges: Vec<(u16, u16, Node)>,
    stale: bool,
    read_at: Instant,
}

impl SlotMap {
    fn owner(&self, slot: u16) -> Option<&Node> {
        self.ranges
            .iter()
            .find(|(first, last, _)| (*first..=*last).contains(&slot))
            .map(|(_, _, node)| node)
    }
}

thread_local! {
    /// The slot map of each cluster (by the identity of its storage).
    static SLOT_MAPS: RefCell<HashMap<String, SlotMap>> = RefCell::default();
}

/// The connection settings of `node`: those of the seeds (credentials,
/// TLS), at the node's address.
fn node_info(seed: &ConnectionInfo, (host, port): &Node) -> ConnectionInfo {
    let addr = match seed.addr() {
        ConnectionAddr::TcpTls {
            insecure, tls_params, ..
        } => ConnectionAddr::TcpTls {
            host: host.clone(),
            port: *port,
            insecure: *insecure,
            tls_params: tls_params.clone(),
        },
        _ => ConnectionAddr::Tcp(host.clone(), *port),
    };
    seed.clone().set_addr(addr)
}

fn node_of(info: &ConnectionInfo) -> Option<Node> {
    match info.addr() {
        ConnectionAddr::Tcp(host, port) | ConnectionAddr::TcpTls { host, port, .. } => Some((host.clone(), *port)),
        _ => None,
    }
}

fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Int(integer) => Some(*integer),
        _ => None,
    }
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::BulkString(bytes) => String::from_utf8(bytes.clone()).ok(),
        Value::SimpleString(text) => Some(text.clone()),
        _ => None,
    }
}

/// The ranges of a `CLUSTER SLOTS` answer; a master listed without an
/// address is the node that answered.
fn parse_slots(answer: &Value, asked: &Node) -> Option<Vec<(u16, u16, Node)>> {
    let Value::Array(entries) = answer else {
        return None;
    };
    entries
        .iter()
        .map(|entry| {
            let Value::Array(parts) = entry else {
                return None;
            };
            let first = u16::try_from(integer(parts.first()?)?).ok()?;
            let last = u16::try_from(integer(parts.get(1)?)?).ok()?;
            let Value::Array(master) = parts.get(2)? else {
                return None;
            };
            let host = text(master.first()?)?;
            let port = u16::try_from(integer(master.get(1)?)?).ok()?;
            let host = if host.is_empty() || host == "?" {
                asked.0.clone()
            } else {
                host
            };
            Some((first, last, (host, port)))
        })
        .collect()
}

fn mark_stale(cluster: &str) {
    SLOT_MAPS.with_borrow_mut(|maps| {
        if let Some(map) = maps.get_mut(cluster) {
            map.stale = true;
        }
    });
}

/// The master of `slot`, reading the slot map first when it is missing,
/// or stale and not read for a second.
fn owner(
    cluster: &str,
    seeds: &[ConnectionInfo],
    timeout: Duration,
    deadline: Instant,
    slot: u16,
) -> Result<Node, CallError> {
    let (known, refresh, nodes) = SLOT_MAPS.with_borrow(|maps| match maps.get(cluster) {
        None => (None, true, Vec::new()),
        Some(map) => (
            map.owner(slot).cloned(),
            map.stale && map.read_at.elapsed() >= REFRESH_INTERVAL,
            map.ranges.iter().map(|(_, _, node)| node.clone()).collect(),
        ),
    });
    if refresh {
        let mut candidates: Vec<Node> = known.iter().cloned().chain(nodes).collect();
        candidates.extend(seeds.iter().filter_map(node_of));
        let mut tried = Vec::new();
        let mut last_error = None;
        for node in candidates {
            if tried.contains(&node) || Instant::now() >= deadline {
                continue;
            }
            let info = node_info(&seeds[0], &node);
            tried.push(node.clone());
            if backing_off(&CONNECTIONS, &pool_key(&info, timeout)) {
                continue;
            }
            let answer = on_node(&info, timeout, deadline, &|connection: &mut Connection| {
                connection.limit_replies(SLOT_MAP_REPLY_LIMIT);
                redis::cmd("CLUSTER").arg("SLOTS").query::<Value>(connection)
            });
            match answer.map(|answer| parse_slots(&answer, &node)) {
                Ok(Some(ranges)) => {
                    let map = SlotMap {
                        ranges,
                        stale: false,
                        read_at: Instant::now(),
                    };
                    SLOT_MAPS.with_borrow_mut(|maps| maps.insert(cluster.to_owned(), map));
                    last_error = None;
                    break;
                }
                Ok(None) => {
                    last_error = Some(CallError::Cluster(format!(
                        "unexpected CLUSTER SLOTS answer from {}:{}",
                        node.0, node.1
                    )))
                }
                Err(error) => last_error = Some(error),
            }
        }
        if let Some(error) = last_error {
            // Keep the map we have, and wait the interval before asking again.
            let kept = SLOT_MAPS
                .with_borrow_mut(|maps| maps.get_mut(cluster).map(|map| map.read_at = Instant::now()).is_some());
            if !kept {
                return Err(error);
            }
        }
    }
    SLOT_MAPS
        .with_borrow(|maps| maps.get(cluster).and_then(|map| map.owner(slot).cloned()))
        .ok_or_else(|| CallError::Cluster(format!("no reachable node knows the master of slot {slot}")))
}

/// Every master of the cluster, from its slot map (read first when missing
/// or stale), with the connection settings of the seeds: what a listing scans.
pub fn masters(
    cluster: &str,
    seeds: &[ConnectionInfo],
    timeout: Duration,
    deadline: Instant,
) -> Result<Vec<ConnectionInfo>, CallError> {
    owner(cluster, seeds, timeout, deadline, 0)?;
    let mut nodes: Vec<Node> = SLOT_MAPS.with_borrow(|maps| {
        maps.get(cluster)
            .map(|map| map.ranges.iter().map(|(_, _, node)| node.clone()).collect())
            .unwrap_or_default()
    });
    nodes.sort_unstable();
    nodes.dedup();
    Ok(nodes.iter().map(|node| node_info(&seeds[0], node)).collect())
}

/// Runs `command` on the master of `slot`, following one redirection.
pub fn run<T>(
    cluster: &str,
    seeds: &[ConnectionInfo],
    timeout: Duration,
    deadline: Instant,
    slot: u16,
    command: &impl Fn(&mut Connection) -> RedisResult<T>,
) -> Result<T, CallError> {
    let node = owner(cluster, seeds, timeout, deadline, slot)?;
    let result = on_node(&node_info(&seeds[0], &node), timeout, deadline, command);
    let redirection = match &result {
        Err(CallError::Redis(error)) => error.redirect_node().and_then(|(address, _)| {
            let (host, port) = address.rsplit_once(':')?;
            let asking = error.kind() == ErrorKind::Server(ServerErrorKind::Ask);
            Some(((host.to_owned(), port.parse().ok()?), asking))
        }),
        _ => None,
    };
    match (&result, redirection) {
        (_, Some((target, asking))) => {
            mark_stale(cluster);
            on_node(
                &node_info(&seeds[0], &target),
                timeout,
                deadline,
                &|connection: &mut Connection| {
                    if asking {
                        redis::cmd("ASKING").query::<()>(connection)?;
                    }
                    command(connection)
                },
            )
        }
        (Err(CallError::BackingOff { .. }), _) => {
            mark_stale(cluster);
            result
        }
        (Err(CallError::Redis(error)), _) if error.is_io_error() => {
            mark_stale(cluster);
            result
        }
        _ => result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_map_is_read_from_cluster_slots() {
        let node = |host: &str, port| {
            Value::Array(vec![
                Value::BulkString(host.as_bytes().to_vec()),
                Value::Int(port),
                Value::BulkString(b"id".to_vec()),
            ])
        };
        let answer = Value::Array(vec![
            Value::Array(vec![Value::Int(0), Value::Int(5460), node("10.0.0.1", 7000)]),
            Value::Array(vec![
                Value::Int(5461),
                Value::Int(16383),
                node("", 7001),
                node("10.0.0.3", 7002),
            ]),
        ]);
        let asked = ("10.0.0.2".to_owned(), 7001);
        let map = SlotMap {
            ranges: parse_slots(&answer, &asked).unwrap(),
            stale: false,
            read_at: Instant::now(),
        };
        assert_eq!(map.owner(0), Some(&("10.0.0.1".to_owned(), 7000)));
        assert_eq!(map.owner(5461), Some(&asked), "an empty address is the node asked");
        assert_eq!(map.owner(16383), Some(&asked), "the master, not its replica");
        assert!(parse_slots(&Value::Int(1), &asked).is_none());
    }
}
