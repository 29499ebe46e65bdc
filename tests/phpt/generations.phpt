--TEST--
Half-open never sees the failures that opened the circuit, and closed starts afresh after it
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

$clock = new MockClock(1_764_000_000.0);
$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: new PermittedCallsPolicy(maxDuration: 30, permittedCalls: 2),
);
$breaker = breaker($configuration, $clock);
repeat(4, fn () => $breaker->registerFailure());
$clock->sleep(10);
var_dump($breaker->acquirePermission());
$breaker->registerSuccess(); // 1 of 1 half-open outcomes succeeded: the 4 failures are not counted
echo $breaker->getState()->value, "\n";
var_dump($breaker->acquirePermission());
$breaker->registerSuccess();
echo $breaker->getState()->value, "\n";
repeat(3, fn () => $breaker->registerFailure());
echo $breaker->getState()->value, " after 3 new failures\n";
$breaker->registerFailure();
echo $breaker->getState()->value, " after the 4th\n";
?>
--EXPECT--
bool(true)
half_open
bool(true)
closed
closed after 3 new failures
open after the 4th
