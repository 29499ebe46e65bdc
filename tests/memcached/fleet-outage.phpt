--TEST--
FleetStorage over Memcached: the store killed mid-traffic, each host opens on its own failures; one StorageFailed and one StorageRecovered per host
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
require __DIR__ . '/../integration/fleet.inc';

$server = stream_socket_server('tcp://127.0.0.1:0');
$port = (int) explode(':', stream_socket_get_name($server, false))[1];
fclose($server);
$dir = sys_get_temp_dir() . '/cb-fleet-outage-' . getmypid();

/** A memcached of this test on 127.0.0.1:$port; returns when it answers. */
function start_memcached_server(int $port, string $dir): void
{
    @mkdir($dir);
    exec("memcached -d -l 127.0.0.1 -p $port -U 0 -u " . escapeshellarg(trim(shell_exec("id -un"))) . " -P $dir/pid");
    for ($i = 0; $i < 250 && @stream_socket_client("tcp://127.0.0.1:$port") === false; $i++) {
        usleep(20_000);
    }
}

start_memcached_server($port, $dir);
/** Signals the server whose pid file is in $dir (never pid 0: the process group). */
function kill_server(string $dir, string $signal): void
{
    for ($i = 0; $i < 250 && (int) @file_get_contents("$dir/pid") <= 0; $i++) {
        usleep(20_000);
    }
    $pid = (int) @file_get_contents("$dir/pid");
    if ($pid > 0) {
        exec("kill -$signal $pid 2>/dev/null");
        // Gone, not only signalled: nothing the test started outlives it,
        // and a server started again finds its port free.
        for ($i = 0; $i < 500 && file_exists("/proc/$pid"); $i++) {
            usleep(20_000);
        }
    }
}

$store = ['memcached' => "127.0.0.1:$port"];
$service = 'fleet-outage-' . getmypid();
try {
    // Traffic; the store killed; the workers fail once every host knows;
    // the store started again once every host opened on its own failures.
    [$events, $refused] = run_outage($store, $service, fn () => kill_server($dir, 'KILL'), fn () => start_memcached_server($port, $dir));
} finally {
    kill_server($dir, 'TERM');
    exec('rm -rf ' . escapeshellarg($dir));
}
foreach ($events as $host => $list) {
    echo "host $host: ", implode(', ', $list), "\n";
}
foreach ($refused as $host => $count) {
    echo "host $host refused calls while failing: ", var_export($count > 10, true), "\n";
}
?>
--EXPECT--
host A: StorageFailed, CircuitOpened, StorageRecovered
host B: StorageFailed, CircuitOpened, StorageRecovered
host A refused calls while failing: true
host B refused calls while failing: true
