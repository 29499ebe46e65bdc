--TEST--
After a long silence the circuit goes straight to closed: half-open counted from the end of the open time
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;

$clock = new MockClock(1_764_000_000.0);
$listener = new RecordingListener();
$breaker = breaker(clock: $clock, listener: $listener); // open 10 s, single trial up to 30 s
repeat(4, fn () => $breaker->registerFailure());
$clock->sleep(39.999);
echo $breaker->getState()->value, " at 39.999 s\n";
$clock->sleep(0.001);
echo $breaker->getState()->value, " at 40 s\n";
var_dump($breaker->acquirePermission());
echo implode(' ', $listener->names()), "\n";
?>
--EXPECT--
half_open at 39.999 s
closed at 40 s
bool(true)
CircuitOpened CircuitClosed
