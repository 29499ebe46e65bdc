//! Our own Redis connection (TCP, TLS or Unix socket) for the shared pool of
//! `storage::net::pool`. redis-rs packs commands, parses replies and runs
//! scripts through `ConnectionLike`; the socket is ours
//! (`net::deadline::DeadlineSocket`), for three things redis-rs's
//! connection cannot do (and replies are read by our own reader,
//! `resp.rs`):
//!
//! - every read and write ends by the deadline of the PHP-level call, so
//!   all the round trips of one call share one timeout: before each system
//!   call the socket waits with `ppoll` for the time left (to the
//!   microsecond; a socket timeout would be rounded up to the kernel's
//!   tick), and a write is also bounded by a socket timeout of that time;
//! - an idle connection can be checked without a round trip: a peek at
//!   the socket tells whether the server closed it (restart, idle timeout),
//!   so the pool reconnects before sending anything, and a command is
//!   never sent twice;
//! - the replies to one request are read through a bound
//!   ([`REPLY_LIMIT`]): a value no breaker writes (a state of 64 MB) or a
//!   server sending an endless bulk costs at most that much memory and the
//!   time to read it, never the whole of it.

use std::io::{self, Read, Write};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use redis::{
    ConnectionAddr, ConnectionInfo, ConnectionLike, ErrorKind, RedisError, RedisResult, ServerErrorKind, Value,
};
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

use super::resp::Reader;
use crate::storage::net::connect_unix;
use crate::storage::net::deadline::{DeadlineSocket, Transport, connect_tcp};
use crate::storage::net::pool::{Reconnect, Slots};

thread_local! {
    pub static CONNECTIONS: Slots<Connection> = Slots::default();
}

/// The most bytes the replies to one request may take. What a breaker
/// reads is small: a state is under 100 bytes, a counter at most 16
/// digits, a record's replies a few hundred bytes, a fleet sync's windows
/// (at most 512 hosts of a few dozen bytes each) or a page of `SCAN`
/// (1 000 keys) some tens of KiB. A megabyte is far above all of them, and
/// bounds what one call adds to a worker's memory (the parser's buffer and
/// the value: about twice that) and the time it spends reading.
pub const REPLY_LIMIT: usize = 1 << 20;

/// The bound of a `CLUSTER SLOTS` reply: a cluster whose slots are cut into
/// many ranges lists each with its nodes (16 384 ranges of a master and two
/// replicas are about 4 MB).
pub const SLOT_MAP_REPLY_LIMIT: usize = 16 << 20;

/// The description of the error of a reply longer than its bound.
pub const REPLY_TOO_LARGE: &str = "reply too large";

enum Stream {
    Plain(DeadlineSocket),
    Tls(Box<StreamOwned<ClientConnection, DeadlineSocket>>),
}

impl Stream {
    fn socket_mut(&mut self) -> &mut DeadlineSocket {
        match self {
            Self::Plain(socket) => socket,
            Self::Tls(tls) => &mut tls.sock,
        }
    }

    fn socket(&self) -> &DeadlineSocket {
        match self {
            Self::Plain(socket) => socket,
            Self::Tls(tls) => &tls.sock,
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Plain(socket) => socket.read(buffer),
            Self::Tls(tls) => tls.read(buffer),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(socket) => socket.write(bytes),
            Self::Tls(tls) => tls.write(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(socket) => socket.flush(),
            Self::Tls(tls) => tls.flush(),
        }
    }
}

/// The certificate authorities of the system (or `SSL_CERT_FILE`), read
/// once per process.
fn tls_config() -> RedisResult<Arc<ClientConfig>> {
    static CONFIG: OnceLock<Result<Arc<ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut roots = RootCertStore::empty();
            let found = rustls_native_certs::load_native_certs();
            if let Some(error) = found.errors.first()
                && found.certs.is_empty()
            {
                return Err(format!("no certificate authority could be read: {error}"));
            }
            for certificate in found.certs {
                // A certificate rustls cannot use is skipped, as by a browser.
                let _ = roots.add(certificate);
            }
            Ok(Arc::new(
                ClientConfig::builder()
                    .with_root_certificates(roots)
                    .with_no_client_auth(),
            ))
        })
        .clone()
        .map_err(|error| RedisError::from((ErrorKind::InvalidClientConfig, "TLS", error)))
}

