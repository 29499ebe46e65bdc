//! Where a request goes: the `host:port` of a URL, and the host patterns
//! of `circuit_breaker.http_hosts` and of the breakers file that pick the
//! requests to guard.

use std::fmt;

/// The host and port a request connects to: one circuit each.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    /// Lowercase, without the brackets of an IPv6 address.
    pub host: String,
    pub port: u16,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// The scheme and authority a URL starts with (`https://user@Host:443`),
/// or the whole URL when it has no path: what decides its target, as
/// bytes, found without allocating (the key of a worker's memo of
/// guarded hosts).
pub fn authority_of(url: &[u8]) -> &[u8] {
    let start = match url.iter().position(|byte| *byte == b':') {
        Some(colon) if url[colon + 1..].starts_with(b"//") => colon + 3,
        _ => 0,
    };
    let end = url[start..]
        .iter()
        .position(|byte| matches!(byte, b'/' | b'?' | b'#'))
        .map_or(url.len(), |at| start + at);
    &url[..end]
}

/// The hash of rustc's own maps (FxHash): for the short keys of per-worker
/// memos (an address, a URL's authority), a few instructions per 8 bytes
/// where SipHash takes hundreds per key; the keys come from the
/// application, not from peers.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const SEED: u64 = 0x517c_c1b7_2722_0a95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl std::hash::Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }
}

/// A map for the per-worker memos, hashed with [`FxHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

