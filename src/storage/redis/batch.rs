//! Commands sent together in one round trip, whose replies are kept one by
//! one: on Redis Cluster a command redirected while its slot migrates is
//! sent again alone, where its key now is (`cluster::batch`), so that each
//! command runs exactly once, on the node that holds its key.

use std::io;

use redis::{Cmd, RedisResult, RedisWrite, ToRedisArgs, Value};

use super::keys::push_decimal;

/// The arguments of every command, one after the other.
#[derive(Default)]
struct Args {
    bytes: Vec<u8>,
    /// Where each argument starts in `bytes`; it ends where the next starts.
    starts: Vec<usize>,
}

impl Args {
    fn get(&self, index: usize) -> &[u8] {
        let end = self.starts.get(index + 1).copied().unwrap_or(self.bytes.len());
        &self.bytes[self.starts[index]..end]
    }
}

impl RedisWrite for Args {
    fn write_arg(&mut self, arg: &[u8]) {
        self.starts.push(self.bytes.len());
        self.bytes.extend_from_slice(arg);
    }

    fn writer_for_next_arg(&mut self) -> impl io::Write + '_ {
        self.starts.push(self.bytes.len());
        &mut self.bytes
    }
}

/// Commands written once, as their arguments, and packed as one request
/// without a `Cmd` each (a record sends up to eight at every call).
pub struct Batch {
    args: Args,
    /// Each command's first argument (its name), and whether its reply is
    /// returned (`ignore` drops it).
    commands: Vec<(usize, bool)>,
}

impl Default for Batch {
    fn default() -> Self {
        Self {
            args: Args {
                bytes: Vec::with_capacity(1024),
                starts: Vec::with_capacity(32),
            },
            commands: Vec::with_capacity(8),
        }
    }
}

impl Batch {
    /// Adds a command, whose arguments follow.
    pub fn cmd(&mut self, name: &str) -> &mut Self {
        self.commands.push((self.args.starts.len(), true));
        self.args.write_arg(name.as_bytes());
        self
    }

    pub fn arg<T: ToRedisArgs>(&mut self, arg: T) -> &mut Self {
        if !self.commands.is_empty() {
            arg.write_redis_args(&mut self.args);
        }
        self
    }

    /// The reply of the last command added is not returned.
    pub fn ignore(&mut self) -> &mut Self {
        if let Some((_, kept)) = self.commands.last_mut() {
            *kept = false;
        }
        self
    }

    /// How many commands it holds.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// The arguments of command `index`, its name first.
    fn arguments(&self, index: usize) -> impl Iterator<Item = &[u8]> {
        let first = self.commands[index].0;
        let end = self
            .commands
            .get(index + 1)
            .map_or(self.args.starts.len(), |(next, _)| *next);
        (first..end).map(|arg| self.args.get(arg))
    }

    /// The commands, each a `Cmd` (Redis Cluster redirects them one by one).
    pub fn commands(&self) -> Vec<Cmd> {
        (0..self.len())
            .map(|index| {
                let mut arguments = self.arguments(index);
                let mut command = redis::cmd(&String::from_utf8_lossy(arguments.next().unwrap_or_default()));
                for argument in arguments {
                    command.arg(argument);
                }
                command
            })
            .collect()
    }

    /// The commands packed as one request (RESP arrays of bulk strings).
    pub fn packed(&self) -> Vec<u8> {
        let mut packed = Vec::with_capacity(self.args.bytes.len() + 16 * self.args.starts.len());
        for index in 0..self.len() {
            packed.push(b'*');
            push_decimal(&mut packed, self.arguments(index).count() as u64);
            packed.extend_from_slice(b"\r\n");
            for argument in self.arguments(index) {
                packed.push(b'$');
                push_decimal(&mut packed, argument.len() as u64);
                packed.extend_from_slice(b"\r\n");
                packed.extend_from_slice(argument);
                packed.extend_from_slice(b"\r\n");
            }
        }
        packed
    }

    /// The replies of the commands not ignored, or the first error reply.
    pub fn replies(&self, replies: Vec<Value>) -> RedisResult<Vec<Value>> {
        let mut kept = Vec::with_capacity(replies.len());
        for (reply, (_, keep)) in replies.into_iter().zip(&self.commands) {
            let reply = reply.extract_error()?;
            if *keep {
                kept.push(reply);
            }
        }
        Ok(kept)
    }
}

/// The commands packed as one request, each after `ASKING` when `asking`
/// (a slot being imported serves a command only right after it).
pub fn packed(commands: &[Cmd], asking: bool) -> Vec<u8> {
    let mut packed = Vec::new();
    for command in commands {
        if asking {
            redis::cmd("ASKING").write_packed_command(&mut packed);
        }
        command.write_packed_command(&mut packed);
    }
    packed
}

/// The replies of the commands of a request packed by [`packed`].
pub fn replies_of(mut replies: Vec<Value>, asking: bool) -> Vec<Value> {
    if asking {
        // The replies of the ASKINGs are every other one, first.
        replies = replies.into_iter().skip(1).step_by(2).collect();
    }
    replies
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_packs_as_redis_rs_packs_its_commands() {
        let mut batch = Batch::default();
        batch.cmd("INCR").arg(b"k:1".as_slice()).ignore();
        batch.cmd("PEXPIRE").arg("k:1").arg(60_000_u64).arg(-1_i64).ignore();
        batch.cmd("SET").arg(b"").arg(0).arg("PX").arg(5);
        batch
            .cmd("MGET")
            .arg(vec![b"a".to_vec(), b"bc".to_vec()])
            .arg(Vec::<Vec<u8>>::new());
        batch.cmd("HGET").arg("\r\n$3").arg("s");
        let commands = batch.commands();
        assert_eq!(commands.len(), 5);
        assert_eq!(batch.packed(), packed(&commands, false));
        let mut expected = redis::cmd("INCR").arg("k:1").get_packed_command();
        expected.extend(
            redis::cmd("PEXPIRE")
                .arg("k:1")
                .arg(60_000)
                .arg(-1)
                .get_packed_command(),
        );
        assert!(batch.packed().starts_with(&expected));
        assert_eq!(
            batch.replies(vec![
                Value::Int(1),
                Value::Int(1),
                Value::Okay,
                Value::Nil,
                Value::Int(2)
            ]),
            Ok(vec![Value::Okay, Value::Nil, Value::Int(2)])
        );
    }
}
