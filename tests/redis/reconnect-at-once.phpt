--TEST--
RedisStorage: a connection the server closed (restart, idle timeout) is opened again at once, before anything is sent on it: the next call succeeds, with no StorageFailed
--SKIPIF--
<?php if (!getenv('CB_REDIS_RESTART_PORT')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
// A timeout of 1 s: a loaded machine must not make these calls time out.
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$port = (int) redis_env('CB_REDIS_RESTART_PORT');
$dir = sys_get_temp_dir() . '/cb-redis-restart-' . getmypid();
start_redis_server($port, $dir);
try {
    $breaker = new CircuitBreaker('restart', configuration(minimum: 1000), new RedisStorage("redis://127.0.0.1:$port", timeout: 1.0), $listener = new RecordingListener());
    $calls = function (int $count) use ($breaker) {
        for ($i = 0; $i < $count; $i++) {
            if ($breaker->acquirePermission()) {
                $breaker->registerFailure();
            }
        }
    };
    $calls(5);
    echo "before: ", count(storage_failures($listener)), " StorageFailed\n";

    // Restarted: SHUTDOWN NOSAVE, then started again on the same port.
    stop_redis_server($port);
    start_redis_server($port, $dir);
    $calls(5);
    echo "after a restart: ", count(storage_failures($listener)), " StorageFailed\n";

    // An idle connection closed by the server (its `timeout` setting).
    resp("127.0.0.1:$port", ['CONFIG', 'SET', 'timeout', '1']);
    sleep(2);
    $calls(5);
    echo "after the server closed the idle connection: ", count(storage_failures($listener)), " StorageFailed\n";
    echo "outcomes counted: ", resp("127.0.0.1:$port", ['KEYS', 'cb:{restart}:b:*']) !== [] ? 'yes' : 'no', "\n";
    foreach (storage_failures($listener) as $event) {
        echo $event->exception->getMessage(), "\n";
    }
} finally {
    stop_redis_server($port);
}
?>
--EXPECT--
before: 0 StorageFailed
after a restart: 0 StorageFailed
after the server closed the idle connection: 0 StorageFailed
outcomes counted: yes
