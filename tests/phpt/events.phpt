--TEST--
Events: each transition once, every rejection, service and time from the breaker's clock
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Event\EventInterface;

$clock = new MockClock(1_764_000_000.25);
$listener = new RecordingListener();
$breaker = breaker(clock: $clock, listener: $listener);
repeat(6, fn () => $breaker->registerFailure()); // opens at the 4th; later failures change nothing
repeat(3, fn () => $breaker->acquirePermission());
$clock->sleep(10);
repeat(3, fn () => $breaker->acquirePermission()); // one trial, two rejected in half-open
$breaker->registerSuccess();
echo implode(' ', $listener->names(true)), "\n";
foreach ($listener->events as $event) {
    assert($event instanceof EventInterface);
    printf("%s %s %.3f%s\n", (new ReflectionClass($event))->getShortName(), $event->getService(), $event->getTime(), isset($event->state) ? ' ' . $event->state->value : '');
}
?>
--EXPECT--
CircuitOpened CallRejected CallRejected CallRejected CircuitHalfOpened CallRejected CallRejected CircuitClosed
CircuitOpened payments 1764000000.250
CallRejected payments 1764000000.250 open
CallRejected payments 1764000000.250 open
CallRejected payments 1764000000.250 open
CircuitHalfOpened payments 1764000010.250
CallRejected payments 1764000010.250 half_open
CallRejected payments 1764000010.250 half_open
CircuitClosed payments 1764000010.250
