--TEST--
The usage example of the documentation runs unchanged with InMemoryStorage
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [
        new FailureRateRule(threshold: 50, minimumRequests: 10),
    ],
    openDuration: 10,
    halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
);

$breaker = new CircuitBreaker('payments', $configuration, new InMemoryStorage());

function charge(CircuitBreaker $breaker, bool $gatewayUp): string
{
    if (!$breaker->acquirePermission()) {
        return 'deferred';
    }
    try {
        if (!$gatewayUp) {
            throw new RuntimeException('gateway unavailable');
        }
    } catch (RuntimeException $e) {
        $breaker->registerFailure();
        return 'failed';
    }
    $breaker->registerSuccess();
    return 'charged';
}

$results = [];
for ($i = 0; $i < 12; $i++) {
    $results[] = charge($breaker, false);
}
echo implode(' ', $results), "\n";
echo $breaker->getState()->value, "\n";
echo $breaker->getService(), "\n";
?>
--EXPECT--
failed failed failed failed failed failed failed failed failed failed deferred deferred
open
payments
