--TEST--
Every invalid value fails at construction with InvalidConfigurationException naming the parameter, the value and the limits
--FILE--
<?php
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\ExponentialRampCurve;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\HalfOpen\PowerRampCurve;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;

$rule = new FailureRateRule(threshold: 50, minimumRequests: 10);
$policy = PermittedCallsPolicy::createSingleTrial(maxDuration: 30);
$cases = [
    fn () => new Configuration(timeWindow: 9.999, openingRules: [$rule], openDuration: 10, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 3601, openingRules: [$rule], openDuration: 10, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: NAN, openingRules: [$rule], openDuration: 10, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 60, openingRules: [], openDuration: 10, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 60, openingRules: [$rule, 'fast'], openDuration: 10, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 60, openingRules: [$rule], openDuration: 0.5, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 60, openingRules: [$rule], openDuration: 2592001, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 60, openingRules: [$rule], openDuration: INF, halfOpenPolicy: $policy),
    fn () => new FailureRateRule(threshold: 0.5, minimumRequests: 10),
    fn () => new FailureRateRule(threshold: 101, minimumRequests: 10),
    fn () => new FailureRateRule(threshold: NAN, minimumRequests: 10),
    fn () => new FailureRateRule(threshold: 50, minimumRequests: 0),
    fn () => new SlowCallRateRule(slowCallDuration: 0.0001, threshold: 50, minimumRequests: 10),
    fn () => new SlowCallRateRule(slowCallDuration: -INF, threshold: 50, minimumRequests: 10),
    fn () => new FailureOrSlowCallRateRule(slowCallDuration: 1, threshold: 200, minimumRequests: 10),
    fn () => new ConsecutiveFailuresRule(failures: 0),
    fn () => RampPolicy::createExponential(duration: 0, initialRatio: 0.01),
    fn () => RampPolicy::createExponential(duration: 60, initialRatio: 0),
    fn () => RampPolicy::createLinear(duration: 60, initialRatio: 1.5),
    fn () => RampPolicy::createPower(duration: 60, initialRatio: 0.01, exponent: -1),
    fn () => new ExponentialRampCurve(initialRatio: NAN),
    fn () => new PowerRampCurve(initialRatio: 0.1, exponent: INF),
    fn () => PermittedCallsPolicy::createSingleTrial(maxDuration: 0.9),
    fn () => new PermittedCallsPolicy(maxDuration: 30, permittedCalls: 0),
];
foreach ($cases as $case) {
    try {
        $case();
        echo "accepted\n";
    } catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
// The limits themselves are accepted.
new Configuration(timeWindow: 10, openingRules: [$rule], openDuration: 1, halfOpenPolicy: $policy);
new Configuration(timeWindow: 3600, openingRules: [$rule], openDuration: 2592000, halfOpenPolicy: new PermittedCallsPolicy(maxDuration: 2592000, permittedCalls: 1));
new SlowCallRateRule(slowCallDuration: 0.001, threshold: 1, minimumRequests: 1);
new FailureRateRule(threshold: 100, minimumRequests: 1);
RampPolicy::createExponential(duration: 1, initialRatio: 1);
echo "limits accepted\n";
?>
--EXPECT--
Invalid timeWindow: 9.999 given, expected 10 to 3600 seconds
Invalid timeWindow: 3601 given, expected 10 to 3600 seconds
Invalid timeWindow: NAN given, expected 10 to 3600 seconds
Invalid openingRules: [] given, expected at least one opening rule
Invalid openingRules: 'fast' at position 1 given, expected instances of FailureRateRule, SlowCallRateRule, FailureOrSlowCallRateRule, ConsecutiveFailuresRule or AdaptiveThrottlingRule
Invalid openDuration: 0.5 given, expected 1 to 2592000 seconds (30 days)
Invalid openDuration: 2592001 given, expected 1 to 2592000 seconds (30 days)
Invalid openDuration: INF given, expected 1 to 2592000 seconds (30 days)
Invalid threshold: 0.5 given, expected a percentage from 1 to 100
Invalid threshold: 101 given, expected a percentage from 1 to 100
Invalid threshold: NAN given, expected a percentage from 1 to 100
Invalid minimumRequests: 0 given, expected at least 1
Invalid slowCallDuration: 0.0001 given, expected at least 0.001 seconds
Invalid slowCallDuration: -INF given, expected at least 0.001 seconds
Invalid threshold: 200 given, expected a percentage from 1 to 100
Invalid failures: 0 given, expected at least 1
Invalid duration: 0 given, expected 1 to 2592000 seconds (30 days)
Invalid initialRatio: 0 given, expected greater than 0 and at most 1
Invalid initialRatio: 1.5 given, expected greater than 0 and at most 1
Invalid exponent: -1 given, expected greater than 0 and at most 100
Invalid initialRatio: NAN given, expected greater than 0 and at most 1
Invalid exponent: INF given, expected greater than 0 and at most 100
Invalid maxDuration: 0.9 given, expected 1 to 2592000 seconds (30 days)
Invalid permittedCalls: 0 given, expected at least 1
limits accepted