/// One connection to one Redis server, speaking RESP2.
pub struct Connection {
    /// The stream and the bytes read from it (`resp.rs` parses them).
    reader: Reader<Stream>,
    db: i64,
    /// The bound of the replies to the current request, and what is left of it.
    reply_limit: usize,
    reply_room: usize,
    /// Left in the middle of a reply (one longer than its bound): the pool
    /// opens a new connection at its next use, without a backoff, as for
    /// one the server closed.
    unusable: bool,
    /// Whether each command is sent after `ASKING`: the node imports the
    /// slot of the call (Redis Cluster answered `ASK`), and serves a
    /// command of it only right after an `ASKING`.
    asking: bool,
}

impl Connection {
    /// Connects, handshakes (TLS), authenticates and selects the database,
    /// all by `deadline`.
    pub fn open(info: &ConnectionInfo, deadline: Instant) -> RedisResult<Self> {
        let stream = match info.addr() {
            ConnectionAddr::Tcp(host, port) => Stream::Plain(DeadlineSocket::new(
                Transport::Tcp(connect_tcp(host, *port, deadline)?),
                deadline,
            )),
            ConnectionAddr::TcpTls { host, port, .. } => {
                let socket = DeadlineSocket::new(Transport::Tcp(connect_tcp(host, *port, deadline)?), deadline);
                let name = ServerName::try_from(host.clone())
                    .map_err(|error| RedisError::from((ErrorKind::InvalidClientConfig, "TLS", error.to_string())))?;
                let session = ClientConnection::new(tls_config()?, name)
                    .map_err(|error| RedisError::from((ErrorKind::InvalidClientConfig, "TLS", error.to_string())))?;
                let mut tls = Box::new(StreamOwned::new(session, socket));
                while tls.conn.is_handshaking() {
                    tls.conn.complete_io(&mut tls.sock)?;
                }
                Stream::Tls(tls)
            }
            ConnectionAddr::Unix(path) => {
                Stream::Plain(DeadlineSocket::new(Transport::Unix(connect_unix(path)?), deadline))
            }
            _ => {
                return Err(RedisError::from((
                    ErrorKind::InvalidClientConfig,
                    "unsupported Redis address",
                )));
            }
        };
        let settings = info.redis_settings();
        let mut connection = Self {
            reader: Reader::new(stream),
            db: settings.db(),
            reply_limit: REPLY_LIMIT,
            reply_room: REPLY_LIMIT,
            unusable: false,
            asking: false,
        };
        if let Some(password) = settings.password() {
            let mut auth = redis::cmd("AUTH");
            if let Some(username) = settings.username() {
                auth.arg(username);
            }
            auth.arg(password);
            auth.query::<()>(&mut connection).map_err(|error| match error.kind() {
                ErrorKind::Server(_) | ErrorKind::Extension => RedisError::from((
                    ErrorKind::AuthenticationFailed,
                    "authentication failed",
                    error.to_string(),
                )),
                _ => error,
            })?;
        }
        if connection.db != 0 {
            redis::cmd("SELECT").arg(connection.db).query::<()>(&mut connection)?;
        }
        Ok(connection)
    }

    /// Every later read and write ends by `deadline`, the replies to each
    /// request take at most [`REPLY_LIMIT`] bytes, and no `ASKING` is sent.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.reader.get_mut().socket_mut().set_deadline(deadline);
        self.reply_limit = REPLY_LIMIT;
        self.asking = false;
    }

    /// The replies to each later request of the call take at most `limit` bytes.
    pub fn limit_replies(&mut self, limit: usize) {
        self.reply_limit = limit;
    }

    /// Whether every later command is sent after `ASKING`.
    pub fn set_asking(&mut self, asking: bool) {
        self.asking = asking;
    }

    /// Sends `packed` (`count` commands) and returns their replies as they
    /// came, error replies included (`Value::ServerError`): a batch's
    /// replies are looked at one by one (`batch.rs`).
    pub fn exchange(&mut self, packed: &[u8], count: usize) -> RedisResult<Vec<Value>> {
        self.send(packed)?;
        let mut replies = Vec::with_capacity(count);
        for _ in 0..count {
            replies.push(self.receive_raw()?);
        }
        Ok(replies)
    }

    fn send(&mut self, packed: &[u8]) -> RedisResult<()> {
        self.reply_room = self.reply_limit;
        let stream = self.reader.get_mut();
        stream.write_all(packed)?;
        stream.flush()?;
        Ok(())
    }

    /// The next reply, read through the request's bound: a reply longer
    /// than it fails, unread, and leaves the connection to be replaced.
    fn receive(&mut self) -> RedisResult<Value> {
        self.receive_raw()?.extract_error()
    }

    fn receive_raw(&mut self) -> RedisResult<Value> {
        match self.reader.read_value(&mut self.reply_room) {
            Err(_) if self.reply_room == 0 => {
                self.unusable = true;
                Err(RedisError::from((
                    ErrorKind::Client,
                    REPLY_TOO_LARGE,
                    format!("the replies took more than {} bytes", self.reply_limit),
                )))
            }
            value => value,
        }
    }
}

