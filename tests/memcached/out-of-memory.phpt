--TEST--
MemcachedStorage on a full server (SERVER_ERROR out of memory): a refused write fails open that call only; the connection is kept, the server is not backed off, reads of other circuits keep working, and once memory is freed the next calls work at once
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED_SMALL')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

// 2 MB, and -M: a full server refuses to store rather than evicting.
$address = memcached_env('CB_MEMCACHED_SMALL');
$storage = new MemcachedStorage($address, 'full' . getmypid(), timeout: 1.0);
$healthyListener = new RecordingListener();
$healthy = new CircuitBreaker('healthy', configuration(minimum: 1000), $storage, $healthyListener);
$healthy->acquirePermission();
$healthy->registerSuccess();

$socket = stream_socket_client("tcp://$address", $errno, $error, 2.0);
$filled = 0;
foreach ([1, 8, 30, 60, 100, 200, 400] as $size) {
    do {
        $filled++;
        fwrite($socket, "set filler$filled 0 0 $size\r\n" . str_repeat('x', $size) . "\r\n");
        $answer = trim(fgets($socket));
    } while ($answer === 'STORED');
}
echo "filled: $answer\n";
fclose($socket);

$newcomerListener = new RecordingListener();
$newcomer = new CircuitBreaker('newcomer', configuration(minimum: 1000), $storage, $newcomerListener);
$connections = (int) memcached_stats($address)['total_connections'];
$healthyListener->events = [];
$healthyPermitted = 0;
for ($i = 0; $i < 50; $i++) {
    $newcomer->acquirePermission();
    $newcomer->registerFailure();
    $healthyPermitted += $healthy->acquirePermission() ? 1 : 0;
}
// The reading of `stats` is one connection.
echo "connections opened meanwhile: ", (int) memcached_stats($address)['total_connections'] - $connections - 1, "\n";
echo "healthy, reading its state: $healthyPermitted of 50 permitted, ", count(storage_failures($healthyListener)), " StorageFailed\n";
$failures = storage_failures($newcomerListener);
echo "newcomer, writing a new counter: ", count($failures), " StorageFailed, the first: ", preg_replace('/127\.0\.0\.1:\d+/', 'ADDRESS', $failures[0] ?? 'none'), "\n";

// Memory freed: the very next calls work, no backoff to wait out.
memcached_raw($address, "flush_all\r\n");
$healthyListener->events = $newcomerListener->events = [];
foreach ([$newcomer, $healthy] as $breaker) {
    $breaker->acquirePermission();
    $breaker->registerFailure();
}
echo "once memory is freed: ", count(storage_failures($healthyListener)) + count(storage_failures($newcomerListener)), " StorageFailed\n";
?>
--EXPECT--
filled: SERVER_ERROR out of memory storing object
connections opened meanwhile: 0
healthy, reading its state: 50 of 50 permitted, 0 StorageFailed
newcomer, writing a new counter: 50 StorageFailed, the first: memcached at ADDRESS refused add: SERVER_ERROR out of memory storing object
once memory is freed: 0 StorageFailed
