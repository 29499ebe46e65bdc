//! How a storage fails: the error every storage operation returns, and its
//! kind, which PHP sees as the code of its `StorageException`.

use thiserror::Error;

/// Why a storage failed, with what to tell of it. The variant is the kind
/// of failure ([`StorageErrorKind`]): what PHP's `StorageException` has as
/// its code, and what says whether the next call may do better.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StorageError {
    /// The storage could not be reached or worked with: a connection that
    /// failed or broke, a node backing off, a record that kept changing,
    /// data another client left (removed, so the next call may work).
    #[error("{0}")]
    Unavailable(String),
    /// The storage did not answer within the timeout, in milliseconds.
    #[error("storage timed out after {0} ms")]
    Timeout(u64),
    /// The storage has no room left: a shared memory segment for another
    /// circuit, a fleet tier's reading for another host.
    #[error("{0}")]
    Full(String),
    /// A storage written in PHP threw, or broke its contract.
    #[error("{0}")]
    Userland(String),
    /// The storage cannot do what was asked, by its nature (Memcached cannot list keys).
    #[error("{0}")]
    Unsupported(String),
    /// The storage answered, and refused: a server's error reply to a
    /// command, an authentication the server turned down. Asking again the
    /// same way gets the same answer.
    #[error("{0}")]
    Refused(String),
}

/// The kind of a [`StorageError`], without its message. The numbers are
/// the codes of PHP's `StorageException` (its class constants): they are
/// part of the API, never renumbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StorageErrorKind {
    Unavailable = 1,
    Timeout = 2,
    Full = 3,
    Refused = 4,
    Unsupported = 5,
    Userland = 6,
}

impl StorageErrorKind {
    /// Every kind, in the order of their codes.
    pub const ALL: [Self; 6] = [
        Self::Unavailable,
        Self::Timeout,
        Self::Full,
        Self::Refused,
        Self::Unsupported,
        Self::Userland,
    ];

    /// The code of PHP's `StorageException` of this kind.
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// The name of the class constant of PHP's `StorageException` whose
    /// value is [`Self::code`].
    pub const fn constant_name(self) -> &'static str {
        match self {
            Self::Unavailable => "UNAVAILABLE",
            Self::Timeout => "TIMEOUT",
            Self::Full => "FULL",
            Self::Refused => "REFUSED",
            Self::Unsupported => "UNSUPPORTED",
            Self::Userland => "USERLAND",
        }
    }
}

impl StorageError {
    pub const fn kind(&self) -> StorageErrorKind {
        match self {
            Self::Unavailable(_) => StorageErrorKind::Unavailable,
            Self::Timeout(_) => StorageErrorKind::Timeout,
            Self::Full(_) => StorageErrorKind::Full,
            Self::Userland(_) => StorageErrorKind::Userland,
            Self::Unsupported(_) => StorageErrorKind::Unsupported,
            Self::Refused(_) => StorageErrorKind::Refused,
        }
    }

    /// Whether the same call may work a moment later, as redis-rs'
    /// `is_timeout()` and `is_connection_dropped()` tell: a storage out of
    /// reach or too slow. A full segment, a refusal, an operation the
    /// storage cannot do and a storage written in PHP that threw (what it
    /// threw is unknown) are not.
    pub const fn is_transient(&self) -> bool {
        matches!(self.kind(), StorageErrorKind::Unavailable | StorageErrorKind::Timeout)
    }

    /// Whether the storage did not answer within its timeout.
    pub const fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout(_))
    }
}

#[cfg(test)]
mod tests {
    use super::{StorageError, StorageErrorKind};

    #[test]
    fn each_kind_has_its_own_code_and_constant() {
        let codes: Vec<i32> = StorageErrorKind::ALL.iter().map(|kind| kind.code()).collect();
        assert_eq!(codes, [1, 2, 3, 4, 5, 6]);
        let names: std::collections::HashSet<_> =
            StorageErrorKind::ALL.iter().map(|kind| kind.constant_name()).collect();
        assert_eq!(names.len(), StorageErrorKind::ALL.len());
    }

    #[test]
    fn only_an_unreachable_or_slow_storage_is_transient() {
        let errors = [
            (
                StorageError::Unavailable("down".into()),
                StorageErrorKind::Unavailable,
                true,
                false,
            ),
            (StorageError::Timeout(200), StorageErrorKind::Timeout, true, true),
            (StorageError::Full("full".into()), StorageErrorKind::Full, false, false),
            (
                StorageError::Refused("ERR".into()),
                StorageErrorKind::Refused,
                false,
                false,
            ),
            (
                StorageError::Unsupported("no".into()),
                StorageErrorKind::Unsupported,
                false,
                false,
            ),
            (
                StorageError::Userland("threw".into()),
                StorageErrorKind::Userland,
                false,
                false,
            ),
        ];
        for (error, kind, transient, timeout) in errors {
            assert_eq!(error.kind(), kind, "{error:?}");
            assert_eq!(error.is_transient(), transient, "{error:?}");
            assert_eq!(error.is_timeout(), timeout, "{error:?}");
        }
    }
}
