--TEST--
The fleet demo's Redis counters (demo/redis-stats.php): round trips and command CPU the others cost Redis, exact per sample, across a restart, without the sampler's own INFO
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
require __DIR__ . '/../../demo/redis-stats.php';

$server = stream_socket_server('tcp://127.0.0.1:0');
$port = (int) explode(':', stream_socket_get_name($server, false))[1];
fclose($server);
$dir = sys_get_temp_dir() . '/cb-demo-counters-' . getmypid();
$address = "127.0.0.1:$port";

/** $single round trips of one command, then $pipelined of three commands sent at once. */
function round_trips($client, int $single, int $pipelined): void
{
    for ($i = 0; $i < $single; $i++) {
        fwrite($client, "*2\r\n\$4\r\nINCR\r\n\$1\r\nk\r\n");
        fgets($client);
    }
    for ($i = 0; $i < $pipelined; $i++) {
        fwrite($client, str_repeat("*2\r\n\$4\r\nINCR\r\n\$1\r\nk\r\n", 3));
        fgets($client);
        fgets($client);
        fgets($client);
    }
}

start_redis_server($port, $dir);
try {
    $sampler = new RedisSampler($address);
    var_dump($sampler->sample()); // the baseline
    $client = stream_socket_client("tcp://$address");
    round_trips($client, 20, 5);
    $first = $sampler->sample();
    echo "round trips: {$first['round_trips']}, some CPU: ", var_export($first['usec'] > 0, true), "\n";
    round_trips($client, 3, 4);
    echo "round trips: {$sampler->sample()['round_trips']}\n";
    echo "nothing: {$sampler->sample()['round_trips']}\n";

    $pid = (int) file_get_contents("$dir/pid");
    if ($pid > 0) { // never 0: that is the whole process group
        exec("kill -9 $pid");
    }
    usleep(100_000);
    var_dump($sampler->sample()); // down
    // Started again with nothing else asking it whether it is up: the
    // sampler's first answer counts what came since the restart, nothing.
    exec("cd $dir && redis-server --port $port --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile $dir/pid --logfile $dir/log");
    for ($i = 0; $i < 250 && ($back = $sampler->sample()) === null; $i++) {
        usleep(20_000);
    }
    echo "back: {$back['round_trips']}\n";
    $client = stream_socket_client("tcp://$address");
    round_trips($client, 6, 1);
    echo "after the restart: {$sampler->sample()['round_trips']}\n";

    // The command line: reset, then read what came since (the reset's own
    // connection, closed before the read, is one read more).
    exec(PHP_BINARY . ' -n ' . escapeshellarg(__DIR__ . '/../../demo/redis-stats.php') . " $address reset");
    round_trips($client, 9, 0);
    usleep(50_000);
    $read = json_decode(exec(PHP_BINARY . ' -n ' . escapeshellarg(__DIR__ . '/../../demo/redis-stats.php') . " $address read"), true);
    echo "read: {$read['round_trips']}\n";
} finally {
    stop_redis_server($port);
    exec('rm -rf ' . escapeshellarg($dir));
}
?>
--EXPECT--
NULL
round trips: 25, some CPU: true
round trips: 7
nothing: 0
NULL
back: 0
after the restart: 7
read: 10
