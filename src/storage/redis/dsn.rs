//! Why a DSN is refused, in the words of the one who wrote it: which part
//! is wrong and what is accepted there. redis-rs says only that the URL
//! "did not parse", with its error kind (`InvalidClientConfig`), which
//! means nothing to a PHP user.

use redis::RedisError;

/// The schemes redis-rs connects with, TCP and unix socket.
const TCP_SCHEMES: [&str; 4] = ["redis", "rediss", "valkey", "valkeys"];
const UNIX_SCHEMES: [&str; 3] = ["unix", "redis+unix", "valkey+unix"];

/// What is wrong with `dsn`, which redis-rs refused with `error`.
pub fn why_refused(dsn: &str, error: &RedisError) -> String {
    if let Some(why) = why_not_parsed(dsn) {
        return why;
    }
    // The error's own description, without its kind.
    let description = error.to_string();
    let description = description.split(" - ").next().unwrap_or_default();
    match description {
        "Missing hostname" => "has no host: redis://host[:port][/db]".into(),
        "Invalid database number" => "has a database that is not a number from 0 (the /db after the host, or ?db=)".into(),
        "Missing path" => "has no socket path: unix:///path/to/redis.sock".into(),
        "Cannot connect to a wildcard address (0.0.0.0 or ::)" => {
            "names 0.0.0.0 or ::, addresses a server listens on, not one to connect to: give the server's own".into()
        }
        "only #insecure is supported as URL fragment" => {
            "ends with a '#' fragment, which means nothing here (and #insecure, which turns certificate checks off, is refused)".into()
        }
        "Invalid protocol version" => "has a ?protocol= other than 2, resp2, 3 or resp3".into(),
        "URL provided is not a redis URL" | "Redis URL did not parse" => {
            "is not a DSN: redis://[[user:]password@]host[:port][/db], rediss://... for TLS, unix:///path/to/redis.sock"
                .into()
        }
        other => other.to_owned(),
    }
}

/// The faults found by reading the DSN as a URL, where redis-rs says only
/// "did not parse".
fn why_not_parsed(dsn: &str) -> Option<String> {
    let Some((scheme, rest)) = dsn.split_once("://") else {
        return Some(format!(
            "has no scheme: write redis://{}",
            if dsn.is_empty() { "host:6379" } else { dsn }
        ));
    };
    if UNIX_SCHEMES.contains(&scheme) {
        return None;
    }
    if !TCP_SCHEMES.contains(&scheme) {
        return Some(format!(
            "has the scheme '{scheme}://', not one of redis://, rediss:// (TLS), unix:// or redis-sentinel://"
        ));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let address = authority.rsplit_once('@').map_or(authority, |(_, address)| address);
    let port = match address.strip_prefix('[') {
        Some(bracketed) => match bracketed.split_once(']') {
            Some((_, after)) => after.strip_prefix(':'),
            None => return Some("has no ']' closing its IPv6 address: redis://[::1]:6379".into()),
        },
        None => address.split_once(':').map(|(_, port)| port),
    };
    let host = address.strip_suffix(port.unwrap_or_default()).unwrap_or(address);
    if host.trim_end_matches(':').is_empty() || host == "[]" {
        return Some("has no host: redis://host[:port][/db]".into());
    }
    match port {
        Some(port) if port.parse::<u16>().is_err() => Some(format!(
            "has the port '{port}', not a number from 1 to 65535 (6379 when left out)"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redis::IntoConnectionInfo;

    fn why(dsn: &str) -> String {
        match dsn.into_connection_info() {
            Ok(_) => "accepted".into(),
            Err(error) => why_refused(dsn, &error),
        }
    }

    #[test]
    fn each_fault_is_named_without_the_error_kind() {
        for (dsn, expected) in [
            ("localhost", "has no scheme: write redis://localhost"),
            ("foo://h", "has the scheme 'foo://', not one of"),
            ("http://h:6379", "has the scheme 'http://'"),
            ("redis://", "has no host"),
            ("redis://:6379", "has no host"),
            ("redis://:secret@:6379", "has no host"),
            ("redis://h:abc", "has the port 'abc', not a number from 1 to 65535"),
            ("redis://h:99999", "has the port '99999'"),
            ("redis://[::1", "has no ']'"),
            ("redis://h:6379/x", "has a database that is not a number"),
            ("unix://", "has no socket path"),
            ("rediss://h#fragment", "ends with a '#' fragment"),
            ("redis://h/0?protocol=9", "has a ?protocol= other than"),
        ] {
            let why = why(dsn);
            assert!(why.starts_with(expected), "{dsn}: {why}");
            assert!(!why.contains("InvalidClientConfig"), "{dsn}: {why}");
        }
    }

    #[test]
    fn valid_dsns_pass_the_reading() {
        for dsn in [
            "redis://h",
            "redis://h:6379/2",
            "rediss://:pw@h:6380",
            "redis://user:pw@[::1]:6379",
            "redis://[::1]",
            "unix:///run/redis.sock",
        ] {
            assert_eq!(why_not_parsed(dsn), None, "{dsn}");
            assert_eq!(why(dsn), "accepted", "{dsn}");
        }
    }
}
