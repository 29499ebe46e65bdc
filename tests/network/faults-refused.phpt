--TEST--
A network storage refused (nothing listens): every call is permitted within the timeout with StorageFailed, and getState() throws
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/faults.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Exception\StorageException;

$listener = new RecordingListener();
// Port 1: nothing listens there.
$refused = new CircuitBreaker('faults', configuration(minimum: 1000), storage(target_at('127.0.0.1:1'), timeout: 0.05), $listener);
[$permitted, $failures, $slowest] = traffic($refused, $listener, 20);
printf("refused: %d of 20 permitted, StorageFailed: %s, within the timeout: %s\n", $permitted, $failures > 0 ? 'yes' : 'no', $slowest < 50 + 20 ? 'yes' : "no ($slowest ms)");
try {
    $refused->getState();
} catch (StorageException $e) {
    echo "getState(): ", get_class($e), "\n";
}
?>
--EXPECT--
refused: 20 of 20 permitted, StorageFailed: yes, within the timeout: yes
getState(): Zeusi\CircuitBreaker\Exception\StorageException
