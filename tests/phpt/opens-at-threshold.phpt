--TEST--
Closed opens when a rule's rate reaches its threshold exactly, with at least its minimum of calls
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
$listener = new RecordingListener();
$breaker = breaker(listener: $listener); // 50%, at least 4 calls
$breaker->registerFailure();
$breaker->registerFailure();
$breaker->registerFailure();
echo $breaker->getState()->value, " after 3 failures (below the minimum)\n";
$breaker = breaker(listener: $listener = new RecordingListener());
repeat(3, fn () => $breaker->registerSuccess());
$breaker->registerFailure();
$breaker->registerFailure();
echo $breaker->getState()->value, " at 2 of 5 (40%)\n";
$breaker->registerFailure();
echo $breaker->getState()->value, " at 3 of 6 (50%)\n";
$opened = $listener->events[0];
echo $opened->openingCause->matchingOutcomes, ' of ', $opened->openingCause->evaluatedOutcomes, ', from ', $opened->previousState->value, "\n";
?>
--EXPECT--
closed after 3 failures (below the minimum)
closed at 2 of 5 (40%)
open at 3 of 6 (50%)
3 of 6, from closed
