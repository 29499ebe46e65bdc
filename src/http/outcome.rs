//! What a finished transfer counts as for its circuit.

use super::policy::Policy;
use crate::core::counts::Outcome;

/// libcurl's codes for what the application itself ended: a write
/// callback that refused the data (`CURLE_WRITE_ERROR`), a progress
/// callback that aborted (`CURLE_ABORTED_BY_CALLBACK`, as Symfony's
/// HttpClient cancels a response). The service did nothing wrong.
const ENDED_BY_THE_APPLICATION: [i64; 2] = [23, 42];

/// `CURLE_HTTP_RETURNED_ERROR`: `CURLOPT_FAILONERROR` turned a status of
/// 400 or more into an error; the status decides.
const HTTP_RETURNED_ERROR: i64 = 22;

/// The outcome of a transfer that ended with libcurl's `code` (0: done)
/// and the response `status` (0: none was received); `None` when it tells
/// nothing about the service.
pub fn of_transfer(policy: &Policy, code: i64, status: u16) -> Option<Outcome> {
    if ENDED_BY_THE_APPLICATION.contains(&code) {
        return None;
    }
    if code != 0 && !(code == HTTP_RETURNED_ERROR && status != 0) {
        return Some(Outcome::Failure);
    }
    Some(of_status(policy, status))
}

/// The outcome of an answer with `status`: a failure when the policy names it.
pub fn of_status(policy: &Policy, status: u16) -> Outcome {
    if policy.is_failure_status(status) {
        Outcome::Failure
    } else {
        Outcome::Success
    }
}

/// The status of a status line, `HTTP/1.1 503 Service Unavailable`.
pub fn status_of_line(line: &[u8]) -> Option<u16> {
    let line = std::str::from_utf8(line).ok()?;
    let rest = line.strip_prefix("HTTP/")?;
    let code = rest.split_whitespace().nth(1)?;
    code.parse::<u16>().ok().filter(|code| (100..=599).contains(code))
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
        assert_eq!(of_transfer(&policy, 42, 200), None);
        assert_eq!(of_transfer(&policy, 23, 0), None);
    }

    #[test]
    fn status_lines_give_their_status() {
        assert_eq!(status_of_line(b"HTTP/1.1 503 Service Unavailable\r\n"), Some(503));
        assert_eq!(status_of_line(b"HTTP/1.0 200 OK"), Some(200));
        assert_eq!(status_of_line(b"HTTP/2 404"), Some(404));
        assert_eq!(status_of_line(b"Content-Type: text/plain"), None);
        assert_eq!(status_of_line(b"HTTP/1.1 abc"), None);
    }
}
