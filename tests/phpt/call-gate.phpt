--TEST--
CallGate admits calls and each Attempt registers only its first outcome
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallGate;

$breaker = breaker();
$gate = new CallGate($breaker);
$attempts = [];
for ($i = 0; $i < 4; $i++) {
    $attempts[] = $gate->admit();
}
foreach ($attempts as $attempt) {
    $attempt->registerException(new RuntimeException('timeout'), 2.0);
    $attempt->registerResult('late duplicate', 0.1); // ignored: not the first outcome
    $attempt->registerException(new RuntimeException('again'));
}
echo $breaker->getState()->value, "\n";
try {
    $gate->admit();
} catch (CallNotPermittedException $e) {
    echo get_class($e), ' ', $e->getState()->value, "\n";
}

$breaker = breaker();
$gate = new CallGate($breaker);
$attempt = $gate->admit();
$attempt->registerResult(['ok'], null);
repeat(3, fn () => $gate->admit()->registerException(new RuntimeException()));
echo $breaker->getState()->value, " (3 of 4 failed)\n";
?>
--EXPECT--
open
Zeusi\CircuitBreaker\Exception\CallNotPermittedException open
open (3 of 4 failed)
