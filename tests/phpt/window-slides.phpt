--TEST--
The window slides: a count covers every bucket spanning the last timeWindow seconds, so an outcome leaves it between one window and one window and a bucket after it
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;

// 10 s window: 10 buckets of 1 s; a count reads the 11 that span [now - 10 s, now].
foreach ([9.999, 10.0, 10.999, 11.0] as $age) {
    $clock = new MockClock(1_764_000_000.0);
    $breaker = breaker(clock: $clock);
    repeat(3, fn () => $breaker->registerFailure());
    $clock->sleep($age);
    $breaker->registerSuccess();
    echo "3 failures at t=0, at $age s: ", $breaker->getState()->value, "\n";
}

// Never dropped before it is a window old, wherever it falls in its bucket.
$clock = new MockClock(1_764_000_000.5);
$breaker = breaker(clock: $clock);
repeat(3, fn () => $breaker->registerFailure());
$clock->sleep(9.9);
$breaker->registerSuccess();
echo "3 failures 9.9 s old: ", $breaker->getState()->value, "\n";

$clock = new MockClock(1_764_000_005.0);
$breaker = breaker(clock: $clock, configuration: new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 600,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
));
repeat(3, fn () => $breaker->registerFailure());
$clock->sleep(595);
$breaker->registerSuccess();
echo "600 s window, 3 failures 595 s old: ", $breaker->getState()->value, "\n";

$clock = new MockClock(1_764_000_000.0);
$breaker = breaker(clock: $clock);
repeat(3, fn () => $breaker->registerFailure());
$clock->sleep(11.0);
$breaker->registerSuccess();
repeat(3, fn () => $breaker->registerFailure());
echo "3 of 4 within the window: ", $breaker->getState()->value, "\n";

// A burst across a bucket boundary is not split in half.
$clock = new MockClock(1_764_000_000.5);
$breaker = breaker(clock: $clock);
$breaker->registerFailure();
$breaker->registerFailure();
$clock->sleep(0.6);
$breaker->registerFailure();
$breaker->registerFailure();
echo "burst across buckets: ", $breaker->getState()->value, "\n";
?>
--EXPECT--
3 failures at t=0, at 9.999 s: open
3 failures at t=0, at 10 s: open
3 failures at t=0, at 10.999 s: open
3 failures at t=0, at 11 s: closed
3 failures 9.9 s old: open
600 s window, 3 failures 595 s old: open
3 of 4 within the window: open
burst across buckets: open
