--TEST--
Durations are checked against their limits as given, before they are rounded to the millisecond
--FILE--
<?php
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;

$rule = new FailureRateRule(threshold: 50, minimumRequests: 10);
$policy = PermittedCallsPolicy::createSingleTrial(maxDuration: 30);
// Each of these rounds to a value within the limits, but is outside them.
$below = [
    fn () => new SlowCallRateRule(slowCallDuration: 0.0009, threshold: 50, minimumRequests: 10),
    fn () => new FailureOrSlowCallRateRule(slowCallDuration: 0.0005, threshold: 50, minimumRequests: 10),
    fn () => new Configuration(timeWindow: 9.9996, openingRules: [$rule], openDuration: 10, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 3600.0004, openingRules: [$rule], openDuration: 10, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 60, openingRules: [$rule], openDuration: 0.9996, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 60, openingRules: [$rule], openDuration: 2592000.0004, halfOpenPolicy: $policy),
    fn () => PermittedCallsPolicy::createSingleTrial(maxDuration: 0.9999),
    fn () => RampPolicy::createLinear(duration: 0.9995, initialRatio: 0.1),
];
foreach ($below as $make) {
    try {
        $make();
        echo "accepted\n";
    } catch (InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
// The limits themselves are accepted.
new SlowCallRateRule(slowCallDuration: 0.001, threshold: 50, minimumRequests: 10);
new Configuration(timeWindow: 10, openingRules: [$rule], openDuration: 1, halfOpenPolicy: $policy);
new Configuration(timeWindow: 3600, openingRules: [$rule], openDuration: 2592000, halfOpenPolicy: $policy);
echo "limits accepted\n";
?>
--EXPECT--
Invalid slowCallDuration: 0.0009 given, expected at least 0.001 seconds
Invalid slowCallDuration: 0.0005 given, expected at least 0.001 seconds
Invalid timeWindow: 9.9996 given, expected 10 to 3600 seconds
Invalid timeWindow: 3600.0004 given, expected 10 to 3600 seconds
Invalid openDuration: 0.9996 given, expected 1 to 2592000 seconds (30 days)
Invalid openDuration: 2592000.0004 given, expected 1 to 2592000 seconds (30 days)
Invalid maxDuration: 0.9999 given, expected 1 to 2592000 seconds (30 days)
Invalid duration: 0.9995 given, expected 1 to 2592000 seconds (30 days)
limits accepted
