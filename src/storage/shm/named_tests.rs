//! Named segments: created private, attached by name, refused when made by
//! another build or size, and initialised exactly once by processes racing
//! to create them, even when one of them dies on the way.
//!
//! The forked children only open the segment, touch atomics and `_exit`:
//! glibc's allocator is safe to use after `fork`, and nothing else of the
//! test harness's threads is used there.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::*;

const SIZE: usize = 1 << 20;

/// A name no other run uses; the object is removed when dropped.
struct TestName(String);

impl TestName {
    fn new(tag: &str) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        Self(format!(
            "cb-test-{}-{tag}-{}-{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ))
    }

    fn file(&self) -> String {
        format!("/dev/shm/{}", self.0)
    }
}

impl Drop for TestName {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.file());
    }
}

/// Forks a child that runs `work` and exits with the status it returns.
fn fork(work: impl FnOnce() -> i32) -> libc::pid_t {
    // SAFETY: the child only opens segments, touches atomics and pipes,
    // and leaves through `_exit` without running the parent's destructors.
    match unsafe { libc::fork() } {
        -1 => panic!("fork failed: {}", std::io::Error::last_os_error()),
        // SAFETY: ends the child at once, as above.
        0 => unsafe { libc::_exit(work()) },
        pid => pid,
    }
}

/// Waits for the child `pid` to end, and returns its status.
fn reap(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    // SAFETY: `pid` is a child of this process.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    status
}

fn pipe() -> (std::fs::File, std::fs::File) {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just opened and are owned here only.
    unsafe { (OwnedFd::from_raw_fd(fds[0]).into(), OwnedFd::from_raw_fd(fds[1]).into()) }
}

fn mismatch(result: Result<Segment, SegmentError>) -> String {
    match result {
        Err(SegmentError::Mismatch { differences, .. }) => differences,
        Err(other) => panic!("expected a mismatch, got {other}"),
        Ok(_) => panic!("expected a mismatch, the segment was accepted"),
    }
}

fn refusal(result: Result<Segment, SegmentError>) -> String {
    match result {
        Err(SegmentError::Open { reason, .. }) => reason,
        Err(other) => panic!("expected a refusal, got {other}"),
        Ok(_) => panic!("expected a refusal, the segment was accepted"),
    }
}

#[test]
fn a_named_segment_is_private_to_its_user_and_attached_by_name() {
    let name = TestName::new("attach");
    let created = Segment::open_named(&name.0, SIZE, 0.5).unwrap();
    let metadata = std::fs::metadata(name.file()).unwrap();
    assert_eq!(metadata.mode() & 0o7777, 0o600);
    // SAFETY: geteuid has no precondition.
    assert_eq!(metadata.uid(), unsafe { libc::geteuid() });
    assert_eq!(metadata.len(), SIZE as u64);
    assert_eq!(created.name(), Some(name.0.as_str()));
    assert_eq!(created.capacity(), capacity_of(SIZE));

    created.record(3).admissions.fetch_add(7, Ordering::Relaxed);
    let attached = Segment::open_named(&name.0, SIZE, 0.5).unwrap();
    assert_eq!(attached.record(3).admissions.load(Ordering::Relaxed), 7);
    attached.record(3).admissions.fetch_add(1, Ordering::Relaxed);
    assert_eq!(created.record(3).admissions.load(Ordering::Relaxed), 8);

    // One insert lock for both mappings: held through one, recovered
    // state and all, it is the same mutex through the other.
    let guard = created.lock().unwrap();
    // SAFETY: the mutex was initialised by `created`, in the same object.
    let busy = unsafe { libc::pthread_mutex_trylock(attached.header().insert_lock.get()) };
    assert_eq!(busy, libc::EBUSY);
    drop(guard);

    // Nothing is unlinked when a process lets go of its segment.
    drop(created);
    drop(attached);
    assert!(std::fs::metadata(name.file()).is_ok());
    let again = Segment::open_named(&name.0, SIZE, 0.5).unwrap();
    assert_eq!(again.record(3).admissions.load(Ordering::Relaxed), 8);
}

