--TEST--
MemcachedStorage: a circuit opens, rejects, tests the service and closes; any service name is a valid key
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$prefix = 'semantics-' . getmypid() . ':';
$names = ['payments', "with space\tand tab", "\x00\x01\xff binary", str_repeat('long-', 80), '{braces}'];
foreach ($names as $name) {
    $clock = new MockClock(microtime(true));
    $listener = new RecordingListener();
    $breaker = new CircuitBreaker($name, configuration(), new MemcachedStorage(memcached_env('CB_MEMCACHED'), $prefix), $listener, $clock);
    $other = new CircuitBreaker($name, configuration(), new MemcachedStorage(servers: memcached_env('CB_MEMCACHED'), prefix: $prefix), $listener, $clock);
    repeat(2, fn () => $breaker->registerSuccess(0.1));
    repeat(2, fn () => $other->registerFailure());
    $states = $breaker->getState()->value . '/' . $other->getState()->value;
    $rejected = !$breaker->acquirePermission();
    $clock->sleep(10);
    $trial = [$breaker->acquirePermission(), $other->acquirePermission()];
    $breaker->registerSuccess();
    printf("%s: %s, rejected %s, trial %s, then %s; %s\n", substr(bin2hex($name), 0, 8), $states, $rejected ? 'yes' : 'no',
        json_encode($trial), $other->getState()->value, implode(' ', $listener->names()));
}
$keys = memcached_keys(memcached_env('CB_MEMCACHED'));
$ours = array_filter($keys, fn ($key) => str_starts_with($key, 'semantics-'));
echo count($ours) > 0 && max(array_map('strlen', $ours)) <= 250 ? "keys fit memcached\n" : "bad keys\n";
?>
--EXPECT--
7061796d: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
77697468: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
0001ff20: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
6c6f6e67: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
7b627261: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
keys fit memcached
