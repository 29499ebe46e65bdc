--TEST--
RedisStorage on a 3-master Redis Cluster: the keys of a service share one slot, and the circuit works across the cluster
--SKIPIF--
<?php if (!getenv('CB_REDIS_CLUSTER')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$nodes = explode(',', redis_env('CB_REDIS_CLUSTER'));
$clock = new MockClock(microtime(true));
$listener = new RecordingListener();
$slots = [];
foreach (['payments', 'inventory', 'shipping {eu}', "binary \xff"] as $service) {
    $breaker = new CircuitBreaker($service, configuration(), new RedisStorage($nodes, 'cluster:', 0.5), $listener, $clock);
    repeat(4, fn () => $breaker->registerFailure());
    $state = $breaker->getState()->value;
    $clock->sleep(10);
    $permitted = $breaker->acquirePermission();
    $breaker->registerSuccess();
    printf("%s: %s, trial %s, then %s\n", bin2hex($service) === bin2hex("binary \xff") ? 'binary' : $service, $state, $permitted ? 'permitted' : 'rejected', $breaker->getState()->value);
}
// Each service's keys live on one slot; the services spread over the masters.
$address = substr($nodes[0], strlen('redis://'));
foreach (['payments', 'inventory'] as $service) {
    $state = resp($address, ['CLUSTER', 'KEYSLOT', "cluster:cb:{{$service}}:s"]);
    $window = resp($address, ['CLUSTER', 'KEYSLOT', "cluster:cb:{{$service}}:w"]);
    echo "$service: ", $state === $window ? 'one slot' : 'split', "\n";
}

// A slot moved to another master after the slot map was read: the old
// master answers MOVED, the call follows it, and the map is read again.
$moved = 'moved-' . getmypid();
$slot = resp($address, ['CLUSTER', 'KEYSLOT', "cluster:cb:{{$moved}}:s"]);
$masters = [];
foreach (resp($address, ['CLUSTER', 'SLOTS']) as [$first, $last, $master]) {
    $masters["$master[0]:$master[1]"] = $master[2];
    if ($slot >= $first && $slot <= $last) {
        $owner = "$master[0]:$master[1]";
    }
}
$target = array_key_first(array_diff_key($masters, [$owner => true]));
foreach (array_unique([$target, $owner, ...array_keys($masters)]) as $node) {
    resp($node, ['CLUSTER', 'SETSLOT', $slot, 'NODE', $masters[$target]]);
}
$breaker = new CircuitBreaker($moved, configuration(), new RedisStorage($nodes, 'cluster:', 0.5), $listener, $clock);
repeat(4, fn () => $breaker->registerFailure());
echo "moved slot: ", $breaker->getState()->value, ", keys on the new master: ", count(resp($target, ['KEYS', "cluster:cb:{{$moved}}:*"])) > 0 ? 1 : 0, "\n";
echo count(array_filter($listener->events, fn ($e) => $e instanceof Zeusi\CircuitBreaker\Event\CircuitOpened)), " openings, ",
    count(array_filter($listener->events, fn ($e) => $e instanceof Zeusi\CircuitBreaker\Event\StorageFailed)), " storage failures\n";
?>
--EXPECT--
payments: open, trial permitted, then closed
inventory: open, trial permitted, then closed
shipping {eu}: open, trial permitted, then closed
binary: open, trial permitted, then closed
payments: one slot
inventory: one slot
moved slot: open, keys on the new master: 1
5 openings, 0 storage failures
