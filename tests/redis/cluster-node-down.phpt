--TEST--
RedisStorage on a Redis Cluster with one master paused (SIGSTOP), then killed: circuits on the other masters keep working with no StorageFailed, circuits on that master fail open within the deadline, and recover once it is back
--SKIPIF--
<?php if (!getenv('CB_REDIS_FAULTY_CLUSTER')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$nodes = explode(',', redis_env('CB_REDIS_FAULTY_CLUSTER'));
$pids = explode(',', redis_env('CB_REDIS_FAULTY_CLUSTER_PIDS'));
$ports = array_map(fn ($node) => (int) substr($node, strrpos($node, ':') + 1), $nodes);
$victim = 2;
$slotMap = resp("127.0.0.1:{$ports[0]}", ['CLUSTER', 'SLOTS']);
$ownerOf = function (int $slot) use ($slotMap, $ports): int {
    foreach ($slotMap as [$first, $last, $master]) {
        if ($slot >= $first && $slot <= $last) {
            return array_search((int) $master[1], $ports, true);
        }
    }
    throw new RuntimeException("no master for slot $slot");
};

// Two services on each master.
$breakers = [[], [], []];
$listeners = [new RecordingListener(), new RecordingListener(), new RecordingListener()];
for ($i = 0; min(array_map('count', $breakers)) < 2; $i++) {
    $service = "service-$i";
    $node = $ownerOf(resp("127.0.0.1:{$ports[0]}", ['CLUSTER', 'KEYSLOT', "faulty:cb:{{$service}}:s"]));
    if (count($breakers[$node]) < 2) {
        $breakers[$node][] = new CircuitBreaker($service, configuration(minimum: 1000), new RedisStorage($nodes, 'faulty:', 0.05), $listeners[$node]);
    }
}

/** Calls every service for $seconds; returns, per master, [StorageFailed, slowest call in ms]. */
function traffic(array $breakers, array $listeners, float $seconds): array
{
    foreach ($listeners as $listener) {
        $listener->events = [];
    }
    $slowest = [0.0, 0.0, 0.0];
    $end = microtime(true) + $seconds;
    while (microtime(true) < $end) {
        foreach ($breakers as $node => $group) {
            foreach ($group as $breaker) {
                $started = hrtime(true);
                if ($breaker->acquirePermission()) {
                    $breaker->registerSuccess();
                }
                $slowest[$node] = max($slowest[$node], (hrtime(true) - $started) / 1e6);
            }
        }
        usleep(5_000);
    }
    return array_map(fn ($node) => [count(storage_failures($listeners[$node])), $slowest[$node]], [0, 1, 2]);
}

function report(string $when, array $result, int $victim): void
{
    [$healthy1, $healthy2] = array_values(array_diff_key($result, [$victim => true]));
    [$failures, $slowest] = $result[$victim];
    // A stall of a loaded machine may cost a healthy call its deadline now
    // and then: the old code failed every call of every master (hundreds).
    printf("%s: other masters %d and %d StorageFailed, at most a stall or two: %s; its services: %s, slowest call %.0f ms, within 2 x the timeout: %s\n",
        $when, $healthy1[0], $healthy2[0], $healthy1[0] + $healthy2[0] <= 2 ? 'yes' : 'no', $failures > 0 ? 'fail open' : 'no StorageFailed', $slowest, $slowest < 2 * 50 ? 'yes' : 'no');
}

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
exec('kill -KILL ' . (int) $pids[$victim]);
usleep(100_000);
report('one master killed', traffic($breakers, $listeners, 1.0), $victim);
?>
--EXPECTF--
healthy: other masters %d and %d StorageFailed, at most a stall or two: yes; its services: no StorageFailed, slowest call %d ms, within 2 x the timeout: yes
one master paused: other masters %d and %d StorageFailed, at most a stall or two: yes; its services: fail open, slowest call %d ms, within 2 x the timeout: yes
resumed: its services recovered: yes
healthy again: other masters %d and %d StorageFailed, at most a stall or two: yes; its services: no StorageFailed, slowest call %d ms, within 2 x the timeout: yes
one master killed: other masters %d and %d StorageFailed, at most a stall or two: yes; its services: fail open, slowest call %d ms, within 2 x the timeout: yes
