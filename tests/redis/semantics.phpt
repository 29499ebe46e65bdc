--TEST--
RedisStorage: a circuit opens, rejects, tests the service and closes, shared by breaker objects of any process
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$prefix = 'semantics-' . getmypid() . ':';
$clock = new MockClock(microtime(true));
$listener = new RecordingListener();
$breaker = new CircuitBreaker('payments', configuration(), new RedisStorage(redis_env('CB_REDIS_DSN'), $prefix), $listener, $clock);
$other = new CircuitBreaker('payments', configuration(), new RedisStorage(dsn: redis_env('CB_REDIS_DSN'), prefix: $prefix), $listener, $clock);
repeat(2, fn () => $breaker->registerSuccess(0.1));
repeat(2, fn () => $other->registerFailure());
echo $breaker->getState()->value, ' ', $other->getState()->value, "\n";
var_dump($breaker->acquirePermission());
// Scripts are called by SHA and loaded again when the server forgot them.
resp(redis_env('CB_REDIS_ADDRESS'), ['SCRIPT', 'FLUSH'], redis_env('CB_REDIS_PASSWORD'));
$clock->sleep(10);
var_dump($breaker->acquirePermission(), $other->acquirePermission());
$breaker->registerSuccess();
echo $other->getState()->value, "\n";
echo implode(' ', $listener->names()), "\n";
$other = new CircuitBreaker('payments', configuration(), new RedisStorage(redis_env('CB_REDIS_DSN'), 'another:'), null, $clock);
echo 'another prefix: ', $other->getState()->value, "\n";
// Every key has a time to live.
$address = redis_env('CB_REDIS_ADDRESS');
$keys = resp($address, ['KEYS', "$prefix*"], redis_env('CB_REDIS_PASSWORD'));
$ttls = array_map(fn ($key) => resp($address, ['PTTL', $key], redis_env('CB_REDIS_PASSWORD')), $keys);
echo count($keys), ' keys, all with a TTL: ', min($ttls) > 0 ? 'yes' : 'no', "\n";
?>
--EXPECTF--
open open
bool(false)
bool(true)
bool(false)
closed
CircuitOpened CircuitHalfOpened CircuitClosed
another prefix: closed
%d keys, all with a TTL: yes
