--TEST--
A full shared memory segment fails clearly: the call is permitted, StorageFailed names the setting to raise, getState() throws
--INI--
circuit_breaker.shm_size=20K
circuit_breaker.shm_max_share=1
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$storage = new SharedMemoryStorage();
$listener = new RecordingListener();
for ($i = 1; ; $i++) {
    $breaker = new CircuitBreaker("service-$i", $configuration, $storage, $listener);
    $breaker->registerSuccess();
    if ($listener->events) {
        break;
    }
}
echo $i - 1, " circuits fit\n";
$event = $listener->events[0];
echo get_class($event), "\n", get_class($event->exception), ": ", $event->exception->getMessage(), "\n";
$listener->events = [];
var_dump($breaker->acquirePermission()); // an unknown circuit is closed: no record needed
$breaker->registerFailure();
echo count($listener->events), " StorageFailed for the failure\n";
try {
    $breaker->registerFailure();
    $breaker->getState();
    echo "no exception\n";
} catch (StorageException $e) {
    echo "getState(): unknown circuit reads as closed\n";
}
// Known circuits keep working.
$first = new CircuitBreaker('service-1', $configuration, $storage);
$first->registerFailure();
echo "service-1: ", $first->getState()->value, "\n";
?>
--EXPECTF--
2 circuits fit
Zeusi\CircuitBreaker\Event\StorageFailed
Zeusi\CircuitBreaker\Exception\StorageException: the shared memory holds 2 circuits, all in use: raise circuit_breaker.shm_size (now 20480 bytes)
bool(true)
1 StorageFailed for the failure
no exception
service-1: open
