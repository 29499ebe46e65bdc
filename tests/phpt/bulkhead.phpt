--TEST--
maxConcurrentCalls: a bulkhead lets that many calls in flight at once; one past it is rejected (CallRejected and CallNotPermittedException with RejectionReason::BulkheadFull, no outcome counted); the registers, a breaker destroyed, an abandoned call's next acquire and CallExecutor's exceptions give the permits back; a refused half-open call takes no trial; a failing storage still bounds
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\Execution\CallGate;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

final class Events implements EventListenerInterface
{
    public array $seen = [];
    public function handleEvent(EventInterface $event): void
    {
        $name = (new ReflectionClass($event))->getShortName();
        if (isset($event->reason)) {
            $name .= " {$event->state->name} {$event->reason->name}";
        }
        $this->seen[] = $name;
    }
    public function take(): string
    {
        $seen = implode(', ', $this->seen);
        $this->seen = [];
        return $seen === '' ? '-' : $seen;
    }
}

function configuration(int $limit, int $failures = 100): Configuration
{
    return new Configuration(
        timeWindow: 60,
        openingRules: [new ConsecutiveFailuresRule(failures: $failures)],
        openDuration: 10,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
        maxConcurrentCalls: $limit,
    );
}

/** A call suspended in flight: resume() registers it. */
final class Holding
{
    public readonly Fiber $fiber;
    public readonly bool $permitted;
    public function __construct(CircuitBreaker $breaker)
    {
        $this->fiber = new Fiber(function () use ($breaker) {
            $permitted = $breaker->acquirePermission();
            Fiber::suspend($permitted);
            $breaker->registerSuccess(0.01);
        });
        $this->permitted = $this->fiber->start();
    }
    public function resume(): void
    {
        $this->fiber->resume();
    }
}

function holding(CircuitBreaker $breaker): Holding
{
    return new Holding($breaker);
}

function status(CircuitBreaker $breaker): string
{
    $status = $breaker->getStatus();
    return "in flight {$status->callsInFlight}, rejected {$status->bulkheadRejections}, outcomes {$status->calls}";
}

$clock = new MockClock(1_800_000_000.0);
$events = new Events();
$breaker = new CircuitBreaker('payments', configuration(2), new SharedMemoryStorage('bulkhead'), $events, $clock);

echo "-- two calls in flight, the third rejected\n";
$first = holding($breaker);
$second = holding($breaker);
var_dump($first->permitted, $second->permitted, $breaker->acquirePermission());
echo $events->take(), "\n";
echo status($breaker), "\n";
try {
    (new CallGate($breaker))->admit();
} catch (CallNotPermittedException $refused) {
    echo $refused->getMessage(), "\n";
    var_dump($refused->getReason(), $refused->getState(), $refused->getRetryAfter());
}
try {
    (new CallExecutor($breaker))->execute(fn () => 'never runs');
} catch (CallNotPermittedException $refused) {
    echo get_class($refused), ' ', $refused->getReason()->name, "\n";
}
echo $events->take(), "\n";

echo "-- a register gives the permit back\n";
$first->resume();
echo status($breaker), "\n";
var_dump($breaker->acquirePermission());
$breaker->registerFailure();
$second->resume();
echo status($breaker), "\n";

echo "-- each call holds its own permit: a third in one fiber is refused\n";
var_dump($breaker->acquirePermission(), $breaker->acquirePermission(), $breaker->acquirePermission());
echo status($breaker), ', ', $events->take(), "\n";
$breaker->registerSuccess();
$breaker->registerSuccess();
echo status($breaker), "\n";

echo "-- CallExecutor gives it back when the call throws\n";
try {
    (new CallExecutor($breaker))->execute(function () use ($breaker) {
        echo "inside: ", status($breaker), "\n";
        throw new RuntimeException('down');
    });
} catch (RuntimeException $failed) {
    echo "thrown: ", $failed->getMessage(), "\n";
}
echo status($breaker), "\n";

echo "-- a breaker destroyed gives its permits back\n";
function abandoned(Configuration $configuration, MockClock $clock): void
{
    $local = new CircuitBreaker('payments', $configuration, new SharedMemoryStorage('bulkhead'), null, $clock);
    var_dump($local->acquirePermission(), $local->acquirePermission());
    echo "held, never registered: in flight {$local->getStatus()->callsInFlight}\n";
}
abandoned(configuration(2), $clock);
echo status($breaker), "\n";

