//! The one builder of the Redis keys of a circuit. Every key of a service
//! carries the same hash tag, so a service lives on one Redis Cluster slot
//! and its scripts can touch all its keys.
//!
//! ```text
//! <prefix>cb:{<service>}:s   hash: state and generation tallies
//! <prefix>cb:{<service>}:w   hash: the window, a ring of buckets (scripts.rs)
//! ```

/// The keys of one service.
pub struct ServiceKeys {
    base: Vec<u8>,
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
        Self { base }
    }

    pub fn state(&self) -> Vec<u8> {
        [self.base.as_slice(), b"s"].concat()
    }

    pub fn window(&self) -> Vec<u8> {
        [self.base.as_slice(), b"w"].concat()
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
            assert_eq!(Slot::for_key(keys.window()), Slot::for_key(keys.state()), "{service:?}");
            assert_eq!(Slot::new(keys.slot()), Some(Slot::for_key(keys.state())), "{service:?}");
        }
    }

    #[test]
    fn the_tag_is_the_service() {
        let keys = ServiceKeys::new(b"shop:", b"payments");
        assert_eq!(keys.state(), b"shop:cb:{payments}:s");
        assert_eq!(keys.window(), b"shop:cb:{payments}:w");
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
