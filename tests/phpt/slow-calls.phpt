--TEST--
Slow calls: a duration equal to slowCallDuration is slow; outcomes without duration neither raise nor dilute the rate nor count for its minimum
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new SlowCallRateRule(slowCallDuration: 2.0, threshold: 80, minimumRequests: 5)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = breaker($configuration);
repeat(50, fn () => $breaker->registerFailure()); // no duration: invisible to the rule
echo $breaker->getState()->value, " after 50 failures without duration\n";
repeat(3, fn () => $breaker->registerSuccess(2.0));
$breaker->registerSuccess(1.999);
echo $breaker->getState()->value, " at 3 slow of 4 timed\n";
repeat(100, fn () => $breaker->registerSuccess()); // does not dilute
$breaker->registerFailure(7.5);
echo $breaker->getState()->value, " at 4 slow of 5 timed\n";
?>
--EXPECT--
closed after 50 failures without duration
closed at 3 slow of 4 timed
open at 4 slow of 5 timed
