--TEST--
A network storage: a connection the server closed (the server stopped and started again) is opened again at once, before anything is sent on it: the next call succeeds, with no StorageFailed
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Event\StorageFailed;

$dir = sys_get_temp_dir() . '/cb-reconnect-' . getmypid();
$port = start_store($dir);
try {
    // What is tested is the reconnection, not how fast: a loaded machine
    // may take longer than the default 50 ms for a round trip.
    $breaker = new CircuitBreaker('reconnect', configuration(minimum: 1000), storage(target_at("127.0.0.1:$port"), timeout: 2.0), $listener = new RecordingListener());
    // A permitted call fails: an outcome the store counts.
    $call = fn () => $breaker->acquirePermission() ? $breaker->registerFailure() : null;
    repeat(5, $call);
    echo "before: ", count(storage_failures($listener)), " StorageFailed\n";
    // Redis at SHUTDOWN NOSAVE, memcached killed; started again on the same port.
    stop_store($dir, $port);
    start_store($dir, $port);
    repeat(5, $call);
    echo "after a restart: ", count(storage_failures($listener)), " StorageFailed\n";
    foreach ($listener->events as $event) {
        if ($event instanceof StorageFailed) {
            echo $event->exception->getMessage(), "\n";
        }
    }
    $counted = match (store()) {
        'redis' => resp("127.0.0.1:$port", ['KEYS', 'cb:{reconnect}:b:*']) !== [],
        // Items the server holds: `stats` counts them all, where the LRU
        // crawler's metadump may miss items just written (it once did).
        'memcached' => (int) memcached_stats("127.0.0.1:$port")['curr_items'] > 0,
    };
    echo "outcomes counted: ", $counted ? 'yes' : 'no', "\n";
} finally {
    stop_store($dir, $port);
    exec('rm -rf ' . escapeshellarg($dir));
}
?>
--EXPECT--
before: 0 StorageFailed
after a restart: 0 StorageFailed
outcomes counted: yes
