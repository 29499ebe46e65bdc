--TEST--
A network storage whose server is paused (SIGSTOP: it accepts nothing and answers nothing): every call is permitted within twice the timeout with StorageFailed, and the same process recovers once the server resumes
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/faults.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;

$listener = new RecordingListener();
$paused = new CircuitBreaker('faults-' . getmypid(), configuration(minimum: 1000), storage(timeout: 0.05), $listener);
traffic($paused, $listener, 5); // connected and healthy
exec('kill -STOP ' . shared_pid());
try {
    [$permitted, $failures, $slowest] = traffic($paused, $listener, 20);
} finally {
    exec('kill -CONT ' . shared_pid());
}
printf("paused: %d of 20 permitted, StorageFailed: %s, within the timeout: %s\n", $permitted, $failures > 0 ? 'yes' : 'no', $slowest < 2 * 50 + 30 ? 'yes' : "no ($slowest ms)");
// Back: after the backoff, the same process recovers.
wait_for_recovery($paused, $listener);
[$permitted, $failures] = traffic($paused, $listener, 5);
printf("resumed: %d of 5 permitted, StorageFailed: %d, state %s\n", $permitted, $failures, $paused->getState()->value);
?>
--EXPECT--
paused: 20 of 20 permitted, StorageFailed: yes, within the timeout: yes
resumed: 5 of 5 permitted, StorageFailed: 0, state closed
