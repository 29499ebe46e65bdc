--TEST--
Every event, and the OpeningCause of CircuitOpened, can be built from its properties with named arguments, so that a listener can be unit-tested: the values read back through getService(), getTime() and the typed read-only properties; a value out of its limits is a ValueError naming the parameter, a wrong type a TypeError; events the breaker emits are unchanged
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Event\CallRejected;
use Zeusi\CircuitBreaker\RejectionReason;
use Zeusi\CircuitBreaker\Event\CircuitClosed;
use Zeusi\CircuitBreaker\Event\CircuitForced;
use Zeusi\CircuitBreaker\Event\CircuitHalfOpened;
use Zeusi\CircuitBreaker\Event\CircuitOpened;
use Zeusi\CircuitBreaker\Event\CircuitReset;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Event\StorageRecovered;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\OpeningCause;
use Zeusi\CircuitBreaker\State;

function show(object $event): void
{
    $line = (new ReflectionClass($event))->getShortName();
    if (method_exists($event, 'getService')) {
        $line .= " {$event->getService()} at " . var_export($event->getTime(), true);
    }
    foreach ((new ReflectionClass($event))->getProperties() as $property) {
        $value = $property->getValue($event);
        $shown = match (true) {
            $value instanceof UnitEnum => $value->name,
            is_object($value) => get_class($value),
            default => var_export($value, true),
        };
        $line .= sprintf(', %s%s $%s = %s', $property->isReadOnly() ? 'readonly ' : '', $property->getType(), $property->getName(), $shown);
    }
    echo $line, "\n";
}

$rule = new ConsecutiveFailuresRule(failures: 5);
$cause = new OpeningCause(openingRule: $rule, matchingOutcomes: 5, evaluatedOutcomes: 7);
show($cause);
var_dump($cause->openingRule === $rule);
show(new CircuitOpened(service: 'payments', time: 1800000000.0, previousState: State::Closed, openingCause: $cause, openDuration: 30.0));
show(new CircuitHalfOpened(service: 'payments', time: 1800000030.0));
show(new CircuitClosed(service: 'payments', time: 1800000000.0));
show(new CallRejected(service: 'payments', time: 1800000001.5, state: State::Open));
show(new CallRejected(service: 'payments', time: 1800000001.5, state: State::Closed, reason: RejectionReason::BulkheadFull));
show(new CallRejected(service: 'payments', time: 1800000001.5, state: State::HalfOpen));
show(new CallRejected(service: 'payments', time: 1800000001.5, state: State::Closed, reason: RejectionReason::Throttled));
show(new CircuitForced(service: 'payments', time: 1800000000.0, state: State::Open, duration: 600));
show(new CircuitReset('payments', 1800000000));
show(new StorageRecovered(service: 'payments', time: 1800000000.0));
$exception = new StorageException('Redis is down');
$failed = new StorageFailed(service: 'payments', time: 1800000000.0, exception: $exception);
show($failed);
var_dump($failed->exception === $exception);

