--TEST--
RedisStorage over TLS (rediss://, certificate made by the test) and with a password; a wrong password fails open
--SKIPIF--
<?php if (!getenv('CB_REDIS_TLS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$tls = new CircuitBreaker('tls-' . getmypid(), configuration(), new RedisStorage(redis_env('CB_REDIS_TLS_DSN'), timeout: 1.0), $listener = new RecordingListener());
repeat(4, fn () => $tls->registerFailure());
echo "over TLS: ", $tls->getState()->value, ", ", count($listener->events) - 1, " storage failures\n";
// The peek before each use reads no TLS record as a closed connection.
$tlsAddress = substr(redis_env('CB_REDIS_TLS_DSN'), strlen('rediss://'));
$opened = fn () => (int) preg_replace('/.*total_connections_received:(\d+).*/s', '$1', resp_tls($tlsAddress, ['INFO', 'stats']));
$before = $opened();
repeat(10, fn () => $tls->getState());
echo "connections opened for 10 more calls: ", $opened() - $before - 1, "\n";

$address = redis_env('CB_REDIS_ADDRESS');
$wrong = new CircuitBreaker('auth', configuration(), new RedisStorage("redis://:wrong@$address"), $listener = new RecordingListener());
var_dump($wrong->acquirePermission());
$event = $listener->events[0];
echo get_class($event), ': ', str_contains($event->exception->getMessage(), 'authentication failed') ? 'authentication refused' : $event->exception->getMessage(), "\n";
?>
--EXPECT--
over TLS: open, 0 storage failures
connections opened for 10 more calls: 0
bool(true)
Zeusi\CircuitBreaker\Event\StorageFailed: authentication refused
