--TEST--
A storage that fails: commands and getStatus() throw StorageException (the operator must know), listCircuits() too; calls still fail open
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

// Nothing listens on port 1: every round trip fails at once.
$storage = new RedisStorage('redis://127.0.0.1:1', '', 0.5);
$listener = new RecordingListener();
$breaker = new CircuitBreaker('payments', new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
), $storage, $listener);
foreach ([
    'forceOpen' => fn () => $breaker->forceOpen(60),
    'forceClosed' => fn () => $breaker->forceClosed(60),
    'reset' => fn () => $breaker->reset(),
    'getStatus' => fn () => $breaker->getStatus(),
    'listCircuits' => fn () => $storage->listCircuits(),
] as $name => $call) {
    try {
        $call();
        echo "$name: no exception\n";
    } catch (StorageException $e) {
        echo "$name: ", get_class($e), "\n";
    }
}
echo count($listener->events), " events from the commands\n";
var_dump($breaker->acquirePermission());
?>
--EXPECT--
forceOpen: Zeusi\CircuitBreaker\Exception\StorageException
forceClosed: Zeusi\CircuitBreaker\Exception\StorageException
reset: Zeusi\CircuitBreaker\Exception\StorageException
getStatus: Zeusi\CircuitBreaker\Exception\StorageException
listCircuits: Zeusi\CircuitBreaker\Exception\StorageException
0 events from the commands
bool(true)
