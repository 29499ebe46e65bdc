--TEST--
Under strict_types: PSR-20 clocks, TypeErrors worded by the engine, readonly Errors, the classifier's TypeError, KeyValueStoreInterface and SharedMemoryStorage::info() behave as outside it
--FILE--
<?php
declare(strict_types=1);

namespace Psr\Clock {
    interface ClockInterface
    {
        public function now(): \DateTimeImmutable;
    }
}

namespace {
    use Zeusi\CircuitBreaker\CircuitBreaker;
    use Zeusi\CircuitBreaker\Configuration;
    use Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier;
    use Zeusi\CircuitBreaker\Execution\CallExecutor;
    use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
    use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
    use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
    use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;
    use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

    final class FixedClock implements Psr\Clock\ClockInterface
    {
        public function now(): DateTimeImmutable { return new DateTimeImmutable('@2000000'); }
    }

    final class DownStore implements KeyValueStoreInterface
    {
        public function increment(string $key, int $ttl): int { throw new RuntimeException('down'); }
        public function getMultiple(array $keys): array { throw new RuntimeException('down'); }
        public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { throw new RuntimeException('down'); }
    }

    function attempt(callable $call): void
    {
        try {
            $call();
            echo "ok\n";
        } catch (Throwable $e) {
            echo get_class($e), ': ', $e->getMessage(), $e->getPrevious() ? ' <- ' . get_class($e->getPrevious()) . '(' . $e->getPrevious()->getMessage() . ')' : '', "\n";
        }
    }

    $configuration = new Configuration(60, [new ConsecutiveFailuresRule(1)], 30, new PermittedCallsPolicy(5));
    $clock = new FixedClock();
    attempt(fn () => new CircuitBreaker('api', $configuration, new InMemoryStorage($clock), null, $clock));
    attempt(fn () => new CircuitBreaker('api', 'configuration', new InMemoryStorage()));
    attempt(fn () => new CallbackOutcomeClassifier('no_such_function'));
    attempt(function () use ($configuration) { $configuration->timeWindow = 10.0; });
    $breaker = new CircuitBreaker('api', $configuration, new InMemoryStorage());
    attempt(fn () => (new CallExecutor($breaker, new CallbackOutcomeClassifier(fn (Throwable $e) => 'failure')))->execute(fn () => throw new RuntimeException('down')));
    attempt(fn () => (new CircuitBreaker('api', $configuration, new DownStore()))->getState());
    var_dump(SharedMemoryStorage::info()['available']);
}
?>
--EXPECT--
ok
TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #2 ($configuration) must be of type Zeusi\CircuitBreaker\Configuration, string given
TypeError: Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier::__construct(): Argument #1 ($exceptionClassifier) must be a valid callback, function "no_such_function" not found or invalid function name
Error: Cannot modify readonly property Zeusi\CircuitBreaker\Configuration::$timeWindow
TypeError: Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier::classifyException(): the callback must return Zeusi\CircuitBreaker\Outcome or null, string returned <- RuntimeException(down)
Zeusi\CircuitBreaker\Exception\StorageException: getMultiple() threw RuntimeException: down <- RuntimeException(down)
bool(true)
