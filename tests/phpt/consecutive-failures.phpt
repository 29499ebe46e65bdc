--TEST--
ConsecutiveFailuresRule opens after N failures in a row, whatever the window holds
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

$listener = new RecordingListener();
$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [
        new FailureRateRule(threshold: 50, minimumRequests: 10),
        new ConsecutiveFailuresRule(failures: 3),
    ],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = breaker($configuration, listener: $listener);
repeat(1000, fn () => $breaker->registerSuccess());
$breaker->registerFailure();
$breaker->registerFailure();
$breaker->registerSuccess();
$breaker->registerFailure();
$breaker->registerFailure();
echo $breaker->getState()->value, "\n";
$breaker->registerFailure();
echo $breaker->getState()->value, "\n";
$cause = $listener->events[0]->openingCause;
echo get_class($cause->openingRule), ' ', $cause->matchingOutcomes, '/', $cause->evaluatedOutcomes, ' failures=', $cause->openingRule->failures, "\n";
?>
--EXPECT--
closed
open
Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule 3/3 failures=3
