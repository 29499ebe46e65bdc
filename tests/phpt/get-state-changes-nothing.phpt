--TEST--
getState() returns the state the next call would find and changes nothing
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;

$clock = new MockClock(1_764_000_000.0);
$listener = new RecordingListener();
$breaker = breaker(clock: $clock, listener: $listener);
repeat(4, fn () => $breaker->registerFailure());
$clock->sleep(10);
echo $breaker->getState()->value, ' ', $breaker->getState()->value, "\n";
echo implode(' ', $listener->names()), "\n";
var_dump($breaker->acquirePermission());
echo implode(' ', $listener->names()), "\n";
?>
--EXPECT--
half_open half_open
CircuitOpened
bool(true)
CircuitOpened CircuitHalfOpened
