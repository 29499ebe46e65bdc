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
    }
}

$log = tempnam(sys_get_temp_dir(), 'fleet');
$store = ['memcached' => "127.0.0.1:$port"];
$service = 'fleet-outage-' . getmypid();
try {
    // Successes, the store killed at 1 s, failures from 1.5 s to 3.5 s, the
    // store back at 3 s (retried after 1 s, then 2 s: back by about 4 s),
    // successes until 6 s.
    $start = microtime(true);
    $hosts = [start_host('A', 'outage', $store, $service, $log, 6_000, 0.05, $start), start_host('B', 'outage', $store, $service, $log, 6_000, 0.05, $start)];
    time_sleep_until($start + 1.0);
    kill_server($dir, 'KILL');
    time_sleep_until($start + 3.0);
    start_memcached_server($port, $dir);
    foreach ($hosts as $host) {
        proc_close($host);
    }
} finally {
    kill_server($dir, 'TERM');
    exec('rm -rf ' . escapeshellarg($dir));
}
$events = [];
foreach (file($log, FILE_IGNORE_NEW_LINES) as $line) {
    [$host, $worker, $what, $at] = explode(' ', $line) + [3 => ''];
    if (in_array($what, ['StorageFailed', 'StorageRecovered', 'CircuitOpened', 'CircuitClosed'], true)) {
        $events[$host][] = sprintf('%s at %s', $what, match (true) {
            (float) $at - $start < 1.0 => 'before the outage',
            (float) $at - $start < 1.5 => 'the outage',
            (float) $at - $start < 3.5 => 'the failures',
            default => 'the end',
        });
    }
    if ($what === 'refused') {
        $refused[$host] = ($refused[$host] ?? 0) + (int) $at;
    }
}
ksort($events);
foreach ($events as $host => $list) {
    echo "host $host: ", implode(', ', $list), "\n";
}
ksort($refused);
foreach ($refused as $host => $count) {
    echo "host $host refused calls during the failures: ", var_export($count > 100, true), "\n";
}
unlink($log);
?>
--EXPECT--
host A: StorageFailed at the outage, CircuitOpened at the failures, StorageRecovered at the end
host B: StorageFailed at the outage, CircuitOpened at the failures, StorageRecovered at the end
host A refused calls during the failures: true
host B refused calls during the failures: true
