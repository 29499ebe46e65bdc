--TEST--
A circuit_breaker.shm_size that is truly wrong gives one startup warning naming the setting and the forms it accepts, and the storage runs on a segment of the default size (32M): calls are protected, not failed open
--INI--
circuit_breaker.shm_size=lots
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$info = SharedMemoryStorage::info();
echo 'available: ', var_export($info['available'], true), ', size: ', $info['segment_size'], "\n";
$listener = new RecordingListener();
$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = new CircuitBreaker('payments', $configuration, new SharedMemoryStorage(), $listener);
var_dump($breaker->acquirePermission());
$breaker->registerFailure();
var_dump($breaker->acquirePermission());
echo $breaker->getState()->value, ', events: ', implode(', ', array_map(fn ($event) => (new ReflectionClass($event))->getShortName(), $listener->events)), "\n";
?>
--EXPECT--

Warning: PHP Startup: circuit_breaker.shm_size = 'lots' is not a size from 16K to 4G (such as 32M, 32MB or 33554432): the default size 32M is used in Unknown on line 0
available: true, size: 33554432
bool(true)
bool(false)
open, events: CircuitOpened, CallRejected
