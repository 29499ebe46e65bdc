--TEST--
The minimum of calls can be reached by a success, which then opens the circuit
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
$breaker = breaker();
repeat(3, fn () => $breaker->registerFailure());
echo $breaker->getState()->value, "\n";
$breaker->registerSuccess();
echo $breaker->getState()->value, "\n";
?>
--EXPECT--
closed
open
