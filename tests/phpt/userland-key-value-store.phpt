--TEST--
KeyValueStoreInterface: a storage written in PHP whose signatures PHP checks; what it throws is the previous of the StorageException reporting it
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

/** Keys in an array, without expiry: enough for a few calls. */
final class ArrayStore implements KeyValueStoreInterface
{
    public array $entries = [];

    public function increment(string $key, int $ttl): int
    {
        return $this->entries[$key] = (int) ($this->entries[$key] ?? 0) + 1;
    }

    public function getMultiple(array $keys): array
    {
        return array_intersect_key($this->entries, array_flip($keys));
    }

    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        $current = isset($this->entries[$key]) ? (string) $this->entries[$key] : null;
        if ($current !== $expected) {
            return false;
        }
        $this->entries[$key] = $value;
        return true;
    }
}

/** Every call fails, each with its own number. */
final class DownStore implements KeyValueStoreInterface
{
    private int $calls = 0;
    private function fail(string $method): never { throw new RuntimeException("$method #" . ++$this->calls . ': connection refused'); }
    public function increment(string $key, int $ttl): int { $this->fail('increment'); }
    public function getMultiple(array $keys): array { $this->fail('getMultiple'); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { $this->fail('compareAndSet'); }
}

$interface = new ReflectionClass(KeyValueStoreInterface::class);
echo implode(', ', $interface->getInterfaceNames()), "\n";
foreach ($interface->getMethods() as $method) {
    $parameters = array_map(fn ($p) => $p->getType() . ' $' . $p->getName(), $method->getParameters());
    echo $method->getName(), '(', implode(', ', $parameters), '): ', $method->getReturnType(), "\n";
}

$configuration = new Configuration(60, [new ConsecutiveFailuresRule(2)], 30, new PermittedCallsPolicy(1));
$breaker = new CircuitBreaker('api', $configuration, new ArrayStore());
$breaker->registerFailure();
echo $breaker->getState()->name, "\n";
$breaker->registerFailure();
echo $breaker->getState()->name, "\n";
var_dump(new ArrayStore() instanceof StorageInterface);

$listener = new RecordingListener();
$down = new CircuitBreaker('api', $configuration, new DownStore(), $listener);
var_dump($down->acquirePermission());
$event = $listener->events[0];
echo get_class($event), ': ', get_class($event->exception), ' <- ', get_class($event->exception->getPrevious()), '(', $event->exception->getPrevious()->getMessage(), ")\n";
try {
    $down->getState();
} catch (StorageException $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n  previous: ", get_class($e->getPrevious()), '(', $e->getPrevious()->getMessage(), ")\n";
}
// A later failure reports its own exception, not one left from before.
$listener->events = [];
$down->registerSuccess();
echo $listener->events[0]->exception->getPrevious()->getMessage(), "\n";
?>
--EXPECT--
Zeusi\CircuitBreaker\Storage\StorageInterface
increment(string $key, int $ttl): int
getMultiple(array $keys): array
compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
Closed
Open
bool(true)
bool(true)
Zeusi\CircuitBreaker\Event\StorageFailed: Zeusi\CircuitBreaker\Exception\StorageException <- RuntimeException(getMultiple #1: connection refused)
Zeusi\CircuitBreaker\Exception\StorageException: getMultiple() threw RuntimeException: getMultiple #2: connection refused
  previous: RuntimeException(getMultiple #2: connection refused)
getMultiple #3: connection refused