echo "-- half-open: a call the bulkhead refuses takes no trial\n";
$one = new CircuitBreaker('trial', configuration(2, 1), new SharedMemoryStorage('bulkhead'), $events, $clock);
$holders = [];
foreach ([1, 2] as $n) {
    $holders[$n] = new CircuitBreaker('trial', configuration(2, 1), new SharedMemoryStorage('bulkhead'), null, $clock);
    var_dump($holders[$n]->acquirePermission());
}
$one->registerFailure();
$clock->sleep(10);
var_dump($one->acquirePermission());
echo $events->take(), "\n";
$holders = [];
$trial = holding($one);
var_dump($trial->permitted, $one->acquirePermission());
echo $events->take(), "\n";
$trial->resume();
echo $one->getState()->name, ', ', $events->take(), "\n";

echo "-- a failing storage: calls fail open, within the bulkhead\n";
final class DownStorage implements StorageInterface
{
    public function increment(string $key, int $ttl): int { throw new RuntimeException('down'); }
    public function getMultiple(array $keys): array { throw new RuntimeException('down'); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { throw new RuntimeException('down'); }
}
$down = new CircuitBreaker('down', configuration(1), new DownStorage(), $events, $clock);
$held = holding($down);
var_dump($held->permitted, $down->acquirePermission());
echo $events->take(), "\n";

echo "-- InMemoryStorage: the process's own bulkhead\n";
$memory = new CircuitBreaker('local', configuration(1), new InMemoryStorage($clock), $events, $clock);
$fiber = holding($memory);
var_dump($fiber->permitted, $memory->acquirePermission());
echo status($memory), ', ', $events->take(), "\n";
$fiber->resume();
echo status($memory), "\n";

echo "-- without maxConcurrentCalls\n";
$plain = new CircuitBreaker('plain', new Configuration(60, [new ConsecutiveFailuresRule(5)], 10, PermittedCallsPolicy::createSingleTrial(30)), new SharedMemoryStorage('bulkhead'));
var_dump($plain->acquirePermission(), $plain->getStatus()->callsInFlight, $plain->getStatus()->bulkheadRejections);
?>
--EXPECT--
-- two calls in flight, the third rejected
bool(true)
bool(true)
bool(false)
CallRejected Closed BulkheadFull
in flight 2, rejected 1, outcomes 0
Circuit 'payments' has 2 calls in flight, as many as its bulkhead lets through: this call was not permitted
enum(Zeusi\CircuitBreaker\RejectionReason::BulkheadFull)
enum(Zeusi\CircuitBreaker\State::Closed)
NULL
Zeusi\CircuitBreaker\Exception\CallNotPermittedException BulkheadFull
CallRejected Closed BulkheadFull, CallRejected Closed BulkheadFull
-- a register gives the permit back
in flight 1, rejected 3, outcomes 1
bool(true)
in flight 0, rejected 3, outcomes 3
-- each call holds its own permit: a third in one fiber is refused
bool(true)
bool(true)
bool(false)
in flight 2, rejected 4, outcomes 3, CallRejected Closed BulkheadFull
in flight 0, rejected 4, outcomes 5
-- CallExecutor gives it back when the call throws
inside: in flight 1, rejected 4, outcomes 5
thrown: down
in flight 0, rejected 4, outcomes 6
-- a breaker destroyed gives its permits back
bool(true)
bool(true)
held, never registered: in flight 2
in flight 0, rejected 4, outcomes 6
-- half-open: a call the bulkhead refuses takes no trial
bool(true)
bool(true)
bool(false)
CircuitOpened, CircuitHalfOpened, CallRejected HalfOpen BulkheadFull
bool(true)
bool(false)
CallRejected HalfOpen HalfOpenTrialsTaken
Closed, CircuitClosed
-- a failing storage: calls fail open, within the bulkhead
bool(true)
bool(false)
StorageFailed, StorageFailed, CallRejected Closed BulkheadFull
-- InMemoryStorage: the process's own bulkhead
bool(true)
bool(false)
in flight 1, rejected 1, outcomes 0, CallRejected Closed BulkheadFull
in flight 0, rejected 1, outcomes 1
-- without maxConcurrentCalls
bool(true)
NULL
NULL
