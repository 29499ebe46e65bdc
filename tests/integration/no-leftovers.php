<?php
// Runs a command and fails when any process it started is still running
// after it ended: this process is a child subreaper (prctl), so every
// orphaned descendant (a server's workers whose parent was killed, a daemon)
// becomes its child, where it is found, named, and killed.
//
//   php -d ffi.enable=1 no-leftovers.php [--interrupt-after=TEXT] COMMAND [ARGUMENT...]
//
// --interrupt-after=TEXT: once the command printed a line containing TEXT,
// SIGINT goes to its whole process group, as Ctrl-C in a terminal does.
// Exit status: the command's, or 1 when something was left behind.

$arguments = array_slice($argv, 1);
$interruptAfter = null;
if (isset($arguments[0]) && str_starts_with($arguments[0], '--interrupt-after=')) {
    $interruptAfter = substr(array_shift($arguments), strlen('--interrupt-after='));
}
if ($arguments === []) {
    fwrite(STDERR, "usage: no-leftovers.php [--interrupt-after=TEXT] COMMAND [ARGUMENT...]\n");
    exit(2);
}
const PR_SET_CHILD_SUBREAPER = 36;
$libc = FFI::cdef('int prctl(int option, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5);');
if ($libc->prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) !== 0) {
    fwrite(STDERR, "no-leftovers: prctl(PR_SET_CHILD_SUBREAPER) failed\n");
    exit(2);
}
$me = getmypid();

/** Pids of this process's living children (not zombies), with their command lines. */
function living_children(int $parent): array
{
    $children = [];
    foreach (glob('/proc/[0-9]*/stat') as $stat) {
        $line = @file_get_contents($stat);
        // pid (comm) state ppid ...: comm may hold spaces and parentheses.
        if ($line === false || !preg_match('/^(\d+) \(.*\) (\S) (\d+) /s', $line, $match)) {
            continue;
        }
        if ((int) $match[3] === $parent && $match[2] !== 'Z') {
            $children[(int) $match[1]] = trim(str_replace("\0", ' ', (string) @file_get_contents("/proc/{$match[1]}/cmdline")));
        }
    }
    return $children;
}

// The command in a session (so a process group) of its own, as a job of a shell.
$watch = $interruptAfter !== null;
$process = proc_open(
    ['/bin/sh', '-c', 'exec setsid "$@"', 'sh', ...$arguments],
    [0 => ['file', '/dev/null', 'r'], 1 => $watch ? ['pipe', 'w'] : STDOUT, 2 => STDERR],
    $pipes
);
if ($process === false) {
    exit(2);
}
$child = proc_get_status($process)['pid'];
$interrupted = false;
if ($watch) {
    while (($line = fgets($pipes[1])) !== false) {
        echo $line;
        if (!$interrupted && str_contains($line, $interruptAfter)) {
            $interrupted = true;
            echo "no-leftovers: SIGINT to the process group of the command\n";
            posix_kill(-$child, SIGINT);
        }
    }
}
$status = proc_close($process);
if ($watch && !$interrupted) {
    echo "no-leftovers: the command never printed '$interruptAfter'\n";
    $status = 1;
}

// Orphans that ended on their own are zombies of ours: reap them first.
while (pcntl_waitpid(-1, $raw, WNOHANG) > 0);
// A process in the middle of its exit (its command line already gone) is
// waited for: it is a child of ours, and ends.
foreach (living_children($me) as $pid => $command) {
    if ($command === '') {
        pcntl_waitpid($pid, $raw);
    }
}
$left = living_children($me);
if ($left === []) {
    echo 'no-leftovers: nothing left running by ', implode(' ', $arguments), "\n";
    exit($status);
}
echo 'no-leftovers: FAILED: ', count($left), ' processes left running by ', implode(' ', $arguments), ":\n";
foreach ($left as $pid => $command) {
    echo "  $pid $command\n";
    posix_kill($pid, SIGKILL);
}
while (pcntl_waitpid(-1, $raw) > 0);
exit(1);
