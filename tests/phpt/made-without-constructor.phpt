--TEST--
Objects made without their constructor (newInstanceWithoutConstructor(), as hydrators and mocking libraries make them): their methods and properties throw an Error naming the class and saying it was not constructed; given as an argument, the same; a subclass's own methods and properties still work
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\State;
use Zeusi\CircuitBreaker\Event\CircuitOpened;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\ApcuStorage;
use Zeusi\CircuitBreaker\Status\CircuitStatus;

function attempt(string $what, Closure $run): void
{
    try {
        $result = $run();
        echo "$what: ", var_export($result, true), "\n";
    } catch (Throwable $e) {
        echo "$what: ", get_class($e), ': ', $e->getMessage(), "\n";
    }
}

$bare = fn (string $class) => (new ReflectionClass($class))->newInstanceWithoutConstructor();

attempt('acquirePermission', fn () => $bare(CircuitBreaker::class)->acquirePermission());
attempt('getState', fn () => $bare(CircuitBreaker::class)->getState());
attempt('forceOpen', fn () => $bare(CircuitBreaker::class)->forceOpen(60));
attempt('Configuration::$timeWindow', fn () => $bare(Configuration::class)->timeWindow);
attempt('CircuitOpened::getService', fn () => $bare(CircuitOpened::class)->getService());
attempt('CircuitStatus::$state', fn () => $bare(CircuitStatus::class)->state);
attempt('InMemoryStorage::listCircuits', fn () => $bare(InMemoryStorage::class)->listCircuits());
attempt('ApcuStorage::listCircuits (inherited)', fn () => $bare(ApcuStorage::class)->listCircuits());
attempt('MockClock::now', fn () => $bare(MockClock::class)->now());
attempt('as an argument', fn () => new CircuitBreaker('svc', $bare(Configuration::class), new InMemoryStorage()));

// A test double, as a mocking library makes one: its own code runs.
class BreakerDouble extends CircuitBreaker
{
    public int $calls = 0;
    public function getState(): State
    {
        $this->calls++;
        return State::Open;
    }
}
$double = $bare(BreakerDouble::class);
attempt('overridden getState', fn () => $double->getState()->name);
attempt('its own property', fn () => $double->calls);
attempt('inherited acquirePermission', fn () => $double->acquirePermission());

// Constructed objects are untouched.
$breaker = new CircuitBreaker('svc', new Configuration(60, [new ConsecutiveFailuresRule(2)], 10, PermittedCallsPolicy::createSingleTrial(30)), new InMemoryStorage());
attempt('constructed', fn () => [$breaker->acquirePermission(), $breaker->getState()->name, (new Configuration(60, [new ConsecutiveFailuresRule(2)], 10, PermittedCallsPolicy::createSingleTrial(30)))->timeWindow]);
?>
--EXPECTF--
acquirePermission: Error: Zeusi\CircuitBreaker\CircuitBreaker::acquirePermission(): the Zeusi\CircuitBreaker\CircuitBreaker object was not constructed (made without calling its constructor, as ReflectionClass::newInstanceWithoutConstructor() does): create it with new, or call parent::__construct() from a subclass's constructor
getState: Error: Zeusi\CircuitBreaker\CircuitBreaker::getState(): the Zeusi\CircuitBreaker\CircuitBreaker object was not constructed (made without calling its constructor, as ReflectionClass::newInstanceWithoutConstructor() does): create it with new, or call parent::__construct() from a subclass's constructor
forceOpen: Error: Zeusi\CircuitBreaker\CircuitBreaker::forceOpen(): the Zeusi\CircuitBreaker\CircuitBreaker object was not constructed (%s
Configuration::$timeWindow: Error: Cannot read Zeusi\CircuitBreaker\Configuration::$timeWindow: the Zeusi\CircuitBreaker\Configuration object was not constructed (%s
CircuitOpened::getService: Error: Zeusi\CircuitBreaker\Event\CircuitOpened::getService(): the Zeusi\CircuitBreaker\Event\CircuitOpened object was not constructed (%s
CircuitStatus::$state: Error: Cannot read Zeusi\CircuitBreaker\Status\CircuitStatus::$state: the Zeusi\CircuitBreaker\Status\CircuitStatus object was not constructed (%s
InMemoryStorage::listCircuits: Error: Zeusi\CircuitBreaker\Storage\InMemoryStorage::listCircuits(): the Zeusi\CircuitBreaker\Storage\InMemoryStorage object was not constructed (%s
ApcuStorage::listCircuits (inherited): Error: Zeusi\CircuitBreaker\Storage\ApcuStorage::listCircuits(): the Zeusi\CircuitBreaker\Storage\ApcuStorage object was not constructed (%s
MockClock::now: Error: Zeusi\CircuitBreaker\Clock\MockClock::now(): the Zeusi\CircuitBreaker\Clock\MockClock object was not constructed (%s
as an argument: Error: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #2 ($configuration) the Zeusi\CircuitBreaker\Configuration object was not constructed (%s
overridden getState: 'Open'
its own property: 1
inherited acquirePermission: Error: BreakerDouble::acquirePermission(): the BreakerDouble object was not constructed (%s
constructed: array (
  0 => true,
  1 => 'Closed',
  2 => 60.0,
)
