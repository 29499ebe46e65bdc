--TEST--
A storage written in PHP that throws makes the breaker fail open with StorageFailed; one lacking a primitive is refused at construction
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

final class DownStorage implements StorageInterface
{
    public function increment(string $key, int $ttl): int { throw new RuntimeException('backend down'); }
    public function getMultiple(array $keys): array { throw new RuntimeException('backend down'); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { throw new RuntimeException('backend down'); }
}

final class HalfStorage implements StorageInterface
{
    public function increment(string $key, int $ttl): int { return 1; }
}

$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$listener = new RecordingListener();
$breaker = new CircuitBreaker('payments', $configuration, new DownStorage(), $listener);
var_dump($breaker->acquirePermission());
$breaker->registerFailure();
var_dump($breaker->acquirePermission());
echo count($listener->events), " events: ", $listener->events[0]->exception->getMessage(), "\n";
try {
    $breaker->getState();
} catch (StorageException $e) {
    echo get_class($e), "\n";
}
try {
    new CircuitBreaker('payments', $configuration, new HalfStorage());
} catch (InvalidConfigurationException $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
bool(true)
bool(true)
3 events: getMultiple() threw RuntimeException: backend down
Zeusi\CircuitBreaker\Exception\StorageException
Invalid storage: HalfStorage without getMultiple(), compareAndSet() given, expected a storage of this extension, or a KeyValueStoreInterface (increment(), getMultiple(), compareAndSet())
