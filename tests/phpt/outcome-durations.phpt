--TEST--
An outcome's duration must be null or a finite number of seconds, at least 0
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
$breaker = breaker();
foreach ([-0.5, NAN, INF] as $duration) {
    try {
        $breaker->registerFailure($duration);
    } catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
$breaker->registerSuccess(0.0);
$breaker->registerSuccess(null);
$breaker->registerSuccess(3);
echo "valid durations accepted\n";
?>
--EXPECT--
Invalid duration: -0.5 given, expected null or a finite number of seconds, at least 0
Invalid duration: NAN given, expected null or a finite number of seconds, at least 0
Invalid duration: INF given, expected null or a finite number of seconds, at least 0
valid durations accepted
