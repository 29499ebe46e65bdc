--TEST--
RedisStorage: a connection the server closed for being idle (its `timeout` setting) is opened again at once, before anything is sent on it: the next call succeeds, with no StorageFailed
--SKIPIF--
<?php if (!getenv('CB_REDIS_RESTART_PORT')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$port = (int) redis_env('CB_REDIS_RESTART_PORT');
$dir = sys_get_temp_dir() . '/cb-redis-idle-' . getmypid();
start_redis_server($port, $dir);
try {
    // A timeout of 1 s: a loaded machine must not make these calls time out.
    $breaker = new CircuitBreaker('idle', configuration(minimum: 1000), new RedisStorage("redis://127.0.0.1:$port", timeout: 1.0), $listener = new RecordingListener());
    // A permitted call fails: an outcome the store counts.
    $call = fn () => $breaker->acquirePermission() ? $breaker->registerFailure() : null;
    repeat(5, $call);
    echo "before: ", count(storage_failures($listener)), " StorageFailed\n";

    // The shortest idle timeout Redis takes, 1 s; the server closes the
    // breaker's connection once it is idle that long. Waits until it did:
    // the only client left is the one asking (5 s at most).
    resp("127.0.0.1:$port", ['CONFIG', 'SET', 'timeout', '1']);
    $clients = fn () => preg_match('/^connected_clients:(\d+)/m', resp("127.0.0.1:$port", ['INFO', 'clients']), $match) ? (int) $match[1] : -1;
    for ($i = 0; $i < 250 && $clients() !== 1; $i++) {
        usleep(20_000);
    }
    echo "the server closed the idle connection: ", $clients() === 1 ? 'yes' : 'no', "\n";
    repeat(5, $call);
    echo "after the server closed the idle connection: ", count(storage_failures($listener)), " StorageFailed\n";
    echo "outcomes counted: ", resp("127.0.0.1:$port", ['KEYS', 'cb:{idle}:b:*']) !== [] ? 'yes' : 'no', "\n";
    foreach (storage_failures($listener) as $event) {
        echo $event->exception->getMessage(), "\n";
    }
} finally {
    stop_redis_server($port);
    exec('rm -rf ' . escapeshellarg($dir));
}
?>
--EXPECT--
before: 0 StorageFailed
the server closed the idle connection: yes
after the server closed the idle connection: 0 StorageFailed
outcomes counted: yes
