--TEST--
Throttling (review): once a half-open trial closes the circuit (a fresh, empty window: getStatus()->rejectionRate 0), calls must not be refused from the window read before it opened
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\AdaptiveThrottlingRule;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$clock = new MockClock('2026-01-01');
$breaker = new CircuitBreaker('review-recovery', new Configuration(
    timeWindow: 60,
    openingRules: [new ConsecutiveFailuresRule(failures: 10), new AdaptiveThrottlingRule(k: 1.5, minimumRequests: 5)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
), new InMemoryStorage($clock), null, $clock);
while ($breaker->getState()->name === 'Closed') {
    if ($breaker->acquirePermission()) {
        $breaker->registerFailure(0.01);
    }
}
echo $breaker->getState()->name, "\n";
$clock->sleep(11);
var_dump($breaker->acquirePermission());
$breaker->registerSuccess(0.01);
$status = $breaker->getStatus();
echo "{$breaker->getState()->name}, rejection rate {$status->rejectionRate}\n";
$calls = '';
for ($i = 0; $i < 10; $i++) {
    if ($breaker->acquirePermission()) {
        $calls .= 'o';
        $breaker->registerSuccess(0.01);
    } else {
        $calls .= 'x';
    }
}
echo "the service healthy again: $calls\n";
?>
--EXPECT--
Open
bool(true)
Closed, rejection rate 0
the service healthy again: oooooooooo
