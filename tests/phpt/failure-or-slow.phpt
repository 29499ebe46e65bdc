--TEST--
FailureOrSlowCallRateRule counts a slow failure once, over all outcomes
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

$listener = new RecordingListener();
$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [
        new FailureRateRule(threshold: 50, minimumRequests: 10),
        new FailureOrSlowCallRateRule(slowCallDuration: 2.0, threshold: 70, minimumRequests: 10),
    ],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = breaker($configuration, listener: $listener);
repeat(3, fn () => $breaker->registerFailure(5.0)); // slow failures: 3, not 6
repeat(3, fn () => $breaker->registerSuccess(2.5));  // slow successes
repeat(3, fn () => $breaker->registerSuccess(0.1));
echo $breaker->getState()->value, "\n";
$breaker->registerFailure(); // 7 of 10
echo $breaker->getState()->value, "\n";
$cause = $listener->events[0]->openingCause;
echo get_class($cause->openingRule), ' ', $cause->matchingOutcomes, '/', $cause->evaluatedOutcomes, "\n";
var_dump($cause->openingRule->slowCallDuration, $cause->openingRule->threshold, $cause->openingRule->minimumRequests);
?>
--EXPECT--
closed
open
Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule 7/10
float(2)
float(70)
int(10)
