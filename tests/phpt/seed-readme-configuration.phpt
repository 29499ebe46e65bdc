--TEST--
The seed README's configuration examples run unchanged: the opening rule lists with SlowCallRateRule and FailureOrSlowCallRateRule, each ramp and permitted-calls policy, and a ramp on a userland curve; registerSuccess(0.25) takes a duration
--FILE--
<?php
require __DIR__ . '/seed-readme.inc';

// Seed README, Opening rules (lines 197-197), unchanged.
$slowUse = <<<'EXAMPLE'
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
EXAMPLE;
// Seed README, Opening rules (lines 199-203), unchanged.
$slowRules = <<<'EXAMPLE'
openingRules: [
    new FailureRateRule(threshold: 50, minimumRequests: 10),
    // opens when 80% of the calls take 2 seconds or more
    new SlowCallRateRule(slowCallDuration: 2.0, threshold: 80, minimumRequests: 10),
],
EXAMPLE;
// Seed README, Opening rules (lines 219-219), unchanged.
$failureOrSlowUse = <<<'EXAMPLE'
use Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule;
EXAMPLE;
// Seed README, Opening rules (lines 221-225), unchanged.
$failureOrSlowRules = <<<'EXAMPLE'
openingRules: [
    new FailureRateRule(threshold: 50, minimumRequests: 10),
    // opens when 70% of the calls failed or took 2 seconds or more
    new FailureOrSlowCallRateRule(slowCallDuration: 2.0, threshold: 70, minimumRequests: 10),
],
EXAMPLE;
// Seed README, Half-open policies (lines 233-234), unchanged.
$ramps = <<<'EXAMPLE'
RampPolicy::createExponential(duration: 60, initialRatio: 0.01); // 1%, doubling at regular intervals
RampPolicy::createLinear(duration: 60, initialRatio: 0.01);      // 1%, growing at a constant pace
EXAMPLE;
// Seed README, Half-open policies (lines 240-240), unchanged.
$power = <<<'EXAMPLE'
RampPolicy::createPower(duration: 60, initialRatio: 0.01, exponent: 2); // about 26% half way
EXAMPLE;
// Seed README, Half-open policies (lines 244-247), unchanged.
$permittedCalls = <<<'EXAMPLE'
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;

PermittedCallsPolicy::createSingleTrial(maxDuration: 30);     // the classic single trial
new PermittedCallsPolicy(maxDuration: 30, permittedCalls: 5); // the first 5 calls
EXAMPLE;
// Seed README, Half-open policies (lines 253-261), unchanged.
$curve = <<<'EXAMPLE'
use Zeusi\CircuitBreaker\HalfOpen\RampCurveInterface;

final class SteppedRampCurve implements RampCurveInterface
{
    public function computeAdmissionRatio(float $progress): float
    {
        return $progress < 0.5 ? 0.1 : 0.5; // 10%, then 50% from half way
    }
}
EXAMPLE;
// Seed README, Half-open policies (lines 263-263), unchanged.
$curvePolicy = <<<'EXAMPLE'
new RampPolicy(duration: 60, curve: new SteppedRampCurve());
EXAMPLE;
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

// The rule lists are arguments of a Configuration: the call around them is what they assume.
$uses = "use Zeusi\\CircuitBreaker\\Configuration;\nuse Zeusi\\CircuitBreaker\\Opening\\FailureRateRule;\nuse Zeusi\\CircuitBreaker\\HalfOpen\\PermittedCallsPolicy;";
$around = fn (string $use, string $rules) => example_file(
    "$use\n\$configuration = new Configuration(\n    timeWindow: 60,\n$rules\n    openDuration: 10,\n    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),\n);",
    $uses,
);
[, $slow] = run_example($around($slowUse, $slowRules));
[, $failureOrSlow] = run_example($around($failureOrSlowUse, $failureOrSlowRules));

// 10 calls of 2.5 s, all successes: the slow call rule opens.
$breaker = new CircuitBreaker('slow', $slow['configuration'], new InMemoryStorage(), $listener = new RecordingListener());
repeat(10, fn () => $breaker->registerSuccess(2.5));
echo "10 slow successes: ", $breaker->getState()->value, " by ", get_class($listener->events[0]->openingCause->openingRule), "\n";
$breaker = new CircuitBreaker('fast', $slow['configuration'], new InMemoryStorage());
repeat(10, fn () => $breaker->registerSuccess(0.25));
echo "10 successes of 0.25 s: ", $breaker->getState()->value, "\n";

// 4 fast failures (40%: below the failure rule) and 3 slow successes of 10 calls: 70% failed or slow.
$breaker = new CircuitBreaker('mixed', $failureOrSlow['configuration'], new InMemoryStorage(), $listener = new RecordingListener());
repeat(3, fn () => $breaker->registerSuccess(0.1));
repeat(3, fn () => $breaker->registerSuccess(2.0));
repeat(4, fn () => $breaker->registerFailure(0.1));
$cause = $listener->events[0]->openingCause;
echo "4 failures and 3 slow calls of 10: ", $breaker->getState()->value, " by ", get_class($cause->openingRule), ", {$cause->matchingOutcomes} of {$cause->evaluatedOutcomes}\n";

// The policy statements build their policies.
foreach (['ramps' => $ramps, 'power' => $power, 'permittedCalls' => $permittedCalls] as $name => $example) {
    run_example(example_file($example, 'use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;'));
    echo "$name: ran\n";
}
include example_file($curve);
[$policy] = run_example(example_file("return $curvePolicy", 'use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;'));
echo get_class($policy), "\n";

// The stepped curve admits 10% of the calls in the first half of its 60 s, then 50%.
$clock = new MockClock(1_764_000_000.0);
$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 60,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: $policy,
);
$breaker = new CircuitBreaker('stepped', $configuration, new InMemoryStorage($clock), null, $clock);
repeat(4, fn () => $breaker->registerFailure());
$clock->sleep(10 + 5);
$admitted = 0;
for ($i = 0; $i < 100; $i++) {
    $admitted += (int) $breaker->acquirePermission();
}
echo "admitted of 100 calls a quarter through: $admitted\n";
$clock->sleep(30);
$admitted = 0;
for ($i = 0; $i < 100; $i++) {
    $admitted += (int) $breaker->acquirePermission();
}
echo "admitted of 100 calls three quarters through: $admitted\n";
?>
--EXPECT--
10 slow successes: open by Zeusi\CircuitBreaker\Opening\SlowCallRateRule
10 successes of 0.25 s: closed
4 failures and 3 slow calls of 10: open by Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule, 7 of 10
ramps: ran
power: ran
permittedCalls: ran
Zeusi\CircuitBreaker\HalfOpen\RampPolicy
admitted of 100 calls a quarter through: 10
admitted of 100 calls three quarters through: 50
