//! Integers as PHP reads them from other values (`zval_get_long`): how
//! ext/curl reads an integer option the application set, which the HTTP
//! guard must put back exactly as it was read.

/// PHP's conversion of a float to an integer: truncated; 0 when it has no
/// integer value in range.
pub fn truncated(number: f64) -> i64 {
    if number.is_finite() && number >= i64::MIN as f64 && number < i64::MAX as f64 {
        number as i64
    } else {
        0
    }
}

/// The number a string starts with, as PHP reads it (leading whitespace,
/// a sign, digits, a fraction, an exponent); 0 when it starts with none.
pub fn leading_number(text: &[u8]) -> i64 {
    let start = text
        .iter()
        .position(|byte| !matches!(byte, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
        .unwrap_or(text.len());
    let text = &text[start..];
    let digits = |from: usize| text[from..].iter().take_while(|byte| byte.is_ascii_digit()).count();
    let mut end = usize::from(matches!(text.first(), Some(b'+' | b'-')));
    let whole = digits(end);
    end += whole;
    let mut float = false;
    if text.get(end) == Some(&b'.') && (whole > 0 || digits(end + 1) > 0) {
        end += 1 + digits(end + 1);
        float = true;
    }
    if whole == 0 && !float {
        return 0;
    }
    if matches!(text.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(text.get(end + 1), Some(b'+' | b'-')));
        let exponent = digits(end + 1 + sign);
        if exponent > 0 {
            end += 1 + sign + exponent;
            float = true;
        }
    }
    let number = std::str::from_utf8(&text[..end]).unwrap_or("0");
    if float {
        return truncated(number.parse().unwrap_or(0.0));
    }
    // Past the range of an integer, PHP reads the number as a float.
    number
        .parse()
        .unwrap_or_else(|_| truncated(number.parse().unwrap_or(0.0)))
}

#[cfg(test)]
mod tests {
    use super::{leading_number, truncated};

    #[test]
    fn strings_give_the_integer_php_reads() {
        for (text, expected) in [
            ("1000ms", 1000),
            ("1.5", 1),
            (" 30", 30),
            ("-2", -2),
            ("2e3", 2000),
            (".5", 0),
            ("abc", 0),
            ("", 0),
            ("7e", 7),
        ] {
            assert_eq!(leading_number(text.as_bytes()), expected, "{text:?}");
        }
    }

    #[test]
    fn floats_are_truncated_or_zero() {
        assert_eq!(truncated(1.9), 1);
        assert_eq!(truncated(-1.9), -1);
        assert_eq!(truncated(f64::NAN), 0);
        assert_eq!(truncated(f64::INFINITY), 0);
    }
}
