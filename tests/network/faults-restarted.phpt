--TEST--
A network storage whose server stopped mid-traffic and started again on the same port: the same process recovers after its backoff, without restarting PHP
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/faults.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;

$dir = sys_get_temp_dir() . '/cb-faults-restarted-' . getmypid();
$port = start_store($dir);
try {
    $listener = new RecordingListener();
    $stopped = new CircuitBreaker('stopped', configuration(minimum: 1000), storage(target_at("127.0.0.1:$port"), timeout: 0.05), $listener);
    [$permitted, $failures] = traffic($stopped, $listener, 5);
    echo "before the stop: $permitted of 5 permitted, $failures StorageFailed\n";
    stop_store($dir, $port);
    [, $failures] = traffic($stopped, $listener, 20);
    echo "stopped: ", $failures > 0 ? 'StorageFailed' : 'no StorageFailed', "\n";
    start_store($dir, $port);
    wait_for_recovery($stopped, $listener);
    [$permitted, $failures] = traffic($stopped, $listener, 5);
    echo "restarted: $permitted of 5 permitted, $failures StorageFailed, state ", $stopped->getState()->value, "\n";
} finally {
    stop_store($dir, $port);
    exec('rm -rf ' . escapeshellarg($dir));
}
?>
--EXPECT--
before the stop: 5 of 5 permitted, 0 StorageFailed
stopped: StorageFailed
restarted: 5 of 5 permitted, 0 StorageFailed, state closed
