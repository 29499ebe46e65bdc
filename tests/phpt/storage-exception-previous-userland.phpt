--TEST--
What a storage written in PHP threw is the previous of every StorageException its failure gives: getState(), getStatus(), the commands (also CircuitControl's) and the StorageFailed event
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Operations\CircuitControl;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;

final class Unreachable implements KeyValueStoreInterface
{
    public ?Throwable $thrown = null;

    private function fail(string $method): never
    {
        throw $this->thrown = new DomainException("$method: the store is down");
    }
    public function increment(string $key, int $ttl): int { $this->fail(__FUNCTION__); }
    public function getMultiple(array $keys): array { $this->fail(__FUNCTION__); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { $this->fail(__FUNCTION__); }
}

$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$storage = new Unreachable();
$listener = new RecordingListener();
$breaker = new CircuitBreaker('payments', $configuration, $storage, $listener);
$control = new CircuitControl($storage, $listener);

function shown(StorageException $e, Unreachable $storage): string
{
    return 'previous ' . ($e->getPrevious() === null ? 'none' : ($e->getPrevious() === $storage->thrown ? 'what the storage threw' : 'another'));
}
foreach ([
    'getState()' => fn () => $breaker->getState(),
    'getStatus()' => fn () => $breaker->getStatus(),
    'forceOpen()' => fn () => $breaker->forceOpen(60),
    'forceClosed()' => fn () => $breaker->forceClosed(60),
    'reset()' => fn () => $breaker->reset(),
    'CircuitControl::forceOpen()' => fn () => $control->forceOpen('payments', 60),
    'CircuitControl::reset()' => fn () => $control->reset('payments'),
] as $method => $call) {
    try {
        $call();
        echo "$method: nothing thrown\n";
    } catch (StorageException $e) {
        echo "$method: ", shown($e, $storage), "\n";
    }
}
echo count($listener->events), " events\n";
$breaker->registerFailure();
echo get_class($listener->events[0]), ': ', shown($listener->events[0]->exception, $storage), "\n";
?>
--EXPECT--
getState(): previous what the storage threw
getStatus(): previous what the storage threw
forceOpen(): previous what the storage threw
forceClosed(): previous what the storage threw
reset(): previous what the storage threw
CircuitControl::forceOpen(): previous what the storage threw
CircuitControl::reset(): previous what the storage threw
0 events
Zeusi\CircuitBreaker\Event\StorageFailed: previous what the storage threw
