//! The process-wide system calls of the storages, neither the segment's
//! (`shm/segment.rs`) nor the network's (`net/sys.rs`): whether a process
//! id is in use, a hook run in every child forked, and giving freed heap
//! back to the system. Their `unsafe` is here, each with its invariant.

/// Whether a process of id `pid` exists (it may be a zombie): a signal 0
/// sends nothing, it only checks the id. A process that exists but is not
/// ours to signal (`EPERM`) exists.
pub fn process_exists(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 sends nothing; `kill` takes no pointer.
    let answered = unsafe { libc::kill(pid, 0) } == 0;
    answered || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Runs `hook` in the child of every later `fork()`, before `fork` returns
/// there. The hook must be async-signal-safe: it runs in a process whose
/// other threads are gone.
pub fn in_every_child(hook: extern "C" fn()) {
    // SAFETY: registers a plain function with no argument that the child
    // of every later fork runs; the caller vouches for what it does.
    unsafe {
        libc::pthread_atfork(None, None, Some(hook));
    }
}

/// Returns the free memory of the allocator's heap to the system (glibc's
/// `malloc_trim`; nothing elsewhere).
pub fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator, which
    // it does under its own locks; it has no precondition.
    unsafe {
        libc::malloc_trim(0);
    }
}
