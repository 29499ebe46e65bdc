--TEST--
RedisStorage failing: refused, paused (SIGSTOP) and stopped mid-traffic, every call is permitted within the timeout with StorageFailed, getState() throws, and the storage recovers without restarting PHP
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

/** Runs $calls protected calls; returns [permitted, storage failures, slowest call in ms]. */
function traffic(CircuitBreaker $breaker, RecordingListener $listener, int $calls): array
{
    $listener->events = [];
    $permitted = 0;
    $slowest = 0.0;
    for ($i = 0; $i < $calls; $i++) {
        $started = hrtime(true);
        if ($breaker->acquirePermission()) {
            $permitted++;
            $breaker->registerFailure();
        }
        $slowest = max($slowest, (hrtime(true) - $started) / 1e6);
    }
    $failures = count(array_filter($listener->events, fn ($event) => $event instanceof StorageFailed));
    return [$permitted, $failures, $slowest];
}

// Refused: nothing listens on that port.
$listener = new RecordingListener();
// Port 1: nothing listens there.
$refused = new CircuitBreaker('faults', configuration(minimum: 1000), new RedisStorage('redis://127.0.0.1:1', timeout: 0.05), $listener);
[$permitted, $failures, $slowest] = traffic($refused, $listener, 20);
printf("refused: %d of 20 permitted, StorageFailed: %s, within the timeout: %s\n", $permitted, $failures > 0 ? 'yes' : 'no', $slowest < 50 + 20 ? 'yes' : "no ($slowest ms)");
try {
    $refused->getState();
} catch (StorageException $e) {
    echo "getState(): ", get_class($e), "\n";
}

// Paused: the server accepts nothing and answers nothing.
$listener = new RecordingListener();
$paused = new CircuitBreaker('faults-' . getmypid(), configuration(minimum: 1000), new RedisStorage(redis_env('CB_REDIS_DSN'), timeout: 0.05), $listener);
traffic($paused, $listener, 5); // connected and healthy
exec('kill -STOP ' . (int) redis_env('CB_REDIS_PID'));
try {
    [$permitted, $failures, $slowest] = traffic($paused, $listener, 20);
} finally {
    exec('kill -CONT ' . (int) redis_env('CB_REDIS_PID'));
}
printf("paused: %d of 20 permitted, StorageFailed: %s, within the timeout: %s\n", $permitted, $failures > 0 ? 'yes' : 'no', $slowest < 2 * 50 + 30 ? 'yes' : "no ($slowest ms)");
// Back: after the backoff, the same process recovers.
usleep(400_000);
[$permitted, $failures] = traffic($paused, $listener, 5);
printf("resumed: %d of 5 permitted, StorageFailed: %d, state %s\n", $permitted, $failures, $paused->getState()->value);

// Stopped mid-traffic, then started again on the same port.
$port = (int) redis_env('CB_REDIS_FREE_PORT');
$dir = sys_get_temp_dir() . '/cb-redis-' . getmypid();
@mkdir($dir);
$start = fn () => exec("cd $dir && redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile $dir/pid");
$start();
for ($i = 0; $i < 100 && @stream_socket_client("tcp://127.0.0.1:$port") === false; $i++) usleep(20_000);
$listener = new RecordingListener();
$stopped = new CircuitBreaker('stopped', configuration(minimum: 1000), new RedisStorage("redis://127.0.0.1:$port", timeout: 0.05), $listener);
[$permitted, $failures] = traffic($stopped, $listener, 5);
echo "before the stop: $permitted of 5 permitted, $failures StorageFailed\n";
try { resp("127.0.0.1:$port", ['SHUTDOWN', 'NOSAVE']); } catch (Throwable) {}
usleep(100_000);
[$permitted, $failures, $slowest] = traffic($stopped, $listener, 20);
printf("stopped: %d of 20 permitted, StorageFailed: %s, within the timeout: %s\n", $permitted, $failures > 0 ? 'yes' : 'no', $slowest < 50 + 20 ? 'yes' : "no ($slowest ms)");
$start();
for ($i = 0; $i < 100 && @stream_socket_client("tcp://127.0.0.1:$port") === false; $i++) usleep(20_000);
usleep(5_100_000); // the longest backoff
[$permitted, $failures] = traffic($stopped, $listener, 5);
echo "restarted: $permitted of 5 permitted, $failures StorageFailed, state ", $stopped->getState()->value, "\n";
try { resp("127.0.0.1:$port", ['SHUTDOWN', 'NOSAVE']); } catch (Throwable) {}
?>
--EXPECT--
refused: 20 of 20 permitted, StorageFailed: yes, within the timeout: yes
getState(): Zeusi\CircuitBreaker\Exception\StorageException
paused: 20 of 20 permitted, StorageFailed: yes, within the timeout: yes
resumed: 5 of 5 permitted, StorageFailed: 0, state closed
before the stop: 5 of 5 permitted, 0 StorageFailed
stopped: 20 of 20 permitted, StorageFailed: yes, within the timeout: yes
restarted: 5 of 5 permitted, 0 StorageFailed, state closed