impl ConnectionLike for Connection {
    fn req_packed_command(&mut self, packed: &[u8]) -> RedisResult<Value> {
        if self.asking {
            let mut request = redis::cmd("ASKING").get_packed_command();
            request.extend_from_slice(packed);
            self.send(&request)?;
            // An error reply to ASKING would also be the command's.
            self.receive_raw()?;
        } else {
            self.send(packed)?;
        }
        self.receive()
    }

    fn req_packed_commands(&mut self, packed: &[u8], offset: usize, count: usize) -> RedisResult<Vec<Value>> {
        if self.asking {
            // The commands of a pipeline are packed together: a redirected
            // batch goes through `exchange`, one ASKING per command.
            return Err(RedisError::from((
                ErrorKind::Client,
                "a pipeline cannot follow ASK: send a batch",
            )));
        }
        self.send(packed)?;
        let mut values = Vec::with_capacity(count);
        // Every reply is read, even after an error one, so that the next
        // command reads its own reply.
        let mut first_error = None;
        for index in 0..offset + count {
            match self.receive() {
                Ok(value) if index >= offset => values.push(value),
                Ok(_) => {}
                Err(error) if error.is_io_error() || error.kind() == ErrorKind::Parse || self.unusable => {
                    return Err(error);
                }
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        match first_error {
            Some(error) => Err(error),
            None => Ok(values),
        }
    }

    fn get_db(&self) -> i64 {
        self.db
    }

    fn check_connection(&mut self) -> bool {
        redis::cmd("PING").query::<String>(self).is_ok()
    }

    fn is_open(&self) -> bool {
        !self.closed_by_peer()
    }
}

impl Connection {
    /// Whether the server closed this idle connection, or left anything on
    /// it, or a reply was left unread (`unusable`): an idle connection has nothing to read, so any byte (a TLS
    /// close_notify included) means it is not usable.
    pub fn closed_by_peer(&self) -> bool {
        self.unusable || self.reader.has_buffered() || self.reader.get_ref().socket().closed_by_peer()
    }
}

/// The Redis server of one pool entry, and the deadline of the current call.
pub struct Endpoint<'a> {
    pub info: &'a ConnectionInfo,
    pub deadline: Instant,
    /// Whether a new connection must find a master (`ROLE`): a node named
    /// by Sentinel may have been demoted since.
    pub must_be_master: bool,
}

/// Fails unless the server says it is a master: a replica would serve
/// reads of an old state and refuse writes.
fn check_master(connection: &mut Connection, info: &ConnectionInfo) -> RedisResult<()> {
    let role: Value = redis::cmd("ROLE").query(connection)?;
    let name = match &role {
        Value::Array(parts) => match parts.first() {
            Some(Value::BulkString(bytes)) => String::from_utf8_lossy(bytes).into_owned(),
            Some(Value::SimpleString(text)) => text.clone(),
            _ => String::new(),
        },
        _ => String::new(),
    };
    if name == "master" {
        return Ok(());
    }
    Err(RedisError::from((
        ErrorKind::Server(ServerErrorKind::ReadOnly),
        "not a master",
        format!("{:?} answers ROLE with '{name}'", info.addr()),
    )))
}

impl Reconnect<Connection, RedisError> for Endpoint<'_> {
    fn connect(&self) -> RedisResult<Connection> {
        let mut connection = Connection::open(self.info, self.deadline)?;
        if self.must_be_master {
            check_master(&mut connection, self.info)?;
        }
        Ok(connection)
    }

    fn closed_by_peer(&self, connection: &Connection) -> bool {
        connection.closed_by_peer()
    }

    fn breaks_connection(&self, error: &RedisError) -> bool {
        // An error reply is the server answering: the connection is fine.
        // A timeout or a malformed reply leaves it at an unknown point.
        error.is_io_error() || error.kind() == ErrorKind::Parse
    }
}
