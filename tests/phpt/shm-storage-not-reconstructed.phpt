--TEST--
A SharedMemoryStorage (or ApcuStorage) refuses __construct() once constructed: its breakers remember where their circuits lie under its prefix, which must not change under them
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\ApcuStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(
    timeWindow: 10,
    openingRules: [new ConsecutiveFailuresRule(failures: 2)],
    openDuration: 60,
    halfOpenPolicy: new PermittedCallsPolicy(maxDuration: 30, permittedCalls: 1),
);
foreach ([SharedMemoryStorage::class, ApcuStorage::class] as $class) {
    $storage = new $class("first-$class:");
    $breaker = new CircuitBreaker('payments', $configuration, $storage);
    $breaker->registerFailure();
    try {
        $storage->__construct("second-$class:");
        echo "reconstructed\n";
    } catch (LogicException $exception) {
        echo get_class($exception), ': ', $exception->getMessage(), "\n";
    }
    $breaker->registerFailure();
    // Both failures count under the first prefix, where the circuit opened.
    $reader = new CircuitBreaker('payments', $configuration, new $class("first-$class:"));
    echo $reader->getState()->value, "\n";
}
?>
--EXPECT--
LogicException: Zeusi\CircuitBreaker\Storage\SharedMemoryStorage::__construct() cannot be called on an object already constructed
open
LogicException: Zeusi\CircuitBreaker\Storage\ApcuStorage::__construct() cannot be called on an object already constructed
open
