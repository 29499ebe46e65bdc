--TEST--
Without a segment (an invalid circuit_breaker.shm_name), every call is permitted, StorageFailed says why, and getState() throws StorageException
--INI--
circuit_breaker.shm_name=a/b
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$listener = new RecordingListener();
$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = new CircuitBreaker('payments', $configuration, new SharedMemoryStorage(), $listener);
var_dump($breaker->acquirePermission());
repeat(3, fn () => $breaker->registerFailure());
var_dump($breaker->acquirePermission());
echo count($listener->events), " events: ", $listener->events[0]->exception->getMessage(), "\n";
try {
    $breaker->getState();
} catch (StorageException $e) {
    echo get_class($e), ": ", $e->getMessage(), "\n";
}
?>
--EXPECT--

Warning: PHP Startup: circuit_breaker.shm_name = 'a/b' contains '/': give a plain name such as circuit_breaker (the extension adds the leading /): the shared memory storage is disabled (its calls fail open) in Unknown on line 0
bool(true)
bool(true)
5 events: no shared memory segment: circuit_breaker.shm_name = 'a/b' contains '/': give a plain name such as circuit_breaker (the extension adds the leading /)
Zeusi\CircuitBreaker\Exception\StorageException: no shared memory segment: circuit_breaker.shm_name = 'a/b' contains '/': give a plain name such as circuit_breaker (the extension adds the leading /)
