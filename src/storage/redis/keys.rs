//! The one builder of the Redis keys of a circuit. Every key of a service
//! carries the same hash tag, so a service lives on one Redis Cluster slot
//! and its scripts can touch all its keys.
//!
//! ```text
//! <prefix>cb:{<service>}:s                                hash: state, half-open admissions
//! <prefix>cb:{<service>}:b:<bucket>:<generation>:<slot>   counter of one bucket, generation and slot
//! <prefix>cb:{<service>}:o:<generation>                   outcomes counted in a generation
//! <prefix>cb:{<service>}:c:<generation>                   the current run of failures
//! <prefix>cb:{<service>}:h:<generation>                   hash: each host's window (`FleetStorage`)
//! <prefix>cb:{<service>}:hi:<generation>                  sorted set: each host by its last sync (server's ms)
//! ```
//!
//! Counters are plain strings, each with the time to live of its window:
//! a generation or bucket that is over needs no cleaning.

/// The keys of one service.
pub struct ServiceKeys {
    base: Vec<u8>,
    /// The state's key, read at every call: built once.
    state: Vec<u8>,
}

/// Appends `value` in decimal.
pub(super) fn push_decimal(out: &mut Vec<u8>, mut value: u64) {
    if value < 10 {
        out.push(b'0' + value as u8);
        return;
    }
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut digits = [0_u8; 20];
    let mut first = digits.len();
    while value >= 100 {
        let pair = (value % 100) as usize * 2;
        value /= 100;
        first -= 2;
        digits[first..first + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if value >= 10 {
        let pair = value as usize * 2;
        first -= 2;
        digits[first..first + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        first -= 1;
        digits[first] = b'0' + value as u8;
    }
    out.extend_from_slice(&digits[first..]);
}

fn push_signed(out: &mut Vec<u8>, value: i64) {
    if value < 0 {
        out.push(b'-');
    }
    push_decimal(out, value.unsigned_abs());
}

/// The Redis Cluster slot of a hash tag: CRC16 (XMODEM) modulo 16384.
fn slot_of_tag(tag: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in tag {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc % 16_384
}

impl ServiceKeys {
    /// `prefix` has no braces (refused when the storage is made); braces and
    /// `%` in the service are percent-encoded so the tag stays whole and two
    /// services never share keys.
    pub fn new(prefix: &[u8], service: &[u8]) -> Self {
        let mut base = Vec::with_capacity(prefix.len() + service.len() + 8);
        base.extend_from_slice(prefix);
        base.extend_from_slice(b"cb:{");
        for &byte in service {
            match byte {
                b'{' | b'}' | b'%' => base.extend_from_slice(format!("%{byte:02X}").as_bytes()),
                _ => base.push(byte),
            }
        }
        if service.is_empty() {
            // `{}` is no hash tag for Redis: a lone `%`, which no encoded
            // name produces, stands for the empty name.
            base.push(b'%');
        }
        base.extend_from_slice(b"}:");
        let state = [base.as_slice(), b"s"].concat();
        Self { base, state }
    }

    pub fn state(&self) -> &[u8] {
        &self.state
    }

    pub fn counter(&self, bucket: i64, generation: u64, slot: usize) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.base.len() + 48);
        self.write_counter(&mut key, bucket, generation, slot);
        key
    }

    /// Appends the key of [`ServiceKeys::counter`] to `out`.
    pub fn write_counter(&self, out: &mut Vec<u8>, bucket: i64, generation: u64, slot: usize) {
        self.write_counter_prefix(out, bucket, generation);
        push_decimal(out, slot as u64);
    }

    /// Appends what the counters of one bucket and generation share (all
    /// but the slot) to `out`.
    pub fn write_counter_prefix(&self, out: &mut Vec<u8>, bucket: i64, generation: u64) {
        out.extend_from_slice(&self.base);
        out.extend_from_slice(b"b:");
        push_signed(out, bucket);
        out.push(b':');
        push_decimal(out, generation);
        out.push(b':');
    }

    pub fn outcomes(&self, generation: u64) -> Vec<u8> {
        self.in_generation(b"o:", generation)
    }

    /// The windows of a fleet's hosts in one generation, by host.
    pub fn host_windows(&self, generation: u64) -> Vec<u8> {
        self.in_generation(b"h:", generation)
    }

    pub fn host_index(&self, generation: u64) -> Vec<u8> {
        self.in_generation(b"hi:", generation)
    }

    pub fn runs(&self, generation: u64) -> Vec<u8> {
        self.in_generation(b"c:", generation)
    }

    fn in_generation(&self, kind: &[u8], generation: u64) -> Vec<u8> {
        let mut key = self.with_suffix(kind);
        push_decimal(&mut key, generation);
        key
    }

    /// The base, then `kind`, with room for the numbers that follow (no
    /// `format!`: keys are built at every call).
    fn with_suffix(&self, kind: &[u8]) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.base.len() + 48);
        key.extend_from_slice(&self.base);
        key.extend_from_slice(kind);
        key
    }

    /// The cluster slot of every key of the service: the prefix has no
    /// braces, so the first `{` opens our tag.
    pub fn slot(&self) -> u16 {
        let open = self
            .base
            .iter()
            .position(|&byte| byte == b'{')
            .expect("every key has a tag")
            + 1;
        let close = open
            + self.base[open..]
                .iter()
                .position(|&byte| byte == b'}')
                .expect("a closed tag");
        slot_of_tag(&self.base[open..close])
    }
}

