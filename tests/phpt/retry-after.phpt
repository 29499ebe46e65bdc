--TEST--
CallNotPermittedException gives the seconds until the circuit may permit calls, and null in half-open
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;

$clock = new MockClock(1_764_000_000.0);
$breaker = breaker(clock: $clock);
$executor = new CallExecutor($breaker);
repeat(4, fn () => $breaker->registerFailure());
$clock->sleep(2.5);
try {
    $executor->execute(fn () => 'never');
} catch (CallNotPermittedException $e) {
    echo $e->getMessage(), "\n";
    var_dump($e->getService(), $e->getState(), $e->getRetryAfter());
}
$clock->sleep(7.5);
$executor->execute(fn () => 'the trial'); // permitted, and success closes: single trial
repeat(4, fn () => $breaker->registerFailure());
$clock->sleep(10);
var_dump($breaker->acquirePermission()); // the trial
try {
    $executor->execute(fn () => 'never');
} catch (CallNotPermittedException $e) {
    echo $e->getMessage(), "\n";
    var_dump($e->getState(), $e->getRetryAfter());
}
?>
--EXPECT--
Circuit 'payments' is open: no call permitted for 7.5 s
string(8) "payments"
enum(Zeusi\CircuitBreaker\State::Open)
float(7.5)
bool(true)
Circuit 'payments' is half-open: this call was not permitted
enum(Zeusi\CircuitBreaker\State::HalfOpen)
NULL
