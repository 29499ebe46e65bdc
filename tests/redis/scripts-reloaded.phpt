--TEST--
RedisStorage calls its scripts by SHA and loads them again when the server forgot them (SCRIPT FLUSH): the transitions after it run, with no StorageFailed
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$clock = new MockClock(microtime(true));
$listener = new RecordingListener();
$breaker = new CircuitBreaker('payments', configuration(), new RedisStorage(redis_env('CB_REDIS_DSN'), 'scripts-' . getmypid() . ':'), $listener, $clock);
repeat(4, fn () => $breaker->registerFailure()); // opens: the scripts are loaded
echo $breaker->getState()->value, "\n";
resp(redis_env('CB_REDIS_ADDRESS'), ['SCRIPT', 'FLUSH'], redis_env('CB_REDIS_PASSWORD'));
$clock->sleep(10);
var_dump($breaker->acquirePermission()); // half-opens
$breaker->registerSuccess(); // closes
echo $breaker->getState()->value, ', ', implode(' ', $listener->names()), ', ', count(storage_failures($listener)), " StorageFailed\n";
?>
--EXPECT--
open
bool(true)
closed, CircuitOpened CircuitHalfOpened CircuitClosed, 0 StorageFailed
