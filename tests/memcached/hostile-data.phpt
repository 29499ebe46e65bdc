--TEST--
MemcachedStorage: hostile data heals: a state overwritten by another client (no time to live, and not a state) is replaced with a time to live by the next call, whose StorageFailed names the key and what it held; counters holding garbage are replaced and the circuit still counts and opens
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$address = memcached_env('CB_MEMCACHED');
// Overwritten counters must be those the calls below count in.
wait_for_a_fresh_minute();
$prefix = 'hostile' . run_id();
$stateKey = "{$prefix}cb:api:s";
$listener = new RecordingListener();
$breaker = new CircuitBreaker('api', configuration(minimum: 4, timeWindow: 3600), new MemcachedStorage($address, $prefix, timeout: 1.0), $listener);

memcached_overwrite($address, $stateKey, "\x00garbage \r\nwith controls");
[, $ttl] = memcached_item($address, $stateKey);
echo "overwritten, time to live: $ttl\n";
var_dump($breaker->acquirePermission());
echo str_replace($prefix, 'hostile{run}', implode("\n", storage_failures($listener))), "\n";
[$value, $ttl] = memcached_item($address, $stateKey);
echo "now holds a state: ", preg_match('/^\d:\d+:\d+$/', $value) ? 'yes' : "no ($value)", ", with a time to live: ", $ttl > 0 ? 'yes' : "no ($ttl)", "\n";

$listener->events = [];
repeat(2, fn () => $breaker->registerFailure());
foreach (array_filter(memcached_keys($address), fn ($key) => str_starts_with($key, "{$prefix}cb:api:") && $key !== $stateKey) as $key) {
    memcached_overwrite($address, $key, 'NaN');
}
repeat(4, fn () => $breaker->registerFailure());
echo "after failures over garbage counters: ", $breaker->getState()->value, ", StorageFailed: ", count(storage_failures($listener)), "\n";
[, $ttl] = memcached_item($address, $stateKey);
echo "open state with a time to live: ", $ttl > 0 ? 'yes' : "no ($ttl)", "\n";
?>
--EXPECT--
overwritten, time to live: -1
bool(true)
key hostile{run}cb:api:s held "\x00garbage \r\nwith controls", which is not a circuit state: replaced by a closed state
now holds a state: yes, with a time to live: yes
after failures over garbage counters: open, StorageFailed: 0
open state with a time to live: yes
