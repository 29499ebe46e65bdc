--TEST--
Bulkhead (review): attempts admitted together in one fiber (the Guzzle/Symfony middlewares' async requests), and an attempt registered from another fiber, must each hold and give back their own permit
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallGate;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

function breaker(string $name, int $limit): CircuitBreaker
{
    return new CircuitBreaker($name, new Configuration(
        timeWindow: 60,
        openingRules: [new ConsecutiveFailuresRule(failures: 100)],
        openDuration: 10,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
        maxConcurrentCalls: $limit,
    ), new SharedMemoryStorage());
}

// Five requests started at once (promises), limit 2.
$breaker = breaker('review-batch-' . getmypid(), 2);
$gate = new CallGate($breaker);
$attempts = [];
$refused = 0;
for ($i = 0; $i < 5; $i++) {
    try {
        $attempts[] = $gate->admit();
    } catch (CallNotPermittedException) {
        $refused++;
    }
}
echo count($attempts), " admitted, $refused refused, in flight {$breaker->getStatus()->callsInFlight}\n";
foreach ($attempts as $attempt) {
    $attempt->registerResult('ok', 0.01);
}
echo "in flight once all registered: {$breaker->getStatus()->callsInFlight}\n";

// A call started in a fiber, its outcome registered by the event loop (main).
$breaker = breaker('review-cross-' . getmypid(), 2);
$gate = new CallGate($breaker);
$inFiber = null;
$fiber = new Fiber(function () use ($gate, &$inFiber) {
    $inFiber = $gate->admit();
    Fiber::suspend();
});
$fiber->start();
$inMain = $gate->admit();
echo "in flight: {$breaker->getStatus()->callsInFlight}\n";
$inFiber->registerResult('ok', 0.01);
echo "the fiber's call registered, main's in flight: {$breaker->getStatus()->callsInFlight}\n";
$inMain->registerResult('ok', 0.01);
echo "both registered: {$breaker->getStatus()->callsInFlight}\n";

// A long-running worker: jobs in fibers that throw between acquire and
// register (abandoned calls), on a breaker that lives as long as the worker.
$breaker = breaker('review-abandoned-' . getmypid(), 2);
$jobs = [];
for ($job = 0; $job < 3; $job++) {
    $fiber = new Fiber(function () use ($breaker) {
        $breaker->acquirePermission();
        throw new RuntimeException('a bug before the register');
    });
    try {
        $fiber->start();
    } catch (RuntimeException) {
    }
    $jobs[] = $fiber; // kept by a scheduler: ended, never to acquire again
}
// A raw acquire's permit is held until its register: the abandoned ones
// fill the bulkhead while this breaker lives, and go back with it (or at
// the end of the request). CallGate's attempts give theirs back when dropped.
echo 'a later call, the abandoned fibers ended: ';
var_dump($breaker->acquirePermission());
$breaker = null;
echo 'once that breaker is gone: ';
var_dump(breaker('review-abandoned-' . getmypid(), 2)->acquirePermission());
$gate = new CallGate(breaker('review-abandoned-gate-' . getmypid(), 2));
for ($job = 0; $job < 3; $job++) {
    $fiber = new Fiber(function () use ($gate) {
        $attempt = $gate->admit();
        throw new RuntimeException('a bug before the register');
    });
    try {
        $fiber->start();
    } catch (RuntimeException) {
    }
}
echo 'attempts abandoned in ended fibers: ';
var_dump(count([$gate->admit(), $gate->admit()]));
?>
--EXPECT--
2 admitted, 3 refused, in flight 2
in flight once all registered: 0
in flight: 2
the fiber's call registered, main's in flight: 1
both registered: 0
a later call, the abandoned fibers ended: bool(false)
once that breaker is gone: bool(true)
attempts abandoned in ended fibers: int(2)
