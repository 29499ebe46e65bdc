//! The one builder of a service's keys in a key-value store (the layout is
//! in `kv/mod.rs`): the name, then a suffix whose numbers are written as
//! decimal digits straight into the key, without `format!`.

/// The keys of one service: `name` is the start of every one of them.
pub struct ServiceKeys {
    name: Vec<u8>,
}

/// Writes `number` in decimal at the end of `key`.
fn push_number(key: &mut Vec<u8>, number: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = number;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    key.extend_from_slice(&digits[start..]);
}

/// Writes `number` in decimal, with its sign when negative.
fn push_signed(key: &mut Vec<u8>, number: i64) {
    if number < 0 {
        key.push(b'-');
    }
    push_number(key, number.unsigned_abs());
}

impl ServiceKeys {
    pub fn new(name: Vec<u8>) -> Self {
        Self { name }
    }

    /// The start of every key of the service.
    pub fn name(&self) -> &[u8] {
        &self.name
    }

    /// `<name><suffix>`, with room for the numbers that follow.
    fn key(&self, suffix: &[u8]) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.name.len() + 48);
        key.extend_from_slice(&self.name);
        key.extend_from_slice(suffix);
        key
    }

    /// `<name>:s`
    pub fn state(&self) -> Vec<u8> {
        self.key(b":s")
    }

    /// `<name>:b:<bucket>:<generation>:<slot>`
    pub fn counter(&self, bucket: i64, generation: u64, slot: usize) -> Vec<u8> {
        self.counters(bucket, generation).slot(slot)
    }

    /// The counters of one bucket and generation, which differ by slot.
    pub fn counters(&self, bucket: i64, generation: u64) -> Counters {
        let mut start = self.key(b":b:");
        push_signed(&mut start, bucket);
        start.push(b':');
        push_number(&mut start, generation);
        start.push(b':');
        Counters { start }
    }

    /// `<name>:<kind>:<generation>`: a tally of a generation (`o`, `f`,
    /// `m`, `a`) or a fleet's list of hosts (`l`).
    pub fn of_generation(&self, kind: u8, generation: u64) -> Vec<u8> {
        let mut key = self.key(&[b':', kind, b':']);
        push_number(&mut key, generation);
        key
    }

    /// `<name>:h:<generation>:<host>`: a fleet host's window.
    pub fn host_window(&self, generation: u64, host: u64) -> Vec<u8> {
        let mut key = self.of_generation(b'h', generation);
        key.push(b':');
        push_number(&mut key, host);
        key
    }
}

/// `<name>:b:<bucket>:<generation>:`, the start of a bucket's counters.
pub struct Counters {
    start: Vec<u8>,
}

impl Counters {
    /// The counter of `slot`.
    pub fn slot(&self, slot: usize) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.start.len() + 4);
        key.extend_from_slice(&self.start);
        push_number(&mut key, slot as u64);
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_those_format_wrote() {
        let keys = ServiceKeys::new(b"shop%3Acb:pay".to_vec());
        assert_eq!(keys.state(), b"shop%3Acb:pay:s");
        assert_eq!(keys.counter(1_764_000_000, 7, 1), b"shop%3Acb:pay:b:1764000000:7:1");
        assert_eq!(keys.counter(-12, 0, 0), b"shop%3Acb:pay:b:-12:0:0");
        assert_eq!(
            keys.counter(i64::MIN, u64::MAX, 10),
            format!("shop%3Acb:pay:b:{}:{}:10", i64::MIN, u64::MAX).as_bytes()
        );
        assert_eq!(keys.of_generation(b'o', 0), b"shop%3Acb:pay:o:0");
        assert_eq!(keys.of_generation(b'm', 42), b"shop%3Acb:pay:m:42");
        assert_eq!(
            keys.host_window(3, 18_446_744_073_709_551_615),
            b"shop%3Acb:pay:h:3:18446744073709551615"
        );
        for number in [0, 9, 10, 99, 100, 12_345, u64::MAX / 7] {
            let mut key = Vec::new();
            push_number(&mut key, number);
            assert_eq!(key, number.to_string().as_bytes());
        }
    }
}
