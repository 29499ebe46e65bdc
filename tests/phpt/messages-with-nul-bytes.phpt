--TEST--
Messages holding a NUL byte (a refused value, a storage's exception message) are thrown with it, and an anonymous class is named as PHP names it (cut at its NUL), instead of failing to throw
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

$configuration = new Configuration(10, [new FailureRateRule(50, 1)], 10, PermittedCallsPolicy::createSingleTrial(30));

function attempt(callable $call): void
{
    try {
        $call();
        echo "no exception\n";
    } catch (\Throwable $e) {
        echo get_class($e), ': ', json_encode($e->getMessage()), "\n";
    }
}

// An anonymous class is named "class@anonymous", a NUL, then where it was declared.
attempt(fn () => new CircuitBreaker('api', $configuration, new class implements StorageInterface {}));

// A refused value holding a NUL byte: the message keeps it, as PHP's own do.
attempt(fn () => new Zeusi\CircuitBreaker\Storage\RedisStorage('redis://127.0.0.1:1', "app\0{x}"));

/** Fails with a message holding a NUL byte, as a driver's message may. */
final class NulStore implements KeyValueStoreInterface
{
    public function increment(string $key, int $ttl): int { throw new RuntimeException("refused\0by peer"); }
    public function getMultiple(array $keys): array { throw new RuntimeException("refused\0by peer"); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { throw new RuntimeException("refused\0by peer"); }
}
$listener = new RecordingListener();
$breaker = new CircuitBreaker("svc\0name", $configuration, new NulStore(), $listener);
var_dump($breaker->acquirePermission());
echo json_encode($listener->events[0]->exception->getMessage()), "\n";
attempt(fn () => $breaker->getState());
--EXPECT--
Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: "Invalid storage: Zeusi\\CircuitBreaker\\Storage\\StorageInterface@anonymous without increment(), getMultiple(), compareAndSet() given, expected a storage of this extension, or a KeyValueStoreInterface (increment(), getMultiple(), compareAndSet())"
Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: "Invalid prefix: 'app\u0000{x}' given, expected no braces: they would break the hash tag of Redis Cluster"
bool(true)
"getMultiple() threw RuntimeException: refused\u0000by peer"
Zeusi\CircuitBreaker\Exception\StorageException: "getMultiple() threw RuntimeException: refused\u0000by peer"
