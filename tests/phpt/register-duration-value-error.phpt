--TEST--
A duration out of its limits given to a register at run time is PHP's ValueError naming the method, the parameter and its limits, as PHP's own functions throw (not an InvalidConfigurationException: nothing is being configured); nothing is registered
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Execution\CallGate;

$breaker = breaker();
$calls = [
    fn () => $breaker->registerSuccess(-1),
    fn () => $breaker->registerFailure(NAN),
    fn () => $breaker->registerSuccess(INF),
    fn () => (new CallGate($breaker))->admit()->registerResult('result', -0.5),
    fn () => (new CallGate($breaker))->admit()->registerException(new RuntimeException('down'), -2),
];
foreach ($calls as $call) {
    try {
        $call();
        echo "nothing thrown\n";
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
echo 'registered: ', $breaker->getStatus()->calls, "\n";
$breaker->registerSuccess(0);
$breaker->registerSuccess(null);
$breaker->registerSuccess(3);
echo 'registered: ', $breaker->getStatus()->calls, "\n";
?>
--EXPECT--
ValueError: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be null or a finite number of seconds, at least 0, -1 given
ValueError: Zeusi\CircuitBreaker\CircuitBreaker::registerFailure(): Argument #1 ($duration) must be null or a finite number of seconds, at least 0, NAN given
ValueError: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be null or a finite number of seconds, at least 0, INF given
ValueError: Zeusi\CircuitBreaker\Execution\Attempt::registerResult(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, -0.5 given
ValueError: Zeusi\CircuitBreaker\Execution\Attempt::registerException(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, -2 given
registered: 0
registered: 3
