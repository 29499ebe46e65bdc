--TEST--
Configurations built from equal arguments (interned per process) each keep their own rules, policy and curve
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\HalfOpen\RampCurveInterface;

function configuration(array $rules, $policy = null, float $openDuration = 10): Configuration
{
    return new Configuration(
        timeWindow: 10,
        openingRules: $rules,
        openDuration: $openDuration,
        halfOpenPolicy: $policy ?? PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    );
}

/** The rule that opened a breaker over $configuration after $failures failures, or null. */
function opening_rule(Configuration $configuration, int $failures): ?object
{
    $listener = new RecordingListener();
    $breaker = breaker($configuration, listener: $listener);
    repeat($failures, fn () => $breaker->registerFailure());
    return $listener->events[0]->openingCause->openingRule ?? null;
}

// Equal arguments, other rule objects: each configuration names its own.
$first = new FailureRateRule(threshold: 50, minimumRequests: 4);
$second = new FailureRateRule(threshold: 50, minimumRequests: 4);
$a = configuration([$first]);
$b = configuration([$second]);
var_dump(opening_rule($a, 4) === $first, opening_rule($b, 4) === $second);
var_dump($b->openingRules === [$second]);

// One argument apart: each opens by its own.
var_dump(opening_rule(configuration([new FailureRateRule(threshold: 50, minimumRequests: 5)]), 4));
echo get_class(opening_rule(configuration([new FailureRateRule(threshold: 50, minimumRequests: 4), new ConsecutiveFailuresRule(failures: 2)]), 2)), "\n";
var_dump(configuration([$first], openDuration: 20)->openDuration);

// Keys are not kept: the rules are a list, in the order given.
$keyed = configuration(['slow' => $second, 7 => $first]);
var_dump($keyed->openingRules === [$second, $first]);
var_dump(opening_rule($keyed, 4) === $second);
$holes = [0 => $first, 1 => $second];
unset($holes[0]);
var_dump(configuration($holes)->openingRules === [$second]);

// The array given is the caller's: changing it afterwards changes nothing.
$rules = [$first];
$kept = configuration($rules);
$rules[] = new ConsecutiveFailuresRule(failures: 1);
var_dump(count($kept->openingRules), opening_rule($kept, 1));

// Each configuration keeps its own policy object, and a curve of PHP's is
// asked by the breakers of its configuration only.
$policy = PermittedCallsPolicy::createSingleTrial(maxDuration: 30);
var_dump(configuration([$first], $policy)->halfOpenPolicy === $policy);
final class CountingCurve implements RampCurveInterface
{
    public int $asked = 0;
    public function computeAdmissionRatio(float $progress): float
    {
        $this->asked++;
        return 1.0;
    }
}
$curves = [new CountingCurve(), new CountingCurve()];
foreach ($curves as $curve) {
    $clock = new Zeusi\CircuitBreaker\Clock\MockClock(1_764_000_000.0);
    $breaker = breaker(configuration([$first], new RampPolicy(duration: 60, curve: $curve)), $clock);
    repeat(4, fn () => $breaker->registerFailure());
    $clock->sleep(10);
    repeat(3, fn () => $breaker->acquirePermission());
}
echo $curves[0]->asked, ' ', $curves[1]->asked, "\n";

// Invalid arguments are refused every time, as they were the first.
foreach ([1, 2] as $_) {
    try {
        configuration([$first, 'nope']);
    } catch (InvalidArgumentException $e) {
        echo $e->getMessage(), "\n";
    }
}
?>
--EXPECTF--
bool(true)
bool(true)
bool(true)
NULL
Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule
float(20)
bool(true)
bool(true)
bool(true)
int(1)
NULL
bool(true)
2 2
%sopeningRules%sat position 1%s
%sopeningRules%sat position 1%s
