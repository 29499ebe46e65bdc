//! What a finished transfer counts as for its circuit: only what the
//! server or the network did (refused, reset, timed out, DNS and TLS
//! failures, a failure status) counts. What the client itself refused to
//! do (a malformed URL, a protocol it forbade, its own redirect or size
//! limit, a callback that ended the transfer) says nothing about the
//! service: it counts nothing, so that no input of a visitor can open a
//! healthy host's circuit. docs/http-guarding.md lists each class.

use super::policy::Policy;
use crate::core::counts::Outcome;

/// libcurl's codes for what the server or the network did, the only
/// errors that count as failures: the proxy's or the host's name not
/// resolved (5, 6), no connection (7), a reply that is not HTTP (8), the
/// HTTP/2 or HTTP/3 layer failing (16, 92, 95), a body cut short (18), a
/// timeout (28), TLS failing or the peer's certificate refused (35, 60,
/// 80, 83, 90, 91), an empty reply (52), sending or receiving failing
/// (55, 56), a body in an encoding it said it was not (61), QUIC failing
/// (96), a proxy's handshake failing (97). Any other code is the client's.
pub const SERVER_FAILURES: [i64; 21] = [
    5, 6, 7, 8, 16, 18, 28, 35, 52, 55, 56, 60, 61, 80, 83, 90, 91, 92, 95, 96, 97,
];

/// `CURLE_HTTP_RETURNED_ERROR`: `CURLOPT_FAILONERROR` turned a status of
/// 400 or more into an error; the status decides.
const HTTP_RETURNED_ERROR: i64 = 22;

/// The outcome of a transfer that ended with libcurl's `code` (0: done)
/// and the response `status` (0: none was received); `None` when it tells
/// nothing about the service.
pub fn of_transfer(policy: &Policy, code: i64, status: u16) -> Option<Outcome> {
    match code {
        0 => Some(of_status(policy, status)),
        HTTP_RETURNED_ERROR if status != 0 => Some(of_status(policy, status)),
        code if SERVER_FAILURES.contains(&code) => Some(Outcome::Failure),
        _ => None,
    }
}

/// The outcome of an answer with `status`: a failure when the policy names it.
pub fn of_status(policy: &Policy, status: u16) -> Outcome {
    if policy.is_failure_status(status) {
        Outcome::Failure
    } else {
        Outcome::Success
    }
}

/// The status of a status line, `HTTP/1.1 503 Service Unavailable`, read
/// as bytes: a reason phrase may hold any byte above 0x7F (RFC 9112's
/// obs-text, as localized servers send in Latin-1).
pub fn status_of_line(line: &[u8]) -> Option<u16> {
    let rest = line.strip_prefix(b"HTTP/")?;
    let mut fields = rest
        .split(|byte| byte.is_ascii_whitespace())
        .filter(|field| !field.is_empty());
    let code = fields.nth(1)?;
    if code.len() != 3 || !code.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let code = code
        .iter()
        .fold(0u16, |code, digit| code * 10 + u16::from(digit - b'0'));
    (100..=599).contains(&code).then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::policy::{Mode, Settings};

    #[test]
    fn transport_errors_and_failure_statuses_fail() {
        let policy = Settings::default().policy(Mode::Enforce).unwrap();
        assert_eq!(of_transfer(&policy, 0, 200), Some(Outcome::Success));
        assert_eq!(of_transfer(&policy, 0, 404), Some(Outcome::Success));
        assert_eq!(of_transfer(&policy, 0, 503), Some(Outcome::Failure));
        assert_eq!(of_transfer(&policy, 7, 0), Some(Outcome::Failure));
        assert_eq!(of_transfer(&policy, 28, 200), Some(Outcome::Failure));
        assert_eq!(of_transfer(&policy, 22, 404), Some(Outcome::Success));
        assert_eq!(of_transfer(&policy, 22, 502), Some(Outcome::Failure));
        for code in SERVER_FAILURES {
            assert_eq!(of_transfer(&policy, code, 0), Some(Outcome::Failure), "code {code}");
        }
    }

    #[test]
    fn what_the_client_refused_or_ended_counts_nothing() {
        let policy = Settings::default().policy(Mode::Enforce).unwrap();
        // Ended by the application: a write callback, a progress callback.
        assert_eq!(of_transfer(&policy, 23, 0), None);
        assert_eq!(of_transfer(&policy, 42, 200), None);
        // Refused by the client: a protocol it forbade, a re-entered
        // handle, a malformed URL, its redirect and size limits (while the
        // server answered 302 and 200), a recursive call, an unknown code.
        for code in [1, 2, 3, 43, 47, 63, 93, 1000] {
            assert_eq!(of_transfer(&policy, code, 200), None, "code {code}");
            assert_eq!(of_transfer(&policy, code, 0), None, "code {code}");
        }
        assert_eq!(of_transfer(&policy, 47, 302), None);
        // CURLOPT_FAILONERROR without a status is no answer of the server.
        assert_eq!(of_transfer(&policy, 22, 0), None);
    }

    #[test]
    fn status_lines_give_their_status() {
        assert_eq!(status_of_line(b"HTTP/1.1 503 Service Unavailable\r\n"), Some(503));
        assert_eq!(status_of_line(b"HTTP/1.0 200 OK"), Some(200));
        assert_eq!(status_of_line(b"HTTP/2 404"), Some(404));
        assert_eq!(status_of_line(b"Content-Type: text/plain"), None);
        assert_eq!(status_of_line(b"HTTP/1.1 abc"), None);
        assert_eq!(status_of_line(b"HTTP/1.1 2000 OK"), None);
        assert_eq!(status_of_line(b"HTTP/1.1 +20 OK"), None);
    }

    #[test]
    fn a_reason_phrase_of_any_bytes_keeps_its_status() {
        assert_eq!(status_of_line(b"HTTP/1.1 200 Tr\xe8s bien\r\n"), Some(200));
        assert_eq!(status_of_line(b"HTTP/1.1 503 \xff\xfe\x80"), Some(503));
    }
}