#[test]
fn a_segment_of_another_size_or_build_is_refused_saying_what_differs() {
    let name = TestName::new("mismatch");
    let created = Segment::open_named(&name.0, SIZE, 0.5).unwrap();

    let message = Segment::open_named(&name.0, 2 * SIZE, 0.5).err().unwrap().to_string();
    assert!(
        message.contains(&format!(
            "it holds {SIZE} bytes, circuit_breaker.shm_size here is {} bytes",
            2 * SIZE
        )),
        "{message}"
    );
    assert!(message.contains(&format!("rm /dev/shm/{}", name.0)), "{message}");
    // The refusal changed nothing: the object keeps its size and header.
    assert_eq!(std::fs::metadata(name.file()).unwrap().len(), SIZE as u64);

    let header = created.header();
    header.layout_version.store(LAYOUT_VERSION + 41, Ordering::Relaxed);
    let differences = mismatch(Segment::open_named(&name.0, SIZE, 0.5));
    assert_eq!(
        differences,
        format!(
            "its layout version is {}, this build's is {LAYOUT_VERSION}",
            LAYOUT_VERSION + 41
        )
    );
    header.layout_version.store(LAYOUT_VERSION, Ordering::Relaxed);

    header.layout_id.store(layout_id() ^ 1, Ordering::Relaxed);
    assert!(mismatch(Segment::open_named(&name.0, SIZE, 0.5)).starts_with("its layout fingerprint is"));
    header.layout_id.store(layout_id(), Ordering::Relaxed);

    header.record_size.store(64, Ordering::Relaxed);
    assert_eq!(
        mismatch(Segment::open_named(&name.0, SIZE, 0.5)),
        format!("its record size is 64 bytes, this build's is {} bytes", CIRCUIT_BYTES)
    );
    header.record_size.store(CIRCUIT_BYTES as u64, Ordering::Relaxed);

    header.magic.store(u64::from_le_bytes(*b"notours!"), Ordering::Relaxed);
    assert!(refusal(Segment::open_named(&name.0, SIZE, 0.5)).starts_with("it is not a circuit_breaker segment"));
    header.magic.store(MAGIC, Ordering::Relaxed);

    assert!(Segment::open_named(&name.0, SIZE, 0.5).is_ok());
}

/// The `F` record of `fleet/` is part of the layout: a build that moves,
/// drops or renames one of its words, or lists fewer hosts, makes another
/// layout id, so that its named segments and ours refuse each other.
#[test]
fn a_build_whose_tier_control_record_differs_has_another_layout_id() {
    type Change = fn(&'static str, u64) -> Option<(&'static str, u64)>;
    let with = |change: Change| {
        let words: Vec<(&str, u64)> = TIER_WORDS
            .iter()
            .filter_map(|&(name, place)| change(name, place))
            .collect();
        fingerprint(&words, TIER_KNOWN_HOSTS)
    };
    assert_eq!(fingerprint(TIER_WORDS, TIER_KNOWN_HOSTS), layout_id());
    assert_eq!(with(|name, place| Some((name, place))), layout_id());
    let moved: Change = |name, place| Some((name, if name == "RetryAt" { 14 } else { place }));
    assert_ne!(with(moved), layout_id(), "a word moved");
    let dropped: Change = |name, place| (name != "TooManyHosts").then_some((name, place));
    assert_ne!(with(dropped), layout_id(), "a word dropped");
    let renamed: Change = |name, place| Some((if name == "Degraded" { "Failing" } else { name }, place));
    assert_ne!(with(renamed), layout_id(), "a word of another meaning");
    assert_ne!(
        fingerprint(TIER_WORDS, TIER_KNOWN_HOSTS / 2),
        layout_id(),
        "fewer hosts listed"
    );
}

