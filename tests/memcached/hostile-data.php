<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$address = memcached_env('CB_MEMCACHED');
// Overwritten counters must be those the calls below count in.
wait_for_a_fresh_minute();
$run = getmypid();
$prefix = "hostile$run";
$stateKey = "{$prefix}cb:api:s";
$listener = new RecordingListener();
$breaker = new CircuitBreaker('api', configuration(minimum: 4, timeWindow: 3600), new MemcachedStorage($address, $prefix), $listener);

memcached_overwrite($address, $stateKey, "\x00garbage \r\nwith controls");
[, $ttl] = memcached_item($address, $stateKey);
echo "overwritten, time to live: $ttl\n";
var_dump($breaker->acquirePermission());
echo str_replace((string) $run, '{run}', implode("\n", storage_failures($listener))), "\n";
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
