--TEST--
MemcachedStorage: a worker remembers until when a circuit is open, so rejected calls do not reach Memcached (even a paused one)
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$listener = new RecordingListener();
$service = 'open-' . getmypid();
$breaker = new CircuitBreaker($service, configuration(openDuration: 60), new MemcachedStorage(memcached_env('CB_MEMCACHED')), $listener);
repeat(4, fn () => $breaker->registerFailure());
var_dump($breaker->acquirePermission()); // reads the open state once
exec('kill -STOP ' . (int) memcached_env('CB_MEMCACHED_PID'));
try {
    $listener->events = [];
    $started = hrtime(true);
    // A new breaker object, as in the next request of the same worker.
    $next = new CircuitBreaker($service, configuration(openDuration: 60), new MemcachedStorage(memcached_env('CB_MEMCACHED')), $listener);
    $rejected = 0;
    for ($i = 0; $i < 100; $i++) {
        $rejected += $next->acquirePermission() ? 0 : 1;
    }
    $elapsed = (hrtime(true) - $started) / 1e6;
} finally {
    exec('kill -CONT ' . (int) memcached_env('CB_MEMCACHED_PID'));
}
echo "$rejected of 100 rejected, ", count(array_filter($listener->events, fn ($e) => $e instanceof Zeusi\CircuitBreaker\Event\StorageFailed)), " storage failures, ",
    $elapsed < 50 ? 'without waiting on Memcached' : "in $elapsed ms", "\n";
?>
--EXPECT--
bool(false)
100 of 100 rejected, 0 storage failures, without waiting on Memcached
