--TEST--
Fibers: one breaker shared by many fibers over a store that suspends inside its methods; counts exact, one event per transition, a single half-open trial across fibers, state and status read while others are suspended
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
require __DIR__ . '/fibers.inc';

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

$clock = new MockClock(1800000000);
$store = new AwaitingStore();
$listener = new RecordingListener();
$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 20)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = new CircuitBreaker('svc', $configuration, $store, $listener, $clock);

echo "-- ten successes and nine failures, one per fiber\n";
$tasks = [];
for ($i = 0; $i < 19; $i++) {
    $tasks[] = function () use ($breaker, $i) {
        if (!$breaker->acquirePermission()) {
            return 'rejected';
        }
        $i < 10 ? $breaker->registerSuccess(0.01) : $breaker->registerFailure(0.01);
        return $breaker->getState()->name;
    };
}
print_r(tally(run_fibers($tasks)));
echo "awaited inside fibers: ", $store->awaited > 19 ? 'yes' : 'no', "\n";
$status = $breaker->getStatus();
echo "calls=$status->calls failures=$status->failures state={$status->state->name}\n";

echo "-- the twentieth outcome, a failure, opens it once, seen by fibers suspended meanwhile\n";
$seen = [];
$tasks = [
    function () use ($breaker) {
        $breaker->acquirePermission();
        $breaker->registerFailure(0.01);
        return 'registered';
    },
    function () use ($breaker, &$seen) {
        $seen[] = $breaker->getState()->name;
        $seen[] = $breaker->getStatus()->calls;
        return 'read';
    },
    function () use ($breaker) {
        $breaker->acquirePermission();
        $breaker->registerFailure(0.01);
        return 'registered';
    },
];
print_r(run_fibers($tasks));
echo "read meanwhile: ", implode(' ', $seen), "\n";
echo $breaker->getState()->name, "\n";
echo "opened: ", count(array_filter($listener->events, fn ($e) => $e instanceof Zeusi\CircuitBreaker\Event\CircuitOpened)), "\n";

echo "-- rejected by every fiber while open\n";
print_r(tally(run_fibers(array_fill(0, 5, fn () => $breaker->acquirePermission()))));

echo "-- half-open: ten fibers ask at once, one trial is permitted\n";
$clock->sleep(11);
$listener->events = [];
print_r(tally(run_fibers(array_fill(0, 10, fn () => $breaker->acquirePermission()))));
echo implode(', ', $listener->names()), "\n";
$breaker->registerSuccess(0.01);
echo $breaker->getState()->name, "\n";

echo "-- CallExecutor in fibers, a call that awaits and fails in each: five open it, once\n";
$listener->events = [];
$counting = new CircuitBreaker('counted', new Configuration(60, [new ConsecutiveFailuresRule(5)], 10, PermittedCallsPolicy::createSingleTrial(30)), $store, $listener, $clock);
$executor = new CallExecutor($counting);
$tasks = [];
for ($i = 0; $i < 8; $i++) {
    $tasks[] = function () use ($executor, $i) {
        try {
            return $executor->execute(function () use ($i) {
                Fiber::suspend('the call awaits');
                throw new RuntimeException("call $i failed");
            });
        } catch (Zeusi\CircuitBreaker\Exception\CallNotPermittedException) {
            return 'not permitted';
        } catch (RuntimeException) {
            return 'failed';
        }
    };
}
print_r(tally(run_fibers($tasks)));
echo $counting->getState()->name, ': ', implode(', ', $listener->names()), "\n";
print_r(tally(run_fibers(array_slice($tasks, 0, 3))));
?>
--EXPECT--
-- ten successes and nine failures, one per fiber
Array
(
    ['Closed'] => 19
)
awaited inside fibers: yes
calls=19 failures=9 state=Closed
-- the twentieth outcome, a failure, opens it once, seen by fibers suspended meanwhile
Array
(
    [0] => registered
    [1] => read
    [2] => registered
)
read meanwhile: Closed 21
Open
opened: 1
-- rejected by every fiber while open
Array
(
    [false] => 5
)
-- half-open: ten fibers ask at once, one trial is permitted
Array
(
    [false] => 9
    [true] => 1
)
CircuitHalfOpened
Closed
-- CallExecutor in fibers, a call that awaits and fails in each: five open it, once
Array
(
    ['failed'] => 8
)
Open: CircuitOpened
Array
(
    ['not permitted'] => 3
)
