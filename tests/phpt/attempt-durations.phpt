--TEST--
Attempt::registerResult() and registerException() take the same durations as registerSuccess(): null or finite seconds, at least 0
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Execution\CallGate;

$listener = new RecordingListener();
$breaker = breaker(listener: $listener);
$gate = new CallGate($breaker);
foreach ([NAN, -1.0, INF, -INF] as $duration) {
    foreach (['registerSuccess', 'registerResult', 'registerException'] as $method) {
        try {
            match ($method) {
                'registerSuccess' => $breaker->registerSuccess($duration),
                'registerResult' => $gate->admit()->registerResult('result', $duration),
                'registerException' => $gate->admit()->registerException(new RuntimeException(), $duration),
            };
            echo "$method accepted\n";
        } catch (ValueError $e) {
            echo "$method: ", $e->getMessage(), "\n";
        }
    }
}
// A refused duration leaves the attempt unregistered: it can still report.
$attempt = $gate->admit();
try {
    $attempt->registerException(new RuntimeException(), NAN);
} catch (ValueError) {
}
repeat(4, fn () => $gate->admit()->registerException(new RuntimeException(), 0.5));
echo $breaker->getState()->value, "\n";
$attempt->registerResult('late', 0.0);
echo implode(' ', $listener->names()), "\n";
?>
--EXPECT--
registerSuccess: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be null or a finite number of seconds, at least 0, NAN given
registerResult: Zeusi\CircuitBreaker\Execution\Attempt::registerResult(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, NAN given
registerException: Zeusi\CircuitBreaker\Execution\Attempt::registerException(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, NAN given
registerSuccess: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be null or a finite number of seconds, at least 0, -1 given
registerResult: Zeusi\CircuitBreaker\Execution\Attempt::registerResult(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, -1 given
registerException: Zeusi\CircuitBreaker\Execution\Attempt::registerException(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, -1 given
registerSuccess: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be null or a finite number of seconds, at least 0, INF given
registerResult: Zeusi\CircuitBreaker\Execution\Attempt::registerResult(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, INF given
registerException: Zeusi\CircuitBreaker\Execution\Attempt::registerException(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, INF given
registerSuccess: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be null or a finite number of seconds, at least 0, -INF given
registerResult: Zeusi\CircuitBreaker\Execution\Attempt::registerResult(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, -INF given
registerException: Zeusi\CircuitBreaker\Execution\Attempt::registerException(): Argument #2 ($duration) must be null or a finite number of seconds, at least 0, -INF given
open
CircuitOpened
