--TEST--
The window slides: outcomes leave it one window after their bucket began
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;

// 10 s window: 10 buckets of 1 s. Failures at t=0.0 leave at t=10.0.
$clock = new MockClock(1_764_000_000.0);
$breaker = breaker(clock: $clock);
repeat(3, fn () => $breaker->registerFailure());
$clock->sleep(9.999);
$breaker->registerSuccess();
echo "at 9.999 s: ", $breaker->getState()->value, "\n";

$clock = new MockClock(1_764_000_000.0);
$breaker = breaker(clock: $clock);
repeat(3, fn () => $breaker->registerFailure());
$clock->sleep(10.0);
$breaker->registerSuccess();
echo "at 10 s: ", $breaker->getState()->value, "\n";
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
at 9.999 s: open
at 10 s: closed
3 of 4 within the window: open
burst across buckets: open
