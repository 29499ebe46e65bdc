--TEST--
A PSR-20 clock (Psr\Clock\ClockInterface only) is accepted wherever a clock is, and read as the breaker's time
--FILE--
<?php
namespace Psr\Clock {
    // As psr/clock declares it; the extension does not depend on it.
    interface ClockInterface
    {
        public function now(): \DateTimeImmutable;
    }
}

namespace {
    require __DIR__ . '/bootstrap.inc';

    use Zeusi\CircuitBreaker\CircuitBreaker;
    use Zeusi\CircuitBreaker\Configuration;
    use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
    use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
    use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

    final class FrozenClock implements Psr\Clock\ClockInterface
    {
        public function __construct(private DateTimeImmutable $now) {}
        public function now(): DateTimeImmutable { return $this->now; }
        public function advance(int $seconds): void { $this->now = $this->now->modify("+$seconds seconds"); }
    }

    /** Has now() but implements no clock interface: not a clock. */
    final class Duck
    {
        public function now(): DateTimeImmutable { return new DateTimeImmutable(); }
    }

    $clock = new FrozenClock(new DateTimeImmutable('@1000000'));
    $listener = new RecordingListener();
    $configuration = new Configuration(60, [new ConsecutiveFailuresRule(1)], 30, new PermittedCallsPolicy(5));
    $breaker = new CircuitBreaker('api', $configuration, new InMemoryStorage($clock), $listener, $clock);
    $breaker->registerFailure();
    echo $breaker->getState()->name, ' at ', $listener->events[0]->getTime(), "\n";
    $clock->advance(29);
    echo $breaker->getState()->name, "\n";
    $clock->advance(1);
    echo $breaker->getState()->name, "\n";

    foreach ([fn () => new InMemoryStorage(new Duck()), fn () => new CircuitBreaker('api', $configuration, new InMemoryStorage(), clock: new Duck())] as $call) {
        try {
            $call();
        } catch (TypeError $e) {
            echo $e->getMessage(), "\n";
        }
    }
}
?>
--EXPECT--
Open at 1000000
Open
HalfOpen
Zeusi\CircuitBreaker\Storage\InMemoryStorage::__construct(): Argument #1 ($clock) must be of type ?Zeusi\CircuitBreaker\Clock\ClockInterface, Duck given
Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #5 ($clock) must be of type ?Zeusi\CircuitBreaker\Clock\ClockInterface, Duck given