echo "-- refused\n";
$refused = [
    fn () => new CircuitClosed(service: 'payments', time: NAN),
    fn () => new CircuitClosed(service: 'payments', time: INF),
    fn () => new CircuitClosed(service: 'payments'),
    fn () => new CircuitClosed(service: [], time: 1.0),
    fn () => new CallRejected(service: 'payments', time: 1.0, state: State::Closed),
    fn () => new CallRejected(service: 'payments', time: 1.0, state: 'open'),
    fn () => new CallRejected(service: 'payments', time: 1.0, state: State::Open, reason: RejectionReason::BulkheadFull),
    fn () => new CallRejected(service: 'payments', time: 1.0, state: State::Closed, reason: RejectionReason::CircuitOpen),
    fn () => new CircuitForced(service: 'payments', time: 1.0, state: State::HalfOpen, duration: 60),
    fn () => new CircuitForced(service: 'payments', time: 1.0, state: State::Open, duration: 0),
    fn () => new CircuitOpened(service: 'payments', time: 1.0, previousState: State::Open, openingCause: $cause, openDuration: 30),
    fn () => new CircuitOpened(service: 'payments', time: 1.0, previousState: State::Closed, openingCause: $cause, openDuration: -1),
    fn () => new CircuitOpened(service: 'payments', time: 1.0, previousState: State::Closed, openingCause: $rule, openDuration: 30),
    fn () => new OpeningCause(openingRule: $rule, matchingOutcomes: 8, evaluatedOutcomes: 7),
    fn () => new OpeningCause(openingRule: $rule, matchingOutcomes: -1, evaluatedOutcomes: 7),
    fn () => new OpeningCause(openingRule: new stdClass(), matchingOutcomes: 1, evaluatedOutcomes: 7),
    fn () => new StorageFailed(service: 'payments', time: 1.0, exception: new RuntimeException('down')),
];
foreach ($refused as $build) {
    try {
        $build();
        echo "built\n";
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}

echo "-- a built event is immutable\n";
$closed = new CircuitClosed(service: 'payments', time: 1800000000.0);
try {
    $closed->__construct(service: 'other', time: 1.0);
} catch (Throwable $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
echo $closed->getService(), "\n";

echo "-- the breaker's own events\n";
$listener = new RecordingListener();
$breaker = breaker(listener: $listener);
repeat(4, fn () => $breaker->acquirePermission() && $breaker->registerFailure());
$breaker->acquirePermission();
foreach ($listener->events as $event) {
    show($event);
}
?>
--EXPECT--
OpeningCause, readonly Zeusi\CircuitBreaker\Opening\OpeningRuleInterface $openingRule = Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule, readonly int $matchingOutcomes = 5, readonly int $evaluatedOutcomes = 7
bool(true)
CircuitOpened payments at 1800000000.0, readonly Zeusi\CircuitBreaker\State $previousState = Closed, readonly Zeusi\CircuitBreaker\Opening\OpeningCause $openingCause = Zeusi\CircuitBreaker\Opening\OpeningCause, readonly float $openDuration = 30.0
CircuitHalfOpened payments at 1800000030.0
CircuitClosed payments at 1800000000.0
CallRejected payments at 1800000001.5, readonly Zeusi\CircuitBreaker\State $state = Open, readonly Zeusi\CircuitBreaker\RejectionReason $reason = CircuitOpen
CallRejected payments at 1800000001.5, readonly Zeusi\CircuitBreaker\State $state = Closed, readonly Zeusi\CircuitBreaker\RejectionReason $reason = BulkheadFull
CallRejected payments at 1800000001.5, readonly Zeusi\CircuitBreaker\State $state = HalfOpen, readonly Zeusi\CircuitBreaker\RejectionReason $reason = HalfOpenTrialsTaken
CallRejected payments at 1800000001.5, readonly Zeusi\CircuitBreaker\State $state = Closed, readonly Zeusi\CircuitBreaker\RejectionReason $reason = Throttled
CircuitForced payments at 1800000000.0, readonly Zeusi\CircuitBreaker\State $state = Open, readonly float $duration = 600.0
CircuitReset payments at 1800000000.0
StorageRecovered payments at 1800000000.0
StorageFailed payments at 1800000000.0, readonly Zeusi\CircuitBreaker\Exception\StorageException $exception = Zeusi\CircuitBreaker\Exception\StorageException
bool(true)
-- refused
ValueError: Zeusi\CircuitBreaker\Event\CircuitClosed::__construct(): Argument #2 ($time) must be a finite number of seconds since the epoch, NAN given
ValueError: Zeusi\CircuitBreaker\Event\CircuitClosed::__construct(): Argument #2 ($time) must be a finite number of seconds since the epoch, INF given
ArgumentCountError: Zeusi\CircuitBreaker\Event\CircuitClosed::__construct() expects exactly 2 arguments, 1 given
TypeError: Zeusi\CircuitBreaker\Event\CircuitClosed::__construct(): Argument #1 ($service) must be of type string, array given
ValueError: Zeusi\CircuitBreaker\Event\CallRejected::__construct(): Argument #3 ($state) must be State::Open or State::HalfOpen (the state that rejected the call), State::Closed given
TypeError: Zeusi\CircuitBreaker\Event\CallRejected::__construct(): Argument #3 ($state) must be of type Zeusi\CircuitBreaker\State, string given
ValueError: Zeusi\CircuitBreaker\Event\CallRejected::__construct(): Argument #3 ($state) must be a state in which a call is rejected for RejectionReason::BulkheadFull, State::Open given
ValueError: Zeusi\CircuitBreaker\Event\CallRejected::__construct(): Argument #3 ($state) must be a state in which a call is rejected for RejectionReason::CircuitOpen, State::Closed given
ValueError: Zeusi\CircuitBreaker\Event\CircuitForced::__construct(): Argument #3 ($state) must be State::Open or State::Closed (the state forced), State::HalfOpen given
ValueError: Zeusi\CircuitBreaker\Event\CircuitForced::__construct(): Argument #4 ($duration) must be a finite number of seconds above 0, 0 given
ValueError: Zeusi\CircuitBreaker\Event\CircuitOpened::__construct(): Argument #3 ($previousState) must be State::Closed or State::HalfOpen (the state it opened from), State::Open given
ValueError: Zeusi\CircuitBreaker\Event\CircuitOpened::__construct(): Argument #5 ($openDuration) must be a finite number of seconds above 0, -1 given
TypeError: Zeusi\CircuitBreaker\Event\CircuitOpened::__construct(): Argument #4 ($openingCause) must be of type Zeusi\CircuitBreaker\Opening\OpeningCause, Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule given
ValueError: Zeusi\CircuitBreaker\Opening\OpeningCause::__construct(): Argument #3 ($evaluatedOutcomes) must be at least $matchingOutcomes (8), 7 given
ValueError: Zeusi\CircuitBreaker\Opening\OpeningCause::__construct(): Argument #2 ($matchingOutcomes) must be at least 0, -1 given
TypeError: Zeusi\CircuitBreaker\Opening\OpeningCause::__construct(): Argument #1 ($openingRule) must be of type Zeusi\CircuitBreaker\Opening\OpeningRuleInterface, stdClass given
TypeError: Zeusi\CircuitBreaker\Event\StorageFailed::__construct(): Argument #3 ($exception) must be of type Zeusi\CircuitBreaker\Exception\StorageException, RuntimeException given
-- a built event is immutable
LogicException: Zeusi\CircuitBreaker\Event\CircuitClosed::__construct() cannot be called on an object already constructed
payments
-- the breaker's own events
CircuitOpened payments at 1764000000.0, readonly Zeusi\CircuitBreaker\State $previousState = Closed, readonly Zeusi\CircuitBreaker\Opening\OpeningCause $openingCause = Zeusi\CircuitBreaker\Opening\OpeningCause, readonly float $openDuration = 10.0
CallRejected payments at 1764000000.0, readonly Zeusi\CircuitBreaker\State $state = Open, readonly Zeusi\CircuitBreaker\RejectionReason $reason = CircuitOpen