impl Target {
    /// The target of an `http://` or `https://` URL, as libcurl and PHP's
    /// http wrapper read it: a URL without a scheme is http, as libcurl
    /// takes it; any other scheme is not guarded (`None`).
    pub fn of_url(url: &[u8]) -> Option<Self> {
        let url = std::str::from_utf8(url).ok()?.trim();
        let (scheme, rest) = match url.find("://") {
            Some(at) => (url[..at].to_ascii_lowercase(), &url[at + 3..]),
            None => ("http".to_owned(), url),
        };
        let default_port = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
        // What precedes the last '@' is user information.
        let authority = &authority[authority.rfind('@').map_or(0, |at| at + 1)..];
        let (host, port) = split_host_port(authority)?;
        let port = match port {
            None | Some("") => default_port,
            Some(port) => port.parse::<u16>().ok().filter(|port| *port != 0)?,
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        // Only a host a pattern could name: nothing else from a URL (a
        // control byte, a space) ever names a circuit or reaches a log.
        if host.is_empty() || !host.bytes().all(is_host_byte) {
            return None;
        }
        Some(Self { host, port })
    }
}

/// A byte of a host that patterns name and circuits are named after:
/// letters, digits, '-', '_', '.', and ':' for an IPv6 address.
fn is_host_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b':')
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`.
fn split_host_port(authority: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let end = rest.find(']')?;
        let after = &rest[end + 1..];
        let port = match after.strip_prefix(':') {
            Some(port) => Some(port),
            None if after.is_empty() => None,
            None => return None,
        };
        return Some((&rest[..end], port));
    }
    match authority.rfind(':') {
        Some(at) => Some((&authority[..at], Some(&authority[at + 1..]))),
        None => Some((authority, None)),
    }
}

/// A host pattern: `api.stripe.com`, `opa:8181`, `*.internal`,
/// `*.internal:8443`, `[::1]:8080`. Without a port it matches every port;
/// `*.` matches any name ending with the rest (not the rest alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    /// Lowercase; for a wildcard, the suffix with its leading dot.
    host: String,
    wildcard: bool,
    port: Option<u16>,
}

/// Why a host pattern is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{pattern}' is not a host pattern: {reason} (patterns are host, host:port, *.domain or *.domain:port)")]
pub struct PatternError {
    pub pattern: String,
    pub reason: &'static str,
}

/// As written in a setting, lowercase.
impl fmt::Display for HostPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let star = if self.wildcard { "*" } else { "" };
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        match self.port {
            Some(port) => write!(f, "{star}{host}:{port}"),
            None => write!(f, "{star}{host}"),
        }
    }
}

impl HostPattern {
    pub fn parse(pattern: &str) -> Result<Self, PatternError> {
        let refuse = |reason| PatternError {
            pattern: pattern.to_owned(),
            reason,
        };
        let text = pattern.trim();
        if text.is_empty() {
            return Err(refuse("it is empty"));
        }
        if text.contains("://") || text.contains('/') {
            return Err(refuse("a pattern names a host, not a URL"));
        }
        let (host, port) = split_host_port(text).ok_or_else(|| refuse("its brackets are not closed"))?;
        let port = match port {
            None => None,
            Some(port) => Some(
                port.parse::<u16>()
                    .ok()
                    .filter(|port| *port != 0)
                    .ok_or_else(|| refuse("its port is not a number from 1 to 65535"))?,
            ),
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let (host, wildcard) = match host.strip_prefix('*') {
            Some(suffix) if suffix.starts_with('.') && suffix.len() > 1 => (suffix.to_owned(), true),
            Some(_) => return Err(refuse("a wildcard is '*.' followed by a domain")),
            None => (host, false),
        };
        let name = if wildcard { &host[1..] } else { host.as_str() };
        if name.is_empty() || name.contains('*') {
            return Err(refuse("a '*' may only open the pattern, as '*.'"));
        }
        if !name.bytes().all(is_host_byte) {
            return Err(refuse("a host holds letters, digits, '-', '_' and '.' only"));
        }
        Ok(Self { host, wildcard, port })
    }

    /// Each pattern of a comma-separated list, parsed (empty items are
    /// skipped): a setting leaves out what is wrong, a breaker refuses it.
    pub fn parse_each(list: &str) -> impl Iterator<Item = Result<Self, PatternError>> {
        list.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(Self::parse)
    }

    /// The patterns of a comma-separated list, or the first one wrong.
    pub fn parse_list(list: &str) -> Result<Vec<Self>, PatternError> {
        Self::parse_each(list).collect()
    }

    pub fn matches(&self, target: &Target) -> bool {
        if self.port.is_some_and(|port| port != target.port) {
            return false;
        }
        if self.wildcard {
            target.host.len() > self.host.len() && target.host.ends_with(&self.host)
        } else {
            target.host == self.host
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(url: &str) -> Option<String> {
        Target::of_url(url.as_bytes()).map(|target| target.to_string())
    }

    #[test]
    fn urls_give_their_host_and_port() {
        assert_eq!(
            target("https://API.Stripe.com/v1/charges").as_deref(),
            Some("api.stripe.com:443")
        );
        assert_eq!(target("http://opa:8181/v1/data?x=1").as_deref(), Some("opa:8181"));
        assert_eq!(
            target("http://user:p@ss@host.example/").as_deref(),
            Some("host.example:80")
        );
        assert_eq!(target("HTTP://[::1]:8080/x").as_deref(), Some("[::1]:8080"));
        assert_eq!(target("example.com/path").as_deref(), Some("example.com:80"));
        assert_eq!(target("http://example.com.:81").as_deref(), Some("example.com:81"));
        assert_eq!(target("http://example.com:/").as_deref(), Some("example.com:80"));
        assert_eq!(target("ftp://example.com/"), None);
        assert_eq!(target("file:///etc/passwd"), None);
        assert_eq!(target("http://example.com:99999/"), None);
        assert_eq!(target("http:///nohost"), None);
    }

    #[test]
    fn hosts_no_pattern_could_name_name_no_circuit() {
        for url in [
            "http://evil\r\nforged.example.com/",
            "http://a\x1b[31m.example.com/",
            "http://a b.example.com/",
            "http://a%0d%0a.example.com/",
            "http://\u{e9}.example.com/",
            "http://[fe80::1%25eth0]/",
        ] {
            assert_eq!(target(url), None, "{url:?}");
        }
        assert_eq!(
            target("http://a_b-c.example.com/q?a b").as_deref(),
            Some("a_b-c.example.com:80")
        );
    }

    #[test]
    fn authorities_are_the_start_of_urls() {
        assert_eq!(
            authority_of(b"https://API.x.com:8443/v1?q#f"),
            b"https://API.x.com:8443"
        );
        assert_eq!(authority_of(b"http://h?x"), b"http://h");
        assert_eq!(authority_of(b"example.com/path"), b"example.com");
        assert_eq!(authority_of(b"http://h"), b"http://h");
    }

    #[test]
    fn patterns_match_hosts_ports_and_subdomains() {
        let t = |url: &str| Target::of_url(url.as_bytes()).unwrap();
        let exact = HostPattern::parse("api.stripe.com").unwrap();
        assert!(exact.matches(&t("https://api.stripe.com/")));
        assert!(exact.matches(&t("http://api.stripe.com:8080/")));
        assert!(!exact.matches(&t("https://x.api.stripe.com/")));
        let port = HostPattern::parse("opa:8181").unwrap();
        assert!(port.matches(&t("http://opa:8181/")));
        assert!(!port.matches(&t("http://opa/")));
        let wildcard = HostPattern::parse("*.Internal:8443").unwrap();
        assert!(wildcard.matches(&t("https://a.b.internal:8443/")));
        assert!(!wildcard.matches(&t("https://internal:8443/")));
        assert!(!wildcard.matches(&t("https://a.internal/")));
        assert!(!wildcard.matches(&t("https://ainternal:8443/")));
        let v6 = HostPattern::parse("[::1]:8080").unwrap();
        assert!(v6.matches(&t("http://[::1]:8080/")));
    }

    #[test]
    fn bad_patterns_say_why() {
        for bad in [
            "",
            "http://x",
            "a*.b",
            "*",
            "*.",
            "x:0",
            "x:http",
            "[::1",
            "ex ample.com",
            "*.a*.b",
        ] {
            let error = HostPattern::parse(bad).unwrap_err();
            assert!(error.to_string().contains("is not a host pattern"), "{bad}: {error}");
        }
        assert_eq!(HostPattern::parse_list(" a.com, ,*.b:1 ").unwrap().len(), 2);
        assert!(HostPattern::parse_list("a.com, x:0").is_err());
    }
}
