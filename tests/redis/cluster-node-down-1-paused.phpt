--TEST--
RedisStorage on a Redis Cluster with one master paused (SIGSTOP): circuits on the other masters keep working with no StorageFailed, circuits on that master fail open within the deadline, and recover once it is back
--SKIPIF--
<?php if (!getenv('CB_REDIS_FAULTY_CLUSTER')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/cluster-node-down.inc';

report('healthy', traffic($breakers, $listeners, 0.3), $victim);
exec('kill -STOP ' . (int) $pids[$victim]);
try {
    // Shorter than the cluster's node timeout (2 s): the others do not mark it failed.
    report('one master paused', traffic($breakers, $listeners, 1.5), $victim);
} finally {
    exec('kill -CONT ' . (int) $pids[$victim]);
}
$recovered = false;
for ($round = 0; $round < 40 && !$recovered; $round++) {
    $recovered = traffic($breakers, $listeners, 0.2)[$victim][0] === 0;
}
echo "resumed: its services recovered: ", $recovered ? 'yes' : 'no', "\n";
report('healthy again', traffic($breakers, $listeners, 0.3), $victim);
?>
--EXPECTF--
healthy: other masters %d and %d StorageFailed, at most a stall or two: yes; its services: no StorageFailed, slowest call %d ms, within 2 x the timeout: yes
one master paused: other masters %d and %d StorageFailed, at most a stall or two: yes; its services: fail open, slowest call %d ms, within 2 x the timeout: yes
resumed: its services recovered: yes
healthy again: other masters %d and %d StorageFailed, at most a stall or two: yes; its services: no StorageFailed, slowest call %d ms, within 2 x the timeout: yes
