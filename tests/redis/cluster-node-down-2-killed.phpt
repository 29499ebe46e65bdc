--TEST--
RedisStorage on a Redis Cluster with one master killed: circuits on the other masters keep working with no StorageFailed, circuits on that master fail open within the deadline
--SKIPIF--
<?php if (!getenv('CB_REDIS_FAULTY_CLUSTER')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/cluster-node-down.inc';

report('healthy', traffic($breakers, $listeners, 0.3), $victim);
$pid = (int) $pids[$victim];
exec("kill -KILL $pid");
// Gone, its connections closed, not only signalled.
for ($i = 0; $i < 500 && file_exists("/proc/$pid"); $i++) {
    usleep(10_000);
}
report('one master killed', traffic($breakers, $listeners, 1.0), $victim);
?>
--EXPECTF--
healthy: other masters %d and %d StorageFailed, at most a stall or two: yes; its services: no StorageFailed, slowest call %d ms, within 2 x the timeout: yes
one master killed: other masters %d and %d StorageFailed, at most a stall or two: yes; its services: fail open, slowest call %d ms, within 2 x the timeout: yes
