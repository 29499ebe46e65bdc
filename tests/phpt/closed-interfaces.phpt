--TEST--
OpeningRuleInterface and HalfOpenPolicyInterface are closed: a class of one's own that implements either is refused by Configuration with a message that says so (and what to build instead), not only that it is not one of the extension's classes
--FILE--
<?php
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
use Zeusi\CircuitBreaker\HalfOpen\HalfOpenPolicyInterface;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\OpeningRuleInterface;

final class ErrorBudgetRule implements OpeningRuleInterface {}
final class SingleProbePolicy implements HalfOpenPolicyInterface
{
    public function getMaxDuration(): float { return 30.0; }
}
$policy = PermittedCallsPolicy::createSingleTrial(maxDuration: 30);
$rule = new FailureRateRule(threshold: 50, minimumRequests: 10);
foreach ([
    fn () => new Configuration(timeWindow: 60, openingRules: [$rule, new ErrorBudgetRule()], openDuration: 10, halfOpenPolicy: $policy),
    fn () => new Configuration(timeWindow: 60, openingRules: [$rule], openDuration: 10, halfOpenPolicy: new SingleProbePolicy()),
    fn () => new Configuration(timeWindow: 60, openingRules: [new stdClass()], openDuration: 10, halfOpenPolicy: $policy),
] as $build) {
    try {
        $build();
        echo "accepted\n";
    } catch (InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
Invalid openingRules: ErrorBudgetRule at position 1 (a class of your own: OpeningRuleInterface is closed, implemented only by the extension's rules, which every storage runs natively) given, expected instances of FailureRateRule, SlowCallRateRule, FailureOrSlowCallRateRule, ConsecutiveFailuresRule or AdaptiveThrottlingRule
Invalid halfOpenPolicy: SingleProbePolicy (a class of your own: HalfOpenPolicyInterface is closed, implemented only by the extension's policies, which every storage runs natively) given, expected a RampPolicy (on any RampCurveInterface, yours included) or a PermittedCallsPolicy
Invalid openingRules: stdClass at position 0 given, expected instances of FailureRateRule, SlowCallRateRule, FailureOrSlowCallRateRule, ConsecutiveFailuresRule or AdaptiveThrottlingRule
