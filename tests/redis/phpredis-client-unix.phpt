--TEST--
RedisStorage built from a phpredis \Redis connected to a unix socket (with a database): the storage connects to the same socket and shares the circuits of the unix:// DSN
--EXTENSIONS--
igbinary
redis
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

// A server of this test, on a socket only (no TCP port), stopped at the end.
$dir = sys_get_temp_dir() . '/cb-unix-' . getmypid();
@mkdir($dir);
$socket = "$dir/redis.sock";
exec("cd $dir && redis-server --port 0 --unixsocket $socket --unixsocketperm 700 --save '' --appendonly no --daemonize yes --pidfile $dir/pid --logfile $dir/log");
register_shutdown_function(function () use ($dir, $socket) {
    $pid = (int) @file_get_contents("$dir/pid");
    if ($pid > 0) {
        exec("kill $pid");
    }
    for ($i = 0; $i < 500 && (file_exists($socket) || ($pid > 0 && file_exists("/proc/$pid"))); $i++) {
        usleep(20_000);
    }
    exec('rm -rf ' . escapeshellarg($dir));
});
for ($i = 0; $i < 250 && !file_exists($socket); $i++) {
    usleep(20_000);
}

$redis = new \Redis();
$redis->connect($socket);
$redis->select(4);
$service = 'unix-' . getmypid();
$fromClient = new CircuitBreaker($service, configuration(), new RedisStorage($redis, timeout: 1.0), $listener = new RecordingListener());
repeat(4, fn () => $fromClient->registerFailure());
echo "built from the client: ", $fromClient->getState()->value, ", ", count($listener->events) - 1, " storage failures\n";
echo "built from unix://...?db=4: ", (new CircuitBreaker($service, configuration(), new RedisStorage("unix://$socket?db=4", timeout: 1.0)))->getState()->value, "\n";
echo "database 0 of the socket: ", (new CircuitBreaker($service, configuration(), new RedisStorage("unix://$socket", timeout: 1.0)))->getState()->value, "\n";
?>
--EXPECT--
built from the client: open, 0 storage failures
built from unix://...?db=4: open
database 0 of the socket: closed
