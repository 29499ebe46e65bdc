//! Redis connections for the shared pool of `storage::persistent`: a
//! standalone connection with read, write and connect timeouts, or a
//! cluster connection.

use std::time::Duration;

use redis::cluster::{ClusterClient, ClusterConnection};
use redis::{Client, Connection, ConnectionInfo, ConnectionLike, RedisError, RedisResult};

use crate::storage::persistent::{Reconnect, Slots};

/// Where the storage connects.
#[derive(Clone)]
pub enum Target {
    Standalone(Box<ConnectionInfo>),
    Cluster(Vec<ConnectionInfo>),
}

pub enum Open {
    Standalone(Connection),
    Cluster(Box<ClusterConnection>),
}

impl Open {
    pub fn as_connection_like(&mut self) -> &mut dyn ConnectionLike {
        match self {
            Self::Standalone(connection) => connection,
            Self::Cluster(connection) => connection.as_mut(),
        }
    }
}

thread_local! {
    pub static CONNECTIONS: Slots<Open> = Slots::default();
}

pub struct Endpoint<'a> {
    pub target: &'a Target,
    pub timeout: Duration,
}

impl Reconnect<Open, RedisError> for Endpoint<'_> {
    fn connect(&self) -> RedisResult<Open> {
        match self.target {
            Target::Standalone(info) => {
                let connection = Client::open((**info).clone())?.get_connection_with_timeout(self.timeout)?;
                connection.set_read_timeout(Some(self.timeout))?;
                connection.set_write_timeout(Some(self.timeout))?;
                Ok(Open::Standalone(connection))
            }
            Target::Cluster(nodes) => {
                let client = ClusterClient::builder(nodes.clone())
                    .connection_timeout(self.timeout)
                    .response_timeout(self.timeout)
                    .retries(0)
                    .build()?;
                Ok(Open::Cluster(Box::new(client.get_connection()?)))
            }
        }
    }

    fn check(&self, connection: &mut Open) -> bool {
        connection.as_connection_like().check_connection()
    }

    fn breaks_connection(&self, error: &RedisError) -> bool {
        // A script error is the server answering: the connection is fine.
        error.is_io_error() || error.is_timeout() || error.is_connection_dropped() || error.is_connection_refusal()
    }
}
