//! Listing the circuits of a Redis storage: SCAN with a pattern over the
//! keys of circuits (never KEYS, which blocks the server), on every master
//! of a cluster, each key turned back into its service.

use super::keys::ServiceKeys;

/// How many keys a SCAN step looks at: a bound on the server's work per step.
pub const SCAN_COUNT: usize = 1_000;

/// Escapes the bytes a SCAN pattern would read as globbing.
fn push_literal(pattern: &mut Vec<u8>, bytes: &[u8]) {
    for &byte in bytes {
        if matches!(byte, b'*' | b'?' | b'[' | b']' | b'\\') {
            pattern.push(b'\\');
        }
        pattern.push(byte);
    }
}

/// The pattern of the keys of `prefix` whose service starts with
/// `service_prefix`: `<prefix>cb:{<encoded service prefix>*}:[sbh]*`. A
/// circuit that never changed state has counters (or, behind a
/// `FleetStorage`, host windows) but no state key.
pub fn key_pattern(prefix: &[u8], service_prefix: &[u8]) -> Vec<u8> {
    let state = ServiceKeys::new(prefix, service_prefix).state().to_vec();
    // The key of the service prefix itself, without its closing `}:s`
    // (and without the `%` that stands for an empty service).
    let mut open = &state[..state.len() - 3];
    if service_prefix.is_empty() {
        open = &open[..open.len() - 1];
    }
    let mut pattern = Vec::with_capacity(state.len() + 8);
    push_literal(&mut pattern, open);
    pattern.extend_from_slice(b"*}:[sbh]*");
    pattern
}

/// The service of a state, bucket counter or host window key of `prefix`,
/// when it is one.
pub fn service_of(key: &[u8], prefix: &[u8]) -> Option<Vec<u8>> {
    let tagged = key.strip_prefix(prefix)?.strip_prefix(b"cb:{")?;
    // An encoded service holds no brace: the first one closes the tag.
    let close = tagged.iter().position(|&byte| byte == b'}')?;
    let (encoded, suffix) = tagged.split_at(close);
    if suffix != b"}:s" && !suffix.starts_with(b"}:b:") && !suffix.starts_with(b"}:h:") {
        return None;
    }
    if encoded == b"%" {
        return Some(Vec::new());
    }
    let mut service = Vec::with_capacity(encoded.len());
    let mut bytes = encoded.iter();
    while let Some(&byte) = bytes.next() {
        if byte == b'%' {
            let hex = [*bytes.next()?, *bytes.next()?];
            service.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
        } else {
            service.push(byte);
        }
    }
    // Only names the key builder makes: a stray key is not a circuit.
    let state = ServiceKeys::new(prefix, &service).state().to_vec();
    let base = &state[..state.len() - 1];
    key[..key.len() - suffix.len() + 2].eq(base).then_some(service)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_only_state_keys_of_the_prefix() {
        assert_eq!(key_pattern(b"shop:", b""), b"shop:cb:{*}:[sbh]*");
        assert_eq!(key_pattern(b"shop:", b"pay"), b"shop:cb:{pay*}:[sbh]*");
        assert_eq!(key_pattern(b"a*b?", b"x[1]"), b"a\\*b\\?cb:{x\\[1\\]*}:[sbh]*");
        assert_eq!(key_pattern(b"", b"a{b"), b"cb:{a%7Bb*}:[sbh]*");
    }

    #[test]
    fn keys_give_back_their_service() {
        for service in [&b"payments"[..], b"with {braces} and %", b"\xff\x00 binary", b""] {
            let key = ServiceKeys::new(b"shop:", service).state().to_vec();
            assert_eq!(service_of(&key, b"shop:").as_deref(), Some(service), "{service:?}");
        }
        let counter = ServiceKeys::new(b"shop:", b"payments").counter(1203, 7, 1);
        assert_eq!(service_of(&counter, b"shop:").as_deref(), Some(&b"payments"[..]));
        assert_eq!(service_of(b"shop:cb:{payments}:x", b"shop:"), None);
        assert_eq!(service_of(b"shop:cb:{a%ZZ}:s", b"shop:"), None);
        assert_eq!(
            service_of(b"shop:cb:{a%7b}:s", b"shop:"),
            None,
            "not a key the builder makes"
        );
        assert_eq!(service_of(b"other:cb:{a}:s", b"shop:"), None);
    }
}
