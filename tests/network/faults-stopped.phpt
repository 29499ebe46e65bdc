--TEST--
A network storage whose server stops mid-traffic (Redis SHUTDOWN, memcached killed): every call is permitted within the timeout with StorageFailed
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/faults.inc';

$dir = sys_get_temp_dir() . '/cb-faults-stopped-' . getmypid();
try {
    [$stopped, $listener] = stopped_mid_traffic($dir);
    [$permitted, $failures, $slowest] = traffic($stopped, $listener, 20);
    printf("stopped: %d of 20 permitted, StorageFailed: %s, within the timeout: %s\n", $permitted, $failures > 0 ? 'yes' : 'no', $slowest < 50 + 20 ? 'yes' : "no ($slowest ms)");
} finally {
    kill_store($dir);
    exec('rm -rf ' . escapeshellarg($dir));
}
?>
--EXPECT--
before the stop: 5 of 5 permitted, 0 StorageFailed
stopped: 20 of 20 permitted, StorageFailed: yes, within the timeout: yes
