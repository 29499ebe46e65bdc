--TEST--
MemcachedStorage failing: refused, paused (SIGSTOP) and stopped mid-traffic, every call is permitted within the timeout with StorageFailed, getState() throws, and the storage recovers without restarting PHP
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

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
    return [$permitted, count(array_filter($listener->events, fn ($event) => $event instanceof StorageFailed)), $slowest];
}

$listener = new RecordingListener();
// Port 1: nothing listens there.
$refused = new CircuitBreaker('faults', configuration(minimum: 1000), new MemcachedStorage('127.0.0.1:1'), $listener);
[$permitted, $failures, $slowest] = traffic($refused, $listener, 20);
printf("refused: %d of 20 permitted, StorageFailed: %s, within the timeout: %s\n", $permitted, $failures > 0 ? 'yes' : 'no', $slowest < 70 ? 'yes' : "no ($slowest ms)");
try {
    $refused->getState();
} catch (StorageException $e) {
    echo "getState(): ", get_class($e), "\n";
}

$listener = new RecordingListener();
$paused = new CircuitBreaker('faults-' . getmypid(), configuration(minimum: 1000), new MemcachedStorage(memcached_env('CB_MEMCACHED')), $listener);
traffic($paused, $listener, 5);
exec('kill -STOP ' . (int) memcached_env('CB_MEMCACHED_PID'));
try {
    [$permitted, $failures, $slowest] = traffic($paused, $listener, 20);
} finally {
    exec('kill -CONT ' . (int) memcached_env('CB_MEMCACHED_PID'));
}
printf("paused: %d of 20 permitted, StorageFailed: %s, within the timeout: %s\n", $permitted, $failures > 0 ? 'yes' : 'no', $slowest < 2 * 50 + 30 ? 'yes' : "no ($slowest ms)");
usleep(400_000);
[$permitted, $failures] = traffic($paused, $listener, 5);
printf("resumed: %d of 5 permitted, StorageFailed: %d, state %s\n", $permitted, $failures, $paused->getState()->value);

$port = (int) memcached_env('CB_MEMCACHED_FREE_PORT');
$start = fn () => exec("memcached -l 127.0.0.1 -p $port -U 0 -u " . escapeshellarg(get_current_user() === 'root' ? 'root' : get_current_user()) . " -d -P /tmp/cb-memcached-$port.pid");
$start();
register_shutdown_function(fn () => exec("kill -KILL \$(cat /tmp/cb-memcached-$port.pid) 2>/dev/null"));
for ($i = 0; $i < 100 && @stream_socket_client("tcp://127.0.0.1:$port") === false; $i++) usleep(20_000);
$listener = new RecordingListener();
$stopped = new CircuitBreaker('stopped', configuration(minimum: 1000), new MemcachedStorage("127.0.0.1:$port"), $listener);
[$permitted, $failures] = traffic($stopped, $listener, 5);
echo "before the stop: $permitted of 5 permitted, $failures StorageFailed\n";
// Killed: memcached finishes open connections on SIGTERM.
exec("kill -KILL \$(cat /tmp/cb-memcached-$port.pid)");
usleep(200_000);
[$permitted, $failures, $slowest] = traffic($stopped, $listener, 20);
printf("stopped: %d of 20 permitted, StorageFailed: %s, within the timeout: %s\n", $permitted, $failures > 0 ? 'yes' : 'no', $slowest < 70 ? 'yes' : "no ($slowest ms)");
$start();
for ($i = 0; $i < 100 && @stream_socket_client("tcp://127.0.0.1:$port") === false; $i++) usleep(20_000);
usleep(5_100_000);
[$permitted, $failures] = traffic($stopped, $listener, 5);
echo "restarted: $permitted of 5 permitted, $failures StorageFailed, state ", $stopped->getState()->value, "\n";
exec("kill -KILL \$(cat /tmp/cb-memcached-$port.pid)");
?>
--EXPECT--
refused: 20 of 20 permitted, StorageFailed: yes, within the timeout: yes
getState(): Zeusi\CircuitBreaker\Exception\StorageException
paused: 20 of 20 permitted, StorageFailed: yes, within the timeout: yes
resumed: 5 of 5 permitted, StorageFailed: 0, state closed
before the stop: 5 of 5 permitted, 0 StorageFailed
stopped: 20 of 20 permitted, StorageFailed: yes, within the timeout: yes
restarted: 5 of 5 permitted, 0 StorageFailed, state closed
