--TEST--
MemcachedStorage: a value another client wrote at one circuit's keys (a state or counters that do not parse) affects that circuit's call only: the connection is kept, the server is not backed off, every other circuit of the server keeps working, and the circuit itself heals
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
$prefix = 'poison' . run_id();
$storage = new MemcachedStorage($address, $prefix, timeout: 1.0);
$listeners = $breakers = [];
foreach (['victim-state', 'victim-counters', 'healthy-1', 'healthy-2', 'healthy-3', 'healthy-4'] as $service) {
    $listeners[$service] = new RecordingListener();
    $breakers[$service] = new CircuitBreaker($service, configuration(minimum: 4, timeWindow: 3600), $storage, $listeners[$service]);
    $breakers[$service]->acquirePermission();
    $breakers[$service]->registerSuccess();
    if ($service === 'victim-counters') {
        $breakers[$service]->registerFailure();
    }
}

// Another client writes over a state and counters, without a time to live.
memcached_overwrite($address, "{$prefix}cb:victim-state:s", 'garbage');
$counters = array_filter(memcached_keys($address), fn ($key) => str_starts_with($key, "{$prefix}cb:victim-counters:b:"));
foreach ($counters as $key) {
    memcached_overwrite($address, $key, 'not a number');
}
echo count($counters) > 0 ? "counters overwritten\n" : "no counter found\n";

$connections = (int) memcached_stats($address)['total_connections'];
$healthyCalls = 0;
for ($i = 0; $i < 50; $i++) {
    foreach ($breakers as $service => $breaker) {
        if (str_starts_with($service, 'victim')) {
            if ($breaker->acquirePermission()) {
                $breaker->registerFailure();
            }
            continue;
        }
        $healthyCalls += $breaker->acquirePermission() ? 1 : 0;
        $breaker->registerSuccess();
    }
}
// The reading of `stats` is one connection.
echo "connections opened meanwhile: ", (int) memcached_stats($address)['total_connections'] - $connections - 1, "\n";
$healthyFailures = array_sum(array_map(fn ($service) => count(storage_failures($listeners[$service])), ['healthy-1', 'healthy-2', 'healthy-3', 'healthy-4']));
echo "healthy circuits: $healthyCalls of 200 calls permitted, $healthyFailures StorageFailed\n";
foreach (['victim-state', 'victim-counters'] as $service) {
    $failures = storage_failures($listeners[$service]);
    echo "$service: ", count($failures), " StorageFailed", $failures === [] ? '' : ': ' . preg_replace('/:b:\d+:/', ':b:{bucket}:', str_replace($prefix, 'poison{run}', $failures[0])), "\n";
    echo "$service still protected: ", $breakers[$service]->getState()->value, "\n";
}
?>
--EXPECT--
counters overwritten
connections opened meanwhile: 0
healthy circuits: 200 of 200 calls permitted, 0 StorageFailed
victim-state: 1 StorageFailed: key poison{run}cb:victim-state:s held "garbage", which is not a circuit state: replaced by a closed state
victim-state still protected: open
victim-counters: 1 StorageFailed: key poison{run}cb:victim-counters:b:{bucket}:0:0 held "not a number", which is not a counter: replaced by 0
victim-counters still protected: open
