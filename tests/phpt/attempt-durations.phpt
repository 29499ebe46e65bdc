--TEST--
Attempt::registerResult() and registerException() take the same durations as registerSuccess(): null or finite seconds, at least 0
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
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
        } catch (InvalidConfigurationException $e) {
            echo "$method: ", $e->getMessage(), "\n";
        }
    }
}
// A refused duration leaves the attempt unregistered: it can still report.
$attempt = $gate->admit();
try {
    $attempt->registerException(new RuntimeException(), NAN);
} catch (InvalidConfigurationException) {
}
repeat(4, fn () => $gate->admit()->registerException(new RuntimeException(), 0.5));
echo $breaker->getState()->value, "\n";
$attempt->registerResult('late', 0.0);
echo implode(' ', $listener->names()), "\n";
?>
--EXPECT--
registerSuccess: Invalid duration: NAN given, expected null or a finite number of seconds, at least 0
registerResult: Invalid duration: NAN given, expected null or a finite number of seconds, at least 0
registerException: Invalid duration: NAN given, expected null or a finite number of seconds, at least 0
registerSuccess: Invalid duration: -1 given, expected null or a finite number of seconds, at least 0
registerResult: Invalid duration: -1 given, expected null or a finite number of seconds, at least 0
registerException: Invalid duration: -1 given, expected null or a finite number of seconds, at least 0
registerSuccess: Invalid duration: INF given, expected null or a finite number of seconds, at least 0
registerResult: Invalid duration: INF given, expected null or a finite number of seconds, at least 0
registerException: Invalid duration: INF given, expected null or a finite number of seconds, at least 0
registerSuccess: Invalid duration: -INF given, expected null or a finite number of seconds, at least 0
registerResult: Invalid duration: -INF given, expected null or a finite number of seconds, at least 0
registerException: Invalid duration: -INF given, expected null or a finite number of seconds, at least 0
open
CircuitOpened
