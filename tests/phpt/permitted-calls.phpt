--TEST--
Permitted calls: the first calls test the service; the circuit closes once they all reported, or at the maximum duration
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

function configuration(): Configuration
{
    return new Configuration(
        timeWindow: 60,
        openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
        openDuration: 10,
        halfOpenPolicy: new PermittedCallsPolicy(maxDuration: 30, permittedCalls: 3),
    );
}

$clock = new MockClock(1_764_000_000.0);
$breaker = breaker(configuration(), $clock);
repeat(4, fn () => $breaker->registerFailure());
$clock->sleep(10);
$permissions = [];
for ($i = 0; $i < 5; $i++) {
    $permissions[] = $breaker->acquirePermission() ? 'yes' : 'no';
}
echo implode(' ', $permissions), "\n";
$breaker->registerSuccess();
$breaker->registerSuccess();
echo $breaker->getState()->value, " after 2 of 3\n";
$breaker->registerSuccess();
echo $breaker->getState()->value, " after 3 of 3\n";

// One of the permitted calls never reports: the circuit closes at the maximum duration.
$clock = new MockClock(1_764_000_000.0);
$breaker = breaker(configuration(), $clock);
repeat(4, fn () => $breaker->registerFailure());
$clock->sleep(10);
repeat(3, fn () => $breaker->acquirePermission());
$breaker->registerSuccess();
$breaker->registerSuccess();
$clock->sleep(29.999);
echo $breaker->getState()->value, " at 29.999 s\n";
$clock->sleep(0.001);
echo $breaker->getState()->value, " at 30 s\n";
?>
--EXPECT--
yes yes yes no no
half_open after 2 of 3
closed after 3 of 3
half_open at 29.999 s
closed at 30 s