#[cfg(test)]
mod tests {
    use redis::cluster_routing::Slot;

    use super::*;

    #[test]
    fn every_key_of_a_service_is_on_one_slot() {
        for service in [
            &b"payments"[..],
            b"with {braces} inside",
            b"%7B",
            b"\xff\x00 binary",
            b"",
        ] {
            let keys = ServiceKeys::new(b"shop:", service);
            assert_eq!(
                Slot::for_key(keys.counter(-1, 7, 3)),
                Slot::for_key(keys.state()),
                "{service:?}"
            );
            assert_eq!(
                Slot::for_key(keys.outcomes(7)),
                Slot::for_key(keys.runs(7)),
                "{service:?}"
            );
            assert_eq!(Slot::new(keys.slot()), Some(Slot::for_key(keys.state())), "{service:?}");
        }
    }

    #[test]
    fn the_tag_is_the_service() {
        let keys = ServiceKeys::new(b"shop:", b"payments");
        assert_eq!(keys.state(), b"shop:cb:{payments}:s");
        assert_eq!(keys.counter(1203, 7, 1), b"shop:cb:{payments}:b:1203:7:1");
        assert_eq!(keys.outcomes(7), b"shop:cb:{payments}:o:7");
        assert_eq!(keys.runs(7), b"shop:cb:{payments}:c:7");
        assert_eq!(keys.counter(-1203, 0, 0), b"shop:cb:{payments}:b:-1203:0:0");
        assert_eq!(
            keys.counter(i64::MIN, u64::MAX, 10),
            format!("shop:cb:{{payments}}:b:{}:{}:10", i64::MIN, u64::MAX).as_bytes()
        );
        assert_eq!(keys.host_windows(42), b"shop:cb:{payments}:h:42");
        for number in [0, 1, 9, 10, 99, 100, 101, 999, 1000, 1_796_226_239, u64::MAX] {
            let mut out = Vec::new();
            push_decimal(&mut out, number);
            assert_eq!(out, number.to_string().as_bytes());
        }
        assert_eq!(keys.host_index(42), b"shop:cb:{payments}:hi:42");
        assert_eq!(Slot::for_key(keys.state()), Slot::for_key("payments"));
    }

    #[test]
    fn braces_and_percent_are_encoded_so_names_stay_distinct() {
        assert_eq!(ServiceKeys::new(b"", b"a{b}").state(), b"cb:{a%7Bb%7D}:s");
        assert_ne!(
            ServiceKeys::new(b"", b"%7B").state(),
            ServiceKeys::new(b"", b"{").state()
        );
    }
}
