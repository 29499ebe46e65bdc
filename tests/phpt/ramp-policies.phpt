--TEST--
Ramp policies permit a growing ratio of calls, from the end of the open time, then close after their duration
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

function permitted(Zeusi\CircuitBreaker\CircuitBreaker $breaker, int $calls): int
{
    $permitted = 0;
    for ($i = 0; $i < $calls; $i++) {
        $permitted += (int) $breaker->acquirePermission();
    }
    return $permitted;
}

foreach ([
    'exponential' => RampPolicy::createExponential(duration: 100, initialRatio: 0.01),
    'linear' => RampPolicy::createLinear(duration: 100, initialRatio: 0.01),
    'power 2' => RampPolicy::createPower(duration: 100, initialRatio: 0.01, exponent: 2),
] as $name => $policy) {
    $clock = new MockClock(1_764_000_000.0);
    $configuration = new Configuration(
        timeWindow: 60,
        openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
        openDuration: 10,
        halfOpenPolicy: $policy,
    );
    $breaker = breaker($configuration, $clock);
    repeat(4, fn () => $breaker->registerFailure());
    $clock->sleep(10);
    $start = permitted($breaker, 1000);
    $clock->sleep(50);
    $half = permitted($breaker, 1000);
    $clock->sleep(49.999);
    $state = $breaker->getState()->value;
    $clock->sleep(0.001);
    printf("%s: %d then %d per 1000 calls, %s before the end, %s at the end\n", $name, $start, $half, $state, $breaker->getState()->value);
}
?>
--EXPECT--
exponential: 10 then 100 per 1000 calls, half_open before the end, closed at the end
linear: 10 then 505 per 1000 calls, half_open before the end, closed at the end
power 2: 10 then 257 per 1000 calls, half_open before the end, closed at the end
