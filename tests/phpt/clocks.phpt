--TEST--
MockClock takes a timestamp, a date string or a date; any ClockInterface, such as a PSR-20 clock, drives the breaker
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\ClockInterface;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Clock\SystemClock;

echo (new MockClock(1_764_000_000.5))->now()->format('Y-m-d H:i:s.u'), "\n";
echo (new MockClock('2026-01-02 03:04:05 UTC'))->now()->format('U'), "\n";
echo (new MockClock(new DateTimeImmutable('@1700000000')))->now()->format('U'), "\n";
$clock = new MockClock(0);
$clock->sleep(1.25);
echo $clock->now()->format('U.u'), "\n";
$drift = abs((new MockClock())->now()->format('U') - time());
echo $drift <= 1 ? "now by default\n" : "drift $drift\n";
$drift = abs((new SystemClock())->now()->format('U') - time());
echo $drift <= 1 ? "system clock\n" : "drift $drift\n";
foreach (['not a date', NAN] as $bad) {
    try {
        new MockClock($bad);
    } catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
try {
    $clock->sleep(-1);
} catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
    echo $e->getMessage(), "\n";
}

final class FrozenPsrClock implements ClockInterface
{
    public function __construct(public DateTimeImmutable $now) {}
    public function now(): DateTimeImmutable { return $this->now; }
}
$psr = new FrozenPsrClock(new DateTimeImmutable('@1764000000'));
$listener = new RecordingListener();
$breaker = new Zeusi\CircuitBreaker\CircuitBreaker('payments', new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
), new Zeusi\CircuitBreaker\Storage\InMemoryStorage($psr), $listener, $psr);
$breaker->registerFailure();
echo $breaker->getState()->value, ' at ', $listener->events[0]->getTime(), "\n";
$psr->now = $psr->now->modify('+10 seconds');
echo $breaker->getState()->value, "\n";
?>
--EXPECT--
2025-11-24 16:00:00.500000
1767323045
1700000000
1.250000
now by default
system clock
Invalid now: 'not a date' given, expected a Unix timestamp from 0 to 253402300799 (9999-12-31 23:59:59 UTC), a date string or a DateTimeImmutable in that range
Invalid now: NAN given, expected a Unix timestamp from 0 to 253402300799 (9999-12-31 23:59:59 UTC), a date string or a DateTimeImmutable in that range
Invalid seconds: -1 (the clock is at 1.25) given, expected a number of seconds, at least 0, that keeps the clock at a time from 0 to 253402300799 (9999-12-31 23:59:59 UTC)
open at 1764000000
half_open
