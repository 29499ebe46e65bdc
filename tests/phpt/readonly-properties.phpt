--TEST--
Read-only properties of rules, configurations, events and opening causes: typed and readonly in reflection, and an Error as PHP throws for readonly properties when written or unset
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$listener = new RecordingListener();
$policy = new PermittedCallsPolicy(5);
$configuration = new Configuration(60, [new ConsecutiveFailuresRule(1)], 30, $policy);
$breaker = new CircuitBreaker('api', $configuration, new InMemoryStorage(), $listener);
$breaker->registerFailure();
$breaker->acquirePermission();
$opened = $listener->events[0];
$objects = [
    new FailureRateRule(50, 10), new SlowCallRateRule(1, 50, 10), new FailureOrSlowCallRateRule(1, 50, 10),
    new ConsecutiveFailuresRule(3), $policy, $configuration, $opened, $opened->openingCause, $listener->events[1],
];
foreach ($objects as $object) {
    foreach ((new ReflectionObject($object))->getProperties() as $property) {
        $name = $property->getName();
        $before = $object->$name;
        $written = $unset = 'no error';
        try {
            $object->$name = $before;
        } catch (Throwable $e) {
            $written = get_class($e) . ': ' . $e->getMessage();
        }
        try {
            unset($object->$name);
        } catch (Throwable $e) {
            $unset = get_class($e);
        }
        printf("%s %s%s $%s: %s; unset: %s; %s\n", $property->isPublic() ? 'public' : 'not public',
            $property->isReadOnly() ? 'readonly ' : '', $property->getType(), $name, $written, $unset,
            $object->$name === $before ? 'unchanged' : 'CHANGED');
    }
}
?>
--EXPECT--
public readonly float $threshold: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\FailureRateRule::$threshold; unset: Error; unchanged
public readonly int $minimumRequests: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\FailureRateRule::$minimumRequests; unset: Error; unchanged
public readonly float $slowCallDuration: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\SlowCallRateRule::$slowCallDuration; unset: Error; unchanged
public readonly float $threshold: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\SlowCallRateRule::$threshold; unset: Error; unchanged
public readonly int $minimumRequests: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\SlowCallRateRule::$minimumRequests; unset: Error; unchanged
public readonly float $slowCallDuration: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule::$slowCallDuration; unset: Error; unchanged
public readonly float $threshold: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule::$threshold; unset: Error; unchanged
public readonly int $minimumRequests: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule::$minimumRequests; unset: Error; unchanged
public readonly int $failures: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule::$failures; unset: Error; unchanged
public readonly int $permittedCalls: Error: Cannot modify readonly property Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::$permittedCalls; unset: Error; unchanged
public readonly float $timeWindow: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Configuration::$timeWindow; unset: Error; unchanged
public readonly array $openingRules: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Configuration::$openingRules; unset: Error; unchanged
public readonly float $openDuration: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Configuration::$openDuration; unset: Error; unchanged
public readonly ?float $maxOpenDuration: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Configuration::$maxOpenDuration; unset: Error; unchanged
public readonly ?int $maxConcurrentCalls: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Configuration::$maxConcurrentCalls; unset: Error; unchanged
public readonly Zeusi\CircuitBreaker\HalfOpen\HalfOpenPolicyInterface $halfOpenPolicy: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Configuration::$halfOpenPolicy; unset: Error; unchanged
public readonly Zeusi\CircuitBreaker\State $previousState: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Event\CircuitOpened::$previousState; unset: Error; unchanged
public readonly Zeusi\CircuitBreaker\Opening\OpeningCause $openingCause: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Event\CircuitOpened::$openingCause; unset: Error; unchanged
public readonly float $openDuration: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Event\CircuitOpened::$openDuration; unset: Error; unchanged
public readonly Zeusi\CircuitBreaker\Opening\OpeningRuleInterface $openingRule: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\OpeningCause::$openingRule; unset: Error; unchanged
public readonly int $matchingOutcomes: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\OpeningCause::$matchingOutcomes; unset: Error; unchanged
public readonly int $evaluatedOutcomes: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Opening\OpeningCause::$evaluatedOutcomes; unset: Error; unchanged
public readonly Zeusi\CircuitBreaker\State $state: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Event\CallRejected::$state; unset: Error; unchanged
public readonly Zeusi\CircuitBreaker\RejectionReason $reason: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Event\CallRejected::$reason; unset: Error; unchanged
