--TEST--
A ramp curve written in PHP: the first half-open call always tests the service, whatever the curve returns (0, a negative ratio, NAN); a NAN is an UnexpectedValueException naming the curve, and what a curve throws reaches the caller of acquirePermission(), neither as a CallRejected nor as a storage failure
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampCurveInterface;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;

final class ConstantCurve implements RampCurveInterface
{
    public int $asked = 0;
    public function __construct(private float $ratio) {}
    public function computeAdmissionRatio(float $progress): float
    {
        $this->asked++;
        return $this->ratio;
    }
}

final class ThrowingCurve implements RampCurveInterface
{
    public function computeAdmissionRatio(float $progress): float
    {
        throw new DomainException("no ratio at $progress");
    }
}

final class ArrayStore implements KeyValueStoreInterface
{
    public array $entries = [];
    public function increment(string $key, int $ttl): int { return $this->entries[$key] = (int) ($this->entries[$key] ?? 0) + 1; }
    public function getMultiple(array $keys): array { return array_intersect_key($this->entries, array_flip($keys)); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        if ((isset($this->entries[$key]) ? (string) $this->entries[$key] : null) !== $expected) {
            return false;
        }
        $this->entries[$key] = $value;
        return true;
    }
}

/** Opens a breaker over `$curve`, lets it half-open, then asks `$calls` times. */
function half_open_with(RampCurveInterface $curve, int $calls, bool $userlandStorage = false): void
{
    $clock = new MockClock(1800000000);
    $listener = new RecordingListener();
    $configuration = new Configuration(60, [new ConsecutiveFailuresRule(2)], 10, new RampPolicy(duration: 60, curve: $curve));
    $storage = $userlandStorage ? new ArrayStore() : new Zeusi\CircuitBreaker\Storage\InMemoryStorage();
    $breaker = new CircuitBreaker('svc', $configuration, $storage, $listener, $clock);
    repeat(2, fn () => $breaker->registerFailure());
    $clock->sleep(10);
    $answers = [];
    for ($i = 0; $i < $calls; $i++) {
        try {
            $answers[] = var_export($breaker->acquirePermission(), true);
        } catch (Throwable $e) {
            $answers[] = get_class($e) . ': ' . $e->getMessage();
        }
    }
    echo implode("\n", $answers), "\n";
    echo 'events: ', implode(', ', $listener->names(withRejections: true)), "\n";
}

echo "-- a curve at 0\n";
$zero = new ConstantCurve(0.0);
half_open_with($zero, 3);
echo "asked: $zero->asked\n";
echo "-- a negative ratio\n";
half_open_with(new ConstantCurve(-0.5), 2);
echo "-- NAN\n";
half_open_with(new ConstantCurve(NAN), 2);
echo "-- a curve that throws, over a storage written in PHP\n";
half_open_with(new ThrowingCurve(), 2, userlandStorage: true);

echo "-- the first trial decides: a NAN curve does not close the circuit untested\n";
$clock = new MockClock(1800000000);
$breaker = new CircuitBreaker('svc', new Configuration(60, [new ConsecutiveFailuresRule(1)], 10, new RampPolicy(duration: 10, curve: new ConstantCurve(NAN))), new Zeusi\CircuitBreaker\Storage\InMemoryStorage(), null, $clock);
$breaker->registerFailure();
$clock->sleep(10);
var_dump($breaker->acquirePermission());
$breaker->registerFailure();
echo $breaker->getState()->name, "\n";
?>
--EXPECT--
-- a curve at 0
true
false
false
events: CircuitOpened, CircuitHalfOpened, CallRejected, CallRejected
asked: 2
-- a negative ratio
true
false
events: CircuitOpened, CircuitHalfOpened, CallRejected
-- NAN
true
UnexpectedValueException: ConstantCurve::computeAdmissionRatio(0) returned NAN: a ratio is a number, 0 to 1 (others are clamped)
events: CircuitOpened, CircuitHalfOpened
-- a curve that throws, over a storage written in PHP
true
DomainException: no ratio at 0
events: CircuitOpened, CircuitHalfOpened
-- the first trial decides: a NAN curve does not close the circuit untested
bool(true)
Open
