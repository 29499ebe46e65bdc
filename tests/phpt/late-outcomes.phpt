--TEST--
Late outcomes count for the state current when they are registered
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;

$clock = new MockClock(1_764_000_000.0);
$listener = new RecordingListener();
$breaker = breaker(clock: $clock, listener: $listener);
repeat(4, fn () => $breaker->registerFailure());
// While open, late outcomes decide nothing.
repeat(20, fn () => $breaker->registerSuccess());
echo $breaker->getState()->value, "\n";
// Once half-open is due, a late failure of a call started long before counts
// for the half-open state and opens the circuit again, with no minimum.
$clock->sleep(10);
$breaker->registerFailure();
echo $breaker->getState()->value, "\n";
echo implode(' ', $listener->names()), "\n";
echo $listener->events[2]->previousState->value, "\n";
?>
--EXPECT--
open
open
CircuitOpened CircuitHalfOpened CircuitOpened
half_open
