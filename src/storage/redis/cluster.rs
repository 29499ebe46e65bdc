//! Redis Cluster, routed by us: every key of a service shares one hash tag,
//! so each call talks to the one master that owns the service's slot. Each
//! master is a standalone connection of the pool, with its own backoff and
//! the call's deadline: a master that is down or paused fails only the
//! circuits whose slots it owns.
//!
//! The slot map (`CLUSTER SLOTS`) is read from a reachable node at the first
//! call, and again, at most once a second, after `MOVED` or a failure of a
//! node (a replica may have taken its slots over). While a slot migrates,
//! each command follows its key (`ASK`, `MOVED`, `TRYAGAIN`: see [`run`]
//! and [`batch`]).
//! A refresh asks first the node the call is for, then the other known
//! nodes and the seeds, skipping nodes in backoff, within the call's
//! deadline.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use redis::{Arg, Cmd, ConnectionAddr, ConnectionInfo, ErrorKind, RedisError, RedisResult, ServerErrorKind, Value};

use super::batch;
use super::connection::{CONNECTIONS, Connection, SLOT_MAP_REPLY_LIMIT};
use super::error::CallError;
use super::on_node;
use super::target::pool_key;
use crate::storage::net::pool::backing_off;

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

/// Where Redis Cluster sends a command of a slot that moves.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Redirection {
    /// `MOVED`: the slot is served by `Node` from now on.
    Moved(Node),
    /// `ASK`: the key is already on `Node`, which imports the slot and
    /// serves it to this one command after an `ASKING`.
    Ask(Node),
    /// `TRYAGAIN`: the keys of a command over several keys are on both
    /// nodes for now.
    TryAgain,
}

fn redirection(error: &RedisError) -> Option<Redirection> {
    match error.kind() {
        ErrorKind::Server(ServerErrorKind::TryAgain) => return Some(Redirection::TryAgain),
        ErrorKind::Server(ServerErrorKind::Moved | ServerErrorKind::Ask) => {}
        _ => return None,
    }
    let (address, _) = error.redirect_node()?;
    let (host, port) = address.rsplit_once(':')?;
    let node = (host.to_owned(), port.parse().ok()?);
    Some(match error.kind() {
        ErrorKind::Server(ServerErrorKind::Ask) => Redirection::Ask(node),
        _ => Redirection::Moved(node),
    })
}

fn redirection_of(reply: &Value) -> Option<Redirection> {
    match reply {
        Value::ServerError(_) => redirection(&reply.clone().extract_error().err()?),
        _ => None,
    }
}

/// How many redirections a call follows: a slot moving from one node to
/// another takes one (`ASK` or `MOVED`), and one more when it moves again
/// meanwhile.
const MAX_REDIRECTIONS: usize = 3;

/// The pause before a command answered `TRYAGAIN` is sent again, doubling
/// (`TRYAGAIN` lasts while a migration has moved some of its keys only).
const TRY_AGAIN_PAUSE: Duration = Duration::from_millis(1);

/// Runs `command` on the master of `slot`, following redirections: `MOVED`
/// (and the slot map is read again), `ASK` (every command of the closure
/// sent after `ASKING`), `TRYAGAIN` (sent again after a pause), all by the
/// deadline. A closure of several commands in a pipeline must be a batch
/// ([`batch`]), whose commands are redirected one by one.
pub fn run<T>(
    cluster: &str,
    seeds: &[ConnectionInfo],
    timeout: Duration,
    deadline: Instant,
    slot: u16,
    command: &impl Fn(&mut Connection) -> RedisResult<T>,
) -> Result<T, CallError> {
    let mut node = owner(cluster, seeds, timeout, deadline, slot)?;
    let mut asking = false;
    let mut pause = TRY_AGAIN_PAUSE;
    let mut redirections = 0;
    loop {
        let result = on_node(
            &node_info(&seeds[0], &node),
            timeout,
            deadline,
            &|connection: &mut Connection| {
                connection.set_asking(asking);
                let result = command(connection);
                connection.set_asking(false);
                result
            },
        );
        let redirected = match &result {
            Err(CallError::Redis(error)) => redirection(error),
            Err(CallError::BackingOff { .. }) => {
                mark_stale(cluster);
                None
            }
            _ => None,
        };
        if let Err(CallError::Redis(error)) = &result
            && error.is_io_error()
        {
            mark_stale(cluster);
        }
        match redirected {
            Some(_) if redirections == MAX_REDIRECTIONS => return result,
            Some(Redirection::Moved(target)) => {
                mark_stale(cluster);
                (node, asking) = (target, false);
            }
            Some(Redirection::Ask(target)) => (node, asking) = (target, true),
            Some(Redirection::TryAgain) => {
                if Instant::now() + pause >= deadline {
                    return result;
                }
                std::thread::sleep(pause);
                pause *= 2;
            }
            None => return result,
        }
        redirections += 1;
    }
}

