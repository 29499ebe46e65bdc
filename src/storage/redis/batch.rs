//! Commands sent together in one round trip, whose replies are kept one by
//! one: on Redis Cluster a command redirected while its slot migrates is
//! sent again alone, where its key now is (`cluster::batch`), so that each
//! command runs exactly once, on the node that holds its key.

use std::io;

use redis::{Cmd, RedisResult, RedisWrite, ToRedisArgs, Value};

use super::keys::push_decimal;

/// The arguments of every command, one after the other, each packed as
/// Redis reads it (`$<length>\r\n<bytes>\r\n`).
#[derive(Default)]
struct Args {
    packed: Vec<u8>,
    /// Where each argument starts in `packed` (its `$`), and where its
    /// bytes start and end.
    spans: Vec<(usize, usize, usize)>,
    /// An argument being written (`writer_for_next_arg`, `arg_with`).
    scratch: Vec<u8>,
}

impl Args {
    fn get(&self, index: usize) -> &[u8] {
        let (_, start, end) = self.spans[index];
        &self.packed[start..end]
    }
}

impl RedisWrite for Args {
    fn write_arg(&mut self, arg: &[u8]) {
        let header = self.packed.len();
        self.packed.push(b'$');
        push_decimal(&mut self.packed, arg.len() as u64);
        self.packed.extend_from_slice(b"\r\n");
        let start = self.packed.len();
        self.packed.extend_from_slice(arg);
        self.spans.push((header, start, self.packed.len()));
        self.packed.extend_from_slice(b"\r\n");
    }

    fn writer_for_next_arg(&mut self) -> impl io::Write + '_ {
        self.scratch.clear();
        NextArg(self)
    }
}

/// Writes one argument into the scratch, added when dropped.
struct NextArg<'a>(&'a mut Args);

impl io::Write for NextArg<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.scratch.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for NextArg<'_> {
    fn drop(&mut self) {
        let arg = std::mem::take(&mut self.0.scratch);
        self.0.write_arg(&arg);
        self.0.scratch = arg;
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
                packed: Vec::with_capacity(1024),
                spans: Vec::with_capacity(32),
                scratch: Vec::with_capacity(128),
            },
            commands: Vec::with_capacity(8),
        }
    }
}

impl Batch {
    /// Adds a command, whose arguments follow.
    pub fn cmd(&mut self, name: &str) -> &mut Self {
        self.commands.push((self.args.spans.len(), true));
        self.args.write_arg(name.as_bytes());
        self
    }

    pub fn arg<T: ToRedisArgs>(&mut self, arg: T) -> &mut Self {
        if !self.commands.is_empty() {
            arg.write_redis_args(&mut self.args);
        }
        self
    }

    /// An argument written by `write` (a key built in place, with no
    /// allocation of its own).
    pub fn arg_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) -> &mut Self {
        if !self.commands.is_empty() {
            let mut arg = std::mem::take(&mut self.args.scratch);
            arg.clear();
            write(&mut arg);
            self.args.write_arg(&arg);
            self.args.scratch = arg;
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

    /// Where the arguments of command `index` are in `args.spans`.
    fn span(&self, index: usize) -> std::ops::Range<usize> {
        let first = self.commands[index].0;
        let end = self
            .commands
            .get(index + 1)
            .map_or(self.args.spans.len(), |(next, _)| *next);
        first..end
    }

    /// The arguments of command `index`, its name first.
    fn arguments(&self, index: usize) -> impl Iterator<Item = &[u8]> {
        self.span(index).map(|arg| self.args.get(arg))
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

    /// The commands packed as one request (RESP arrays of bulk strings):
    /// each one's count of arguments, then its arguments as packed.
    pub fn packed(&self) -> Vec<u8> {
        let mut packed = Vec::with_capacity(self.args.packed.len() + 8 * self.len());
        for index in 0..self.len() {
            let span = self.span(index);
            packed.push(b'*');
            push_decimal(&mut packed, span.len() as u64);
            packed.extend_from_slice(b"\r\n");
            if let (Some(first), Some(last)) = (self.args.spans.get(span.start), span.end.checked_sub(1)) {
                let end = self.args.spans[last].2 + 2;
                packed.extend_from_slice(&self.args.packed[first.0..end]);
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

/// One command of `args` packed as Redis reads it, without a `Cmd`.
pub fn pack(args: &[&[u8]]) -> Vec<u8> {
    let mut packed = Vec::with_capacity(16 + args.iter().map(|arg| arg.len() + 16).sum::<usize>());
    packed.push(b'*');
    push_decimal(&mut packed, args.len() as u64);
    packed.extend_from_slice(b"\r\n");
    for arg in args {
        packed.push(b'$');
        push_decimal(&mut packed, arg.len() as u64);
        packed.extend_from_slice(b"\r\n");
        packed.extend_from_slice(arg);
        packed.extend_from_slice(b"\r\n");
    }
    packed
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
        batch
            .cmd("GET")
            .arg_with(|key| key.extend_from_slice(b"built in place"));
        batch.cmd("PING");
        let commands = batch.commands();
        assert_eq!(commands.len(), 7);
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
            pack(&[b"HGET", b"k\r\n", b""]),
            redis::cmd("HGET").arg("k\r\n").arg("").get_packed_command()
        );
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
