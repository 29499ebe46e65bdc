--TEST--
MemcachedStorage: connections are kept per address and timeout, so a storage whose timeout is too short for a slow server does not put a correct one at the same address into backoff
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED_SLOW')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

// Every reply of the slow server comes 45 ms late.
$slow = memcached_env('CB_MEMCACHED_SLOW');
$service = 'settings-' . getmypid();
$listener = new RecordingListener();
$tooShort = new CircuitBreaker($service, configuration(minimum: 1000), new MemcachedStorage($slow, timeout: 0.01), $listener);
$tooShort->acquirePermission();
$failures = storage_failures($listener);
echo "10 ms timeout: ", count($failures), " StorageFailed (", str_contains($failures[0] ?? '', 'timed out') ? 'timed out' : ($failures[0] ?? 'none'), ")\n";

// The same address and a timeout the server meets, right after the failure
// (within the 100 ms backoff of the other storage's connection).
$listener = new RecordingListener();
$correct = new CircuitBreaker($service, configuration(minimum: 1000), new MemcachedStorage($slow, timeout: 0.5), $listener);
$permitted = 0;
for ($i = 0; $i < 3; $i++) {
    if ($correct->acquirePermission()) {
        $permitted++;
        $correct->registerSuccess();
    }
}
echo "500 ms timeout: $permitted of 3 permitted, StorageFailed: ", json_encode(storage_failures($listener)), "\n";
?>
--EXPECT--
10 ms timeout: 1 StorageFailed (timed out)
500 ms timeout: 3 of 3 permitted, StorageFailed: []
