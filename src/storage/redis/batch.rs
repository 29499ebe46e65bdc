//! Commands sent together in one round trip, whose replies are kept one by
//! one: on Redis Cluster a command redirected while its slot migrates is
//! sent again alone, where its key now is (`cluster::batch`), so that each
//! command runs exactly once, on the node that holds its key.

use redis::{Cmd, RedisResult, ToRedisArgs, Value};

#[derive(Default)]
pub struct Batch {
    commands: Vec<Cmd>,
    /// Whether the reply of each command is returned (`ignore` drops it).
    kept: Vec<bool>,
}

impl Batch {
    /// Adds a command, whose arguments follow.
    pub fn cmd(&mut self, name: &str) -> &mut Self {
        self.commands.push(redis::cmd(name));
        self.kept.push(true);
        self
    }

    pub fn arg<T: ToRedisArgs>(&mut self, arg: T) -> &mut Self {
        if let Some(command) = self.commands.last_mut() {
            command.arg(arg);
        }
        self
    }

    /// The reply of the last command added is not returned.
    pub fn ignore(&mut self) -> &mut Self {
        if let Some(kept) = self.kept.last_mut() {
            *kept = false;
        }
        self
    }

    pub fn commands(&self) -> &[Cmd] {
        &self.commands
    }

    /// The replies of the commands not ignored, or the first error reply.
    pub fn replies(&self, replies: Vec<Value>) -> RedisResult<Vec<Value>> {
        let mut kept = Vec::with_capacity(replies.len());
        for (reply, keep) in replies.into_iter().zip(&self.kept) {
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
