--TEST--
A network storage whose server stopped mid-traffic and started again on the same port: the same process recovers after its backoff, without restarting PHP
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/faults.inc';

$dir = sys_get_temp_dir() . '/cb-faults-restarted-' . getmypid();
try {
    [$stopped, $listener, $port] = stopped_mid_traffic($dir);
    [, $failures] = traffic($stopped, $listener, 20);
    echo "stopped: ", $failures > 0 ? 'StorageFailed' : 'no StorageFailed', "\n";
    start_store($dir, $port);
    wait_for_recovery($stopped, $listener);
    [$permitted, $failures] = traffic($stopped, $listener, 5);
    echo "restarted: $permitted of 5 permitted, $failures StorageFailed, state ", $stopped->getState()->value, "\n";
} finally {
    kill_store($dir);
    exec('rm -rf ' . escapeshellarg($dir));
}
?>
--EXPECT--
before the stop: 5 of 5 permitted, 0 StorageFailed
stopped: StorageFailed
restarted: 5 of 5 permitted, 0 StorageFailed, state closed
