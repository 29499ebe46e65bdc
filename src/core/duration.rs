//! Durations arrive from PHP as float seconds and are kept as whole
//! milliseconds, the precision the contract promises.

use super::error::ConfigError;

/// Milliseconds since the Unix epoch, or a span of milliseconds.
pub type Millis = i64;

pub const SECOND: Millis = 1_000;
pub const THIRTY_DAYS: Millis = 30 * 24 * 3_600 * SECOND;

/// Seconds as milliseconds, rounded to the nearest millisecond.
pub fn seconds_to_millis(seconds: f64) -> Millis {
    (seconds * 1_000.0).round() as Millis
}

/// Validates a duration given in seconds against `[min, max]` milliseconds,
/// then rounds it to whole milliseconds. The value is checked as given:
/// `0.0009` is below a limit of `0.001` even though it rounds to it.
pub fn checked_millis(
    parameter: &'static str,
    seconds: f64,
    min: Millis,
    max: Millis,
    limits: &'static str,
) -> Result<Millis, ConfigError> {
    // `min as f64 / 1000.0` is the double nearest the limit in seconds, the
    // same one a user writing the limit as a literal (`0.001`, `3600`) gets.
    let in_seconds = |millis: Millis| millis as f64 / 1_000.0;
    checked_float(parameter, seconds, in_seconds(min), in_seconds(max), limits)?;
    Ok(seconds_to_millis(seconds))
}

/// Validates a finite float within `[min, max]`.
pub fn checked_float(
    parameter: &'static str,
    value: f64,
    min: f64,
    max: f64,
    limits: &'static str,
) -> Result<f64, ConfigError> {
    if !value.is_finite() || value < min || value > max {
        return Err(ConfigError::new(parameter, format_float(value), limits));
    }
    Ok(value)
}

/// Floats as PHP prints them in messages: `10`, `0.5`, `NAN`, `INF`.
pub fn format_float(value: f64) -> String {
    if value.is_nan() {
        "NAN".into()
    } else if value.is_infinite() {
        if value > 0.0 { "INF".into() } else { "-INF".into() }
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_the_millisecond() {
        assert_eq!(seconds_to_millis(0.0015), 2);
        assert_eq!(seconds_to_millis(2.0), 2_000);
    }

    #[test]
    fn limits_are_checked_before_rounding() {
        let slow = |seconds| checked_millis("slowCallDuration", seconds, 1, 86_400_000, "at least 0.001 seconds");
        assert!(slow(0.0009).is_err(), "rounds to 0.001, but is below it");
        assert!(slow(0.000_999_9).is_err());
        assert_eq!(slow(0.001).unwrap(), 1);
        assert_eq!(slow(0.0014).unwrap(), 1);
        let window = |seconds| checked_millis("timeWindow", seconds, 10_000, 3_600_000, "10 to 3600 seconds");
        assert!(window(9.9996).is_err(), "rounds to 10 s");
        assert!(window(3_600.000_4).is_err(), "rounds to 3600 s");
        assert_eq!(window(10.0).unwrap(), 10_000);
        assert_eq!(window(3_600.0).unwrap(), 3_600_000);
        let open = |seconds| checked_millis("openDuration", seconds, SECOND, THIRTY_DAYS, "1 to 2592000 seconds");
        assert!(open(0.9996).is_err());
        assert!(open(2_592_000.000_4).is_err());
        assert_eq!(open(2_592_000.0).unwrap(), THIRTY_DAYS);
    }

    #[test]
    fn rejects_non_finite_and_out_of_range() {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.9994, 31.0 * 86_400.0] {
            assert!(checked_millis("openDuration", bad, SECOND, THIRTY_DAYS, "1 to 2592000 seconds").is_err());
        }
        assert_eq!(checked_millis("x", 1.0, SECOND, THIRTY_DAYS, "").unwrap(), 1_000);
        let err = checked_millis("openDuration", f64::NAN, SECOND, THIRTY_DAYS, "1 to 2592000 seconds").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid openDuration: NAN given, expected 1 to 2592000 seconds"
        );
    }
}
