--TEST--
MemcachedStorage: a connection the server closed (memcached killed and started again) is opened again at once, before anything is sent on it: the next call succeeds, with no StorageFailed
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

// A free port of this test's own server.
$probe = stream_socket_server('tcp://127.0.0.1:0');
$port = (int) explode(':', stream_socket_get_name($probe, false))[1];
fclose($probe);
$pidFile = sys_get_temp_dir() . "/cb-memcached-reconnect-$port.pid";
$start = function () use ($port, $pidFile) {
    exec("memcached -l 127.0.0.1 -p $port -U 0 -u " . escapeshellarg(get_current_user()) . " -d -P $pidFile");
    for ($i = 0; $i < 250 && @stream_socket_client("tcp://127.0.0.1:$port") === false; $i++) {
        usleep(20_000);
    }
};
$kill = function () use ($port, $pidFile) {
    for ($i = 0; $i < 250 && !is_file($pidFile); $i++) {
        usleep(20_000);
    }
    $pid = (int) file_get_contents($pidFile);
    exec("kill -KILL $pid");
    @unlink($pidFile);
    for ($i = 0; $i < 500 && file_exists("/proc/$pid"); $i++) {
        usleep(20_000);
    }
    for ($i = 0; $i < 250 && @stream_socket_client("tcp://127.0.0.1:$port") !== false; $i++) {
        usleep(20_000);
    }
};

$start();
try {
    // What is tested is the reconnection, not how fast: a loaded machine
    // may take longer than the default 50 ms for a round trip.
    $breaker = new CircuitBreaker('reconnect', configuration(minimum: 1000), new MemcachedStorage("127.0.0.1:$port", timeout: 2.0), $listener = new RecordingListener());
    $calls = function (int $count) use ($breaker) {
        for ($i = 0; $i < $count; $i++) {
            if ($breaker->acquirePermission()) {
                $breaker->registerFailure();
            }
        }
    };
    $failures = fn () => count(array_filter($listener->events, fn ($event) => $event instanceof StorageFailed));
    $calls(5);
    echo "before: ", $failures(), " StorageFailed\n";
    $kill();
    $start();
    $calls(5);
    echo "after memcached was killed and started again: ", $failures(), " StorageFailed\n";
    foreach ($listener->events as $event) {
        if ($event instanceof StorageFailed) {
            echo $event->exception->getMessage(), "\n";
        }
    }
    echo "outcomes counted: ", memcached_keys("127.0.0.1:$port") !== [] ? 'yes' : 'no', "\n";
} finally {
    $kill();
}
?>
--EXPECT--
before: 0 StorageFailed
after memcached was killed and started again: 0 StorageFailed
outcomes counted: yes
