--TEST--
PHP code called by a breaker (its storage, its clock, the clock of its InMemoryStorage) that calls back into it is refused with a LogicException; __construct() on a live object is refused
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\ClockInterface;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

function configuration(): Configuration
{
    return new Configuration(
        timeWindow: 10,
        openingRules: [new ConsecutiveFailuresRule(failures: 2)],
        openDuration: 10,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    );
}

/** Runs `$callback` once, from inside the breaker, and says how it went. */
final class CallBack
{
    public ?Closure $callback = null;
    public array $seen = [];
    public function __invoke(): void
    {
        if ($callback = $this->callback) {
            $this->callback = null;
            try {
                $callback();
                $this->seen[] = 'returned';
            } catch (Throwable $e) {
                $this->seen[] = get_class($e) . ': ' . $e->getMessage();
            }
        }
    }
}

final class CallingStorage implements StorageInterface
{
    public array $entries = [];
    public function __construct(public CallBack $back) {}
    public function increment(string $key, int $ttl): int { ($this->back)(); return $this->entries[$key] = (int) ($this->entries[$key] ?? 0) + 1; }
    public function getMultiple(array $keys): array { ($this->back)(); return array_intersect_key($this->entries, array_flip($keys)); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        ($this->back)();
        if (($this->entries[$key] ?? null) !== $expected) {
            return false;
        }
        $this->entries[$key] = $value;
        return true;
    }
}

final class CallingClock implements ClockInterface
{
    public function __construct(public CallBack $back) {}
    public function now(): DateTimeImmutable { ($this->back)(); return new DateTimeImmutable('@1764000000'); }
}

$clock = new MockClock(1_764_000_000.0);
$back = new CallBack();

echo "-- a storage that calls its breaker\n";
$storage = new CallingStorage($back);
$breaker = new CircuitBreaker('service', configuration(), $storage, null, $clock);
foreach ([
    'getState' => fn () => $breaker->getState(),
    'acquirePermission' => fn () => $breaker->acquirePermission(),
    'registerFailure' => fn () => $breaker->registerFailure(),
    '__construct' => fn () => $breaker->__construct('other', configuration(), new InMemoryStorage()),
] as $name => $callback) {
    $back->callback = $callback;
    $breaker->registerFailure();
    echo "$name: ", array_pop($back->seen), "\n";
}
echo "the breaker is still 'service': ", $breaker->getService(), ", ", $breaker->getState()->value, "\n";

echo "-- a clock that calls its breaker\n";
$breaker = new CircuitBreaker('service', configuration(), new InMemoryStorage(), null, new CallingClock($back));
$back->callback = fn () => $breaker->getState();
var_dump($breaker->acquirePermission());
echo array_pop($back->seen), "\n";

echo "-- the clock of an InMemoryStorage calls another breaker over it\n";
$storage = new InMemoryStorage(new CallingClock($back));
$first = new CircuitBreaker('service', configuration(), $storage, null, $clock);
$second = new CircuitBreaker('service', configuration(), $storage, null, $clock);
$back->callback = fn () => $second->registerFailure();
$first->registerFailure();
echo array_pop($back->seen), "\n";
$second->registerFailure();
echo "two failures, one from each: ", $first->getState()->value, "\n";

echo "-- __construct() again on live objects\n";
foreach ([
    fn () => $first->__construct('other', configuration(), new InMemoryStorage()),
    fn () => $storage->__construct(),
    fn () => $clock->__construct(0),
    fn () => (new CallExecutor($first))->__construct($second),
] as $callback) {
    try {
        $callback();
        echo "accepted\n";
    } catch (LogicException $e) {
        echo $e->getMessage(), "\n";
    }
}
echo $first->getService(), ' ', $clock->now()->format('U'), "\n";

echo "-- an executor whose call uses the executor again works\n";
$executor = new CallExecutor(new CircuitBreaker('other', configuration(), new InMemoryStorage(), null, $clock));
echo $executor->execute(fn () => $executor->execute(fn () => 'inner')), "\n";
?>
--EXPECT--
-- a storage that calls its breaker
getState: LogicException: The circuit breaker of 'service' was called while it is already at work on a call, by its storage, clock or ramp curve (or by the clock of its InMemoryStorage): such calls are refused
acquirePermission: LogicException: The circuit breaker of 'service' was called while it is already at work on a call, by its storage, clock or ramp curve (or by the clock of its InMemoryStorage): such calls are refused
registerFailure: LogicException: The circuit breaker of 'service' was called while it is already at work on a call, by its storage, clock or ramp curve (or by the clock of its InMemoryStorage): such calls are refused
__construct: LogicException: Zeusi\CircuitBreaker\CircuitBreaker::__construct() cannot be called on an object already constructed
the breaker is still 'service': service, open
-- a clock that calls its breaker
bool(true)
LogicException: The circuit breaker of 'service' was called while it is already at work on a call, by its storage, clock or ramp curve (or by the clock of its InMemoryStorage): such calls are refused
-- the clock of an InMemoryStorage calls another breaker over it
LogicException: The circuit breaker of 'service' was called while it is already at work on a call, by its storage, clock or ramp curve (or by the clock of its InMemoryStorage): such calls are refused
two failures, one from each: open
-- __construct() again on live objects
Zeusi\CircuitBreaker\CircuitBreaker::__construct() cannot be called on an object already constructed
Zeusi\CircuitBreaker\Storage\InMemoryStorage::__construct() cannot be called on an object already constructed
Zeusi\CircuitBreaker\Clock\MockClock::__construct() cannot be called on an object already constructed
Zeusi\CircuitBreaker\Execution\CallExecutor::__construct() cannot be called on an object already constructed
service 1764000000
-- an executor whose call uses the executor again works
inner
