--TEST--
MemcachedStorage: a reply is never buffered past what a breaker can read: a 64 MB value another client wrote (a real memcached) is removed unread, a server sending a line or a value that never ends is given up at the deadline; each call fails open in time, nothing of the data is quoted, and the worker's peak memory barely moves
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

/** The process's resident memory now (VmRSS) or at its peak (VmHWM), in MB. */
function memory_mb(string $which): float
{
    preg_match("/^$which:\\s+(\\d+) kB/m", file_get_contents('/proc/self/status'), $match);
    return $match[1] / 1024;
}

/** The process's resident memory now, its peak starting over from it (Linux 4.0 and later). */
function reset_peak_mb(): float
{
    file_put_contents('/proc/self/clear_refs', '5');
    return memory_mb('VmRSS');
}

/** One permission asked of a breaker of $service on $storage: what it says. */
function ask(string $service, MemcachedStorage $storage, float $timeout): void
{
    $listener = new RecordingListener();
    $breaker = new CircuitBreaker($service, configuration(), $storage, $listener);
    $before = reset_peak_mb();
    $started = hrtime(true);
    $permitted = $breaker->acquirePermission();
    $elapsed = (hrtime(true) - $started) / 1e9;
    $failures = storage_failures($listener);
    echo '  permitted: ', var_export($permitted, true), ', within the deadline: ', var_export($elapsed < $timeout + 0.2, true),
        ', peak memory up by less than 16 MB: ', var_export(memory_mb('VmHWM') - $before < 16, true), "\n";
    foreach ($failures as $failure) {
        echo '  StorageFailed quotes no data: ', var_export(!str_contains($failure, 'xxxx'), true), "\n";
        echo '  ', preg_replace(['/127\.0\.0\.1:\d+/', '/\d+/'], ['ADDRESS', 'N'], $failure), "\n";
    }
}

// A memcached of this test that takes values up to 100 MB.
$port = (int) explode(':', stream_socket_get_name($probe = stream_socket_server('tcp://127.0.0.1:0'), false))[1];
fclose($probe);
$dir = sys_get_temp_dir() . '/cb-replies-bounded-' . getmypid();
@mkdir($dir);
exec("memcached -d -l 127.0.0.1 -p $port -U 0 -m 256 -I 100m -u " . escapeshellarg(trim(shell_exec('id -un'))) . " -P $dir/pid");
register_shutdown_function(function () use ($dir) {
    for ($i = 0; $i < 250 && (int) @file_get_contents("$dir/pid") <= 0; $i++) {
        usleep(20_000);
    }
    $pid = (int) @file_get_contents("$dir/pid");
    if ($pid > 0) {
        exec("kill -KILL $pid 2>/dev/null");
        // Gone before the test ends, not only signalled: a harness checks
        // that nothing it started outlives it.
        for ($i = 0; $i < 500 && file_exists("/proc/$pid"); $i++) {
            usleep(20_000);
        }
    }
    @unlink("$dir/pid");
    @rmdir($dir);
});
for ($i = 0; $i < 250 && @stream_socket_client("tcp://127.0.0.1:$port") === false; $i++) {
    usleep(20_000);
}
$address = "127.0.0.1:$port";
// Written 1 MB at a time: this process's own peak stays where it was.
$socket = stream_socket_client("tcp://$address");
fwrite($socket, 'set bigcb:payments:s 0 0 ' . (64 << 20) . "\r\n");
$megabyte = str_repeat('x', 1 << 20);
for ($i = 0; $i < 64; $i++) {
    fwrite($socket, $megabyte);
}
fwrite($socket, "\r\n");
echo 'stored: ', trim(fgets($socket)), "\n";
fclose($socket);
echo "a 64 MB state:\n";
$storage = new MemcachedStorage($address, 'big', timeout: 2.0);
ask('payments', $storage, 2.0);
echo '  the key now: ', var_export(memcached_item($address, 'bigcb:payments:s'), true), "\n";
echo "the next call:\n";
ask('payments', $storage, 2.0);

foreach (['endless-line', 'endless-value'] as $mode) {
    $server = proc_open([PHP_BINARY, '-n', __DIR__ . '/../integration/hostile-server.php', $mode], [1 => ['pipe', 'w']], $pipes);
    $hostile = '127.0.0.1:' . trim(fgets($pipes[1]));
    echo "a server sending an $mode:\n";
    ask('payments', new MemcachedStorage($hostile, timeout: 0.5), 0.5);
    proc_terminate($server);
    proc_close($server);
}
?>
--EXPECT--
stored: STORED
a 64 MB state:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
  StorageFailed quotes no data: true
  memcached at ADDRESS: key bigcb:payments:s held N bytes, more than the N a breaker reads: removed
  the key now: NULL
the next call:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
a server sending an endless-line:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
  StorageFailed quotes no data: true
  memcached at ADDRESS failed: unexpected answer from memcached: a line longer than N bytes
a server sending an endless-value:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
  StorageFailed quotes no data: true
  storage timed out after N ms
