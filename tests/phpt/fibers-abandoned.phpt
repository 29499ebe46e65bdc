--TEST--
Fibers: a fiber destroyed or thrown into while suspended inside a storage call leaves nothing held; each fiber's storage failure carries its own exception; a call back into the breaker from the same fiber is still refused; an InMemoryStorage whose clock suspends
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
require __DIR__ . '/fibers.inc';

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\ClockInterface;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$configuration = new Configuration(60, [new ConsecutiveFailuresRule(3)], 10, PermittedCallsPolicy::createSingleTrial(30));
$clock = new MockClock(1800000000);
$store = new AwaitingStore();
$listener = new RecordingListener();
$breaker = new CircuitBreaker('svc', $configuration, $store, $listener, $clock);

echo "-- a fiber destroyed while suspended inside the storage\n";
$abandoned = new Fiber(function () use ($breaker) {
    try {
        $breaker->acquirePermission();
        echo "not reached\n";
    } finally {
        echo "its frames unwind\n";
    }
});
echo $abandoned->start(), "\n";
unset($abandoned);
var_dump($breaker->acquirePermission());
$breaker->registerFailure();
print_r(run_fibers([fn () => $breaker->getState()->name, function () use ($breaker) {
    $breaker->registerFailure();
    return $breaker->getStatus()->failures;
}]));

echo "-- an exception thrown into a fiber suspended inside the storage: a storage failure of that fiber alone\n";
$listener->events = [];
$cancelled = new Fiber(fn () => $breaker->acquirePermission());
$other = new Fiber(fn () => $breaker->acquirePermission());
$cancelled->start();
$other->start();
$cancelled->throw(new RuntimeException('cancelled by the event loop'));
while ($other->isSuspended()) {
    $other->resume();
}
var_dump($cancelled->getReturn(), $other->getReturn());
foreach ($listener->events as $event) {
    if ($event instanceof StorageFailed) {
        echo get_class($event), ': ', $event->exception->getMessage(), ' <- ', $event->exception->getPrevious()?->getMessage(), "\n";
    }
}
$breaker->reset();

echo "-- each fiber's failing storage call reports its own exception\n";
final class FailingForSomeFibers extends AwaitingStore
{
    public array $failing = [];
    public function getMultiple(array $keys): array
    {
        $result = parent::getMultiple($keys);
        if ($message = $this->failing[spl_object_id(Fiber::getCurrent())] ?? null) {
            throw new RuntimeException($message);
        }
        return $result;
    }
}
$failing = new FailingForSomeFibers();
$shared = new CircuitBreaker('shared', $configuration, $failing, null, $clock);
$tasks = [];
foreach (['first', null, 'third'] as $i => $message) {
    $tasks[] = function () use ($shared, $failing, $message) {
        if ($message !== null) {
            $failing->failing[spl_object_id(Fiber::getCurrent())] = "$message fiber's storage is down";
        }
        try {
            $shared->getState();
            return 'read';
        } catch (Zeusi\CircuitBreaker\Exception\StorageException $e) {
            return $e->getPrevious()->getMessage();
        }
    };
}
print_r(run_fibers($tasks));

echo "-- a storage that calls back into its breaker from the same fiber is refused\n";
final class CallingBack extends AwaitingStore
{
    public ?CircuitBreaker $breaker = null;
    public array $seen = [];
    public function increment(string $key, int $ttl): int
    {
        if ($breaker = $this->breaker) {
            $this->breaker = null;
            try {
                $breaker->getState();
            } catch (LogicException $e) {
                $this->seen[] = $e->getMessage();
            }
        }
        return parent::increment($key, $ttl);
    }
}
$calling = new CallingBack();
$reentered = new CircuitBreaker('reentered', $configuration, $calling, null, $clock);
$calling->breaker = $reentered;
print_r(run_fibers([function () use ($reentered) {
    $reentered->registerFailure();
    return 'registered';
}]));
print_r($calling->seen);

echo "-- an InMemoryStorage whose clock suspends, shared by fibers\n";
final class AwaitingClock implements ClockInterface
{
    public function now(): DateTimeImmutable
    {
        if (Fiber::getCurrent() !== null) {
            Fiber::suspend('reading the time');
        }
        return new DateTimeImmutable('@1800000000');
    }
}
$memory = new InMemoryStorage(new AwaitingClock());
$inMemory = new CircuitBreaker('memory', $configuration, $memory, null, $clock);
print_r(tally(run_fibers(array_fill(0, 3, function () use ($inMemory, $memory) {
    $inMemory->registerFailure();
    return count($memory->listCircuits());
}))));
echo $inMemory->getState()->name, "\n";

echo "-- a fiber left suspended inside the storage when the script ends\n";
$left = new Fiber(fn () => $breaker->registerFailure());
$left->start();
echo "done\n";
?>
--EXPECT--
-- a fiber destroyed while suspended inside the storage
awaiting
its frames unwind
bool(true)
Array
(
    [0] => Closed
    [1] => 2
)
-- an exception thrown into a fiber suspended inside the storage: a storage failure of that fiber alone
bool(true)
bool(true)
Zeusi\CircuitBreaker\Event\StorageFailed: getMultiple() threw RuntimeException: cancelled by the event loop <- cancelled by the event loop
-- each fiber's failing storage call reports its own exception
Array
(
    [0] => first fiber's storage is down
    [1] => read
    [2] => third fiber's storage is down
)
-- a storage that calls back into its breaker from the same fiber is refused
Array
(
    [0] => registered
)
Array
(
    [0] => The circuit breaker of 'reentered' was called while it is already at work on a call, by its storage, clock or ramp curve (or by the clock of its InMemoryStorage): such calls are refused
)
-- an InMemoryStorage whose clock suspends, shared by fibers
Array
(
    [1] => 3
)
Open
-- a fiber left suspended inside the storage when the script ends
done
