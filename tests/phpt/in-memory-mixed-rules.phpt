--TEST--
InMemoryStorage: two breakers of one service with different numbers of slow-call rules share its circuit, without a panic
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$clock = new MockClock(1_764_000_000.0);
$storage = new InMemoryStorage($clock);
$policy = PermittedCallsPolicy::createSingleTrial(maxDuration: 30);
$listener = new RecordingListener();
$plain = new CircuitBreaker('api', new Configuration(
    timeWindow: 10,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: $policy,
), $storage, $listener, $clock);
$slow = new CircuitBreaker('api', new Configuration(
    timeWindow: 10,
    openingRules: [
        new SlowCallRateRule(slowCallDuration: 1, threshold: 50, minimumRequests: 4),
        new SlowCallRateRule(slowCallDuration: 2, threshold: 90, minimumRequests: 4),
    ],
    openDuration: 10,
    halfOpenPolicy: $policy,
), $storage, $listener, $clock);

// The breaker with fewer counters makes the bucket first.
$plain->registerSuccess();
$slow->registerSuccess(1.5);
$plain->registerSuccess();
$slow->registerSuccess(1.5);
$slow->registerSuccess(0.1);
echo "3 timed calls, 2 slow: ", $slow->getState()->value, "\n";
$slow->registerSuccess(0.1);
echo "4 timed calls, 2 slow: ", $slow->getState()->value, "\n";
$opened = $listener->events[0];
printf(
    "%s by the %g s rule: %d of %d\n",
    implode(' ', $listener->names()),
    $opened->openingCause->openingRule->slowCallDuration,
    $opened->openingCause->matchingOutcomes,
    $opened->openingCause->evaluatedOutcomes,
);
?>
--EXPECT--
3 timed calls, 2 slow: closed
4 timed calls, 2 slow: open
CircuitOpened by the 1 s rule: 2 of 4
