--TEST--
A network storage: a circuit opens, rejects, tests the service and closes, shared by breaker objects of any process; any service name is a valid key; a prefix keeps circuits apart; every key has a time to live
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$prefix = 'semantics-' . getmypid() . ':';
$names = ['payments', "with space\tand tab", "\x00\x01\xff binary", str_repeat('long-', 80), '{braces}'];
foreach ($names as $name) {
    $clock = new MockClock(microtime(true));
    $listener = new RecordingListener();
    $breaker = new CircuitBreaker($name, configuration(), storage(shared_target(), $prefix), $listener, $clock);
    // Another object, as another process makes it (with the constructor's
    // named arguments, which differ).
    $otherStorage = match (store()) {
        'redis' => new RedisStorage(dsn: shared_target(), prefix: $prefix),
        'memcached' => new MemcachedStorage(servers: shared_target(), prefix: $prefix),
    };
    $other = new CircuitBreaker($name, configuration(), $otherStorage, $listener, $clock);
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
$another = new CircuitBreaker('payments', configuration(), storage(shared_target(), 'another:'), null, $clock);
echo 'another prefix: ', $another->getState()->value, "\n";

// Every key has a time to live; Memcached's keys fit its 250 bytes.
$address = shared_address();
[$keys, $ttls] = match (store()) {
    'redis' => [
        $keys = resp($address, ['KEYS', "$prefix*"], shared_password()),
        array_map(fn ($key) => resp($address, ['PTTL', $key], shared_password()), $keys),
    ],
    'memcached' => [
        // The prefix's ":" is escaped in Memcached's keys.
        $keys = array_values(array_filter(memcached_keys($address), fn ($key) => str_starts_with($key, 'semantics-' . getmypid()))),
        array_map(fn ($key) => memcached_item($address, $key)[1] ?? 0, $keys),
    ],
};
echo count($keys) > 0 ? 'keys' : 'no keys', ', all with a TTL: ', $keys !== [] && min($ttls) > 0 ? 'yes' : 'no', "\n";
$fit = match (store()) {
    'redis' => true, // any length
    'memcached' => $keys !== [] && max(array_map('strlen', $keys)) <= 250,
};
echo 'keys fit the store: ', $fit ? 'yes' : 'no', "\n";
?>
--EXPECT--
7061796d: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
77697468: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
0001ff20: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
6c6f6e67: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
7b627261: open/open, rejected yes, trial [true,false], then closed; CircuitOpened CircuitHalfOpened CircuitClosed
another prefix: closed
keys, all with a TTL: yes
keys fit the store: yes