#[test]
fn names_are_plain_and_short() {
    for bad in ["a/b", "/circuit_breaker", ".", ".."] {
        match Segment::open_named(bad, SIZE, 0.5) {
            Err(SegmentError::Name { name, .. }) => assert_eq!(name, bad),
            other => panic!("{bad}: expected a name error, got {:?}", other.err()),
        }
    }
    let message = Segment::open_named(&"x".repeat(MAX_NAME_LENGTH + 1), SIZE, 0.5)
        .err()
        .unwrap()
        .to_string();
    assert!(message.contains("254 bytes long: at most 253"), "{message}");

    // The longest name allowed is one the system takes.
    let longest = TestName::new("long");
    let longest = TestName(format!(
        "{}{}",
        longest.0,
        "x".repeat(MAX_NAME_LENGTH - longest.0.len())
    ));
    assert!(Segment::open_named(&longest.0, SIZE, 0.5).is_ok());
}

#[test]
fn an_object_others_can_open_or_owned_by_another_user_is_refused() {
    let name = TestName::new("mode");
    drop(Segment::open_named(&name.0, SIZE, 0.5).unwrap());
    std::fs::set_permissions(name.file(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let reason = refusal(Segment::open_named(&name.0, SIZE, 0.5));
    assert!(reason.contains("its mode is 0644"), "{reason}");

    std::fs::set_permissions(name.file(), std::fs::Permissions::from_mode(0o600)).unwrap();
    // SAFETY: geteuid has no precondition.
    if unsafe { libc::geteuid() } == 0 {
        std::os::unix::fs::chown(name.file(), Some(65534), None).unwrap();
        let reason = refusal(Segment::open_named(&name.0, SIZE, 0.5));
        assert!(reason.contains("it belongs to uid 65534"), "{reason}");
    }
}

#[test]
fn processes_creating_at_once_initialise_the_segment_once() {
    const CHILDREN: usize = 8;
    // The race is short: several rounds, each on a new name.
    const ROUNDS: usize = 10;
    for _ in 0..ROUNDS {
        let name = TestName::new("race");
        let (mut start, release) = pipe();
        let children: Vec<_> = (0..CHILDREN)
            .map(|_| {
                fork(|| {
                    // SAFETY: closes this child's copy of the write end (the
                    // child never drops it), so the read below ends when the
                    // parent closes its own.
                    unsafe { libc::close(release.as_raw_fd()) };
                    // Blocks until the parent closes its end: all start at once.
                    let _ = start.read(&mut [0]);
                    match Segment::open_named(&name.0, SIZE, 0.5) {
                        Ok(segment) => {
                            segment.record(0).admissions.fetch_add(1, Ordering::Relaxed);
                            // An initialisation after this one would have
                            // zeroed the count; the lock must be usable too.
                            match segment.lock() {
                                Ok(guard) if !guard.recovered => 0,
                                _ => 2,
                            }
                        }
                        Err(_) => 1,
                    }
                })
            })
            .collect();
        drop(release);
        let statuses: Vec<_> = children.into_iter().map(reap).collect();
        assert!(
            statuses.iter().all(|&status| status == 0),
            "children ended with {statuses:?}"
        );
        let segment = Segment::open_named(&name.0, SIZE, 0.5).unwrap();
        assert_eq!(segment.record(0).admissions.load(Ordering::Relaxed), CHILDREN as u64);
    }
}

#[test]
fn a_creator_killed_before_publishing_leaves_a_segment_the_next_one_initialises() {
    let name = TestName::new("killed");
    let creator = fork(|| {
        let _ = Segment::open_named_with(&name.0, SIZE, 0.5, ATTACH_WAIT, &|| {
            // SAFETY: kills this child, as an OOM killer or an operator
            // would, while it holds the lock and has not published.
            unsafe { libc::raise(libc::SIGKILL) };
        });
        3
    });
    let status = reap(creator);
    assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL);
    assert_eq!(std::fs::metadata(name.file()).unwrap().len(), SIZE as u64);

    // Bounded by ATTACH_WAIT, not forever; and initialised anew.
    let segment = Segment::open_named(&name.0, SIZE, 0.5).unwrap();
    assert_eq!(segment.header().magic.load(Ordering::Relaxed), MAGIC);
    assert!(!segment.lock().unwrap().recovered);
}

#[test]
fn a_process_attaching_waits_for_the_creator_and_keeps_what_it_made() {
    let name = TestName::new("slow");
    let (mut initialising, told) = pipe();
    let creator = fork(|| {
        let segment = Segment::open_named_with(&name.0, SIZE, 0.5, ATTACH_WAIT, &|| {
            // The parent starts attaching now, while this one still holds
            // the lock with the segment unpublished.
            let _ = (&told).write_all(b"x");
            std::thread::sleep(Duration::from_millis(300));
        });
        match segment {
            Ok(segment) => {
                segment.record(1).admissions.fetch_add(5, Ordering::Relaxed);
                0
            }
            Err(_) => 1,
        }
    });
    let _ = initialising.read(&mut [0]);
    let segment = Segment::open_named(&name.0, SIZE, 0.5).unwrap();
    assert_eq!(reap(creator), 0);
    // Had the parent initialised the segment again, the creator's count
    // would have gone (or the creator crashed writing to it).
    assert_eq!(segment.record(1).admissions.load(Ordering::Relaxed), 5);
}

#[test]
fn a_stopped_holder_of_the_lock_makes_attaching_fail_after_the_wait() {
    let name = TestName::new("stuck");
    drop(Segment::open_named(&name.0, SIZE, 0.5).unwrap());
    let (mut locked, told) = pipe();
    let holder = fork(|| {
        let path = object_path(&name.0).unwrap();
        let object = SharedObject::open(&path).unwrap();
        // SAFETY: flock on a descriptor this child owns.
        unsafe { libc::flock(object.fd.as_raw_fd(), libc::LOCK_EX) };
        let _ = (&told).write_all(b"x");
        loop {
            // SAFETY: pause has no precondition; the parent kills this child.
            unsafe { libc::pause() };
        }
    });
    let _ = locked.read(&mut [0]);
    let attached = Segment::open_named_with(&name.0, SIZE, 0.5, Duration::from_millis(200), &|| {});
    // SAFETY: `holder` is our child.
    unsafe { libc::kill(holder, libc::SIGKILL) };
    reap(holder);
    let reason = refusal(attached);
    assert!(reason.contains("another process has held its lock"), "{reason}");
    assert!(Segment::open_named(&name.0, SIZE, 0.5).is_ok());
}

#[test]
fn a_shortened_object_breaks_the_segment_instead_of_raising_sigbus() {
    let name = TestName::new("shortened");
    let segment = Segment::open_named(&name.0, SIZE, 0.5).unwrap();
    let last = segment.capacity() - 1;
    segment.record(last).admissions.fetch_add(1, Ordering::Relaxed);
    assert!(segment.is_intact());
    std::fs::OpenOptions::new()
        .write(true)
        .open(name.file())
        .unwrap()
        .set_len(4096)
        .unwrap();
    // Past the end of the object: SIGBUS without the guard.
    assert_eq!(segment.record(last).admissions.load(Ordering::Relaxed), 0);
    assert!(!segment.is_intact());
    assert!(
        segment.broken_reason().contains("it now holds 4096 bytes"),
        "{}",
        segment.broken_reason()
    );

    // Found at a request start, before any access.
    let other = TestName::new("shortened-verify");
    let segment = Segment::open_named(&other.0, SIZE, 0.5).unwrap();
    segment.verify();
    assert!(segment.is_intact());
    std::fs::OpenOptions::new()
        .write(true)
        .open(other.file())
        .unwrap()
        .set_len(0)
        .unwrap();
    segment.verify();
    assert!(!segment.is_intact());
    assert_eq!(segment.record(last).admissions.load(Ordering::Relaxed), 0);
}
