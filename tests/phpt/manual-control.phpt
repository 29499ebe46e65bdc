--TEST--
forceOpen(), forceClosed(), reset(): stored, emitted once by the breaker that stored them, getState() stays Open/Closed
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\CircuitBreakerInterface;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\ManualControlInterface;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$clock = new MockClock(1_764_000_000.0);
$storage = new InMemoryStorage($clock);
$operatorEvents = new RecordingListener();
$workerEvents = new RecordingListener();
$make = fn (RecordingListener $listener) => new CircuitBreaker('payments', defaultConfiguration(), $storage, $listener, $clock);
function defaultConfiguration(): Zeusi\CircuitBreaker\Configuration
{
    return new Zeusi\CircuitBreaker\Configuration(
        timeWindow: 10,
        openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 4)],
        openDuration: 10,
        halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    );
}
$operator = $make($operatorEvents);
$worker = $make($workerEvents);
var_dump($operator instanceof ManualControlInterface, $operator instanceof CircuitBreakerInterface);

echo "-- forceOpen(60)\n";
$operator->forceOpen(60);
var_dump($worker->getState(), $worker->acquirePermission());
repeat(10, fn () => $worker->registerSuccess());
try {
    (new CallExecutor($worker))->execute(fn () => 'never');
} catch (CallNotPermittedException $e) {
    echo $e->getMessage(), "\n";
}
$status = $worker->getStatus();
var_dump($status->state, $status->forced, $status->until->getTimestamp() - $status->since->getTimestamp());
$forced = $operatorEvents->events[0];
echo get_class($forced), ': ', $forced->state->name, ' for ', $forced->duration, " s\n";
$clock->sleep(60);
var_dump($worker->getState(), $worker->acquirePermission(), $worker->getStatus()->forced);

echo "-- forceClosed(30)\n";
repeat(4, fn () => $worker->registerFailure());
var_dump($worker->getState());
$operator->forceClosed(30);
repeat(20, fn () => $worker->registerFailure());
var_dump($worker->getState(), $worker->acquirePermission());
$status = $worker->getStatus();
var_dump($status->forced, $status->calls, $status->failures);
$clock->sleep(30);
$status = $worker->getStatus();
var_dump($status->forced, $status->calls);

echo "-- reset()\n";
repeat(4, fn () => $worker->registerFailure());
var_dump($worker->getState());
$operator->reset();
var_dump($worker->getState(), $worker->acquirePermission());
repeat(3, fn () => $worker->registerFailure());
var_dump($worker->getState());
echo "operator: ", implode(', ', $operatorEvents->names()), "\n";
echo "worker:   ", implode(', ', $workerEvents->names()), "\n";

echo "-- durations\n";
foreach ([0.999, 2_592_000.001, INF, -1] as $invalid) {
    try {
        $operator->forceOpen($invalid);
    } catch (InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
$operator->forceClosed(1);
$operator->forceOpen(2_592_000);
printf("%d s\n", $operator->getStatus()->until->getTimestamp() - $clock->now()->getTimestamp());
?>
--EXPECT--
bool(true)
bool(true)
-- forceOpen(60)
enum(Zeusi\CircuitBreaker\State::Open)
bool(false)
Circuit 'payments' is open: no call permitted for 60 s
enum(Zeusi\CircuitBreaker\State::Open)
bool(true)
int(60)
Zeusi\CircuitBreaker\Event\CircuitForced: Open for 60 s
enum(Zeusi\CircuitBreaker\State::Closed)
bool(true)
bool(false)
-- forceClosed(30)
enum(Zeusi\CircuitBreaker\State::Open)
enum(Zeusi\CircuitBreaker\State::Closed)
bool(true)
bool(true)
int(20)
int(20)
bool(false)
int(0)
-- reset()
enum(Zeusi\CircuitBreaker\State::Open)
enum(Zeusi\CircuitBreaker\State::Closed)
bool(true)
enum(Zeusi\CircuitBreaker\State::Closed)
operator: CircuitForced, CircuitForced, CircuitReset
worker:   CircuitClosed, CircuitOpened, CircuitOpened
-- durations
Invalid duration: 0.999 given, expected 1 to 2592000 seconds (30 days)
Invalid duration: 2592000.001 given, expected 1 to 2592000 seconds (30 days)
Invalid duration: INF given, expected 1 to 2592000 seconds (30 days)
Invalid duration: -1 given, expected 1 to 2592000 seconds (30 days)
2592000 s