/// Runs the commands of a batch pipelined on the master of `slot`, and
/// returns their replies as they came, error replies included. While the
/// slot migrates, the commands redirected are sent again together where
/// each key is: after `MOVED` to the new master (and the slot map is read
/// again), after `ASK` to the importing node, each after an `ASKING`; an
/// `MGET` answered `TRYAGAIN` (its keys are on both nodes for now) is sent
/// as one `GET` per key, each redirected alone. Every command thus runs
/// once, on the node holding its key: none is counted twice, none lost.
pub fn batch(
    cluster: &str,
    seeds: &[ConnectionInfo],
    timeout: Duration,
    deadline: Instant,
    slot: u16,
    commands: &[Cmd],
) -> Result<Vec<Value>, CallError> {
    let node = owner(cluster, seeds, timeout, deadline, slot)?;
    let send = |node: &Node, asking: bool, commands: &[Cmd]| {
        let packed = batch::packed(commands, asking);
        let count = commands.len() * if asking { 2 } else { 1 };
        let result = on_node(
            &node_info(&seeds[0], node),
            timeout,
            deadline,
            &|connection: &mut Connection| connection.exchange(&packed, count),
        );
        if matches!(&result, Err(CallError::BackingOff { .. }))
            || matches!(&result, Err(CallError::Redis(error)) if error.is_io_error())
        {
            mark_stale(cluster);
        }
        result.map(|replies| batch::replies_of(replies, asking))
    };
    routed(&send, &|| mark_stale(cluster), &node, false, commands, MAX_REDIRECTIONS)
}

type Send<'a> = dyn Fn(&Node, bool, &[Cmd]) -> Result<Vec<Value>, CallError> + 'a;

/// Sends `commands` to `node`, then each one redirected again, grouped by
/// where it goes, at most `redirections` times.
fn routed(
    send: &Send<'_>,
    stale: &dyn Fn(),
    node: &Node,
    asking: bool,
    commands: &[Cmd],
    redirections: usize,
) -> Result<Vec<Value>, CallError> {
    let mut replies = send(node, asking, commands)?;
    if redirections == 0 {
        return Ok(replies);
    }
    let mut groups: Vec<((Node, bool), Vec<usize>)> = Vec::new();
    for (index, reply) in replies.iter_mut().enumerate() {
        let (target, ask) = match redirection_of(reply) {
            None => continue,
            Some(Redirection::Moved(target)) => {
                stale();
                (target, false)
            }
            Some(Redirection::Ask(target)) => (target, true),
            Some(Redirection::TryAgain) => {
                if let Some(gets) = split(&commands[index]) {
                    let values = routed(send, stale, node, asking, &gets, redirections - 1)?;
                    if values.iter().all(|value| !matches!(value, Value::ServerError(_))) {
                        *reply = Value::Array(values);
                    }
                }
                continue;
            }
        };
        match groups.iter_mut().find(|(place, _)| *place == (target.clone(), ask)) {
            Some((_, indexes)) => indexes.push(index),
            None => groups.push(((target, ask), vec![index])),
        }
    }
    for ((target, ask), indexes) in groups {
        let again: Vec<Cmd> = indexes.iter().map(|&index| commands[index].clone()).collect();
        let values = routed(send, stale, &target, ask, &again, redirections - 1)?;
        for (index, value) in indexes.into_iter().zip(values) {
            replies[index] = value;
        }
    }
    Ok(replies)
}

/// An `MGET` as one `GET` per key; `None` for any other command.
fn split(command: &Cmd) -> Option<Vec<Cmd>> {
    let mut args = command.args_iter().map(|arg| match arg {
        Arg::Simple(bytes) => Some(bytes),
        _ => None,
    });
    if !args.next()??.eq_ignore_ascii_case(b"MGET") {
        return None;
    }
    args.map(|key| {
        let mut get = redis::cmd("GET");
        get.arg(key?);
        Some(get)
    })
    .collect()
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
