--TEST--
Named arguments work on every constructor and factory
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\Execution\CallGate;
use Zeusi\CircuitBreaker\HalfOpen\ExponentialRampCurve;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\HalfOpen\PowerRampCurve;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
use Zeusi\CircuitBreaker\Outcome;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$clock = new MockClock(now: 1_764_000_000);
$configuration = new Configuration(
    halfOpenPolicy: new PermittedCallsPolicy(permittedCalls: 2, maxDuration: 30),
    openDuration: 10,
    openingRules: [
        new FailureRateRule(minimumRequests: 10, threshold: 50),
        new SlowCallRateRule(threshold: 80, slowCallDuration: 2.0, minimumRequests: 10),
        new FailureOrSlowCallRateRule(minimumRequests: 10, slowCallDuration: 2.0, threshold: 70),
        new ConsecutiveFailuresRule(failures: 5),
    ],
    timeWindow: 60,
);
$policies = [
    RampPolicy::createExponential(initialRatio: 0.01, duration: 60),
    RampPolicy::createLinear(duration: 60, initialRatio: 0.01),
    RampPolicy::createPower(exponent: 2, duration: 60, initialRatio: 0.01),
    new RampPolicy(curve: new ExponentialRampCurve(initialRatio: 0.05), duration: 30),
    new RampPolicy(duration: 30, curve: new PowerRampCurve(exponent: 3, initialRatio: 0.05)),
    PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
];
$breaker = new CircuitBreaker(
    clock: $clock,
    storage: new InMemoryStorage(clock: $clock),
    configuration: $configuration,
    service: 'payments',
);
$classifier = new CallbackOutcomeClassifier(
    resultClassifier: fn (mixed $result) => Outcome::Success,
    exceptionClassifier: fn (\Throwable $exception) => Outcome::Failure,
);
$executor = new CallExecutor(classifier: $classifier, breaker: $breaker);
$gate = new CallGate(breaker: $breaker, classifier: $classifier);
echo $executor->execute(call: fn () => 'ok'), "\n";
$gate->admit()->registerResult(duration: 0.5, result: 'ok');
$breaker->registerSuccess(duration: 0.25);
$breaker->registerFailure(duration: 0.25);
$clock->sleep(seconds: 1);
echo count($policies), " policies, ", $breaker->getState()->value, ", ", $configuration->timeWindow, " s window\n";
?>
--EXPECT--
ok
6 policies, closed, 60 s window
