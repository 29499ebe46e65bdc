--TEST--
CallExecutor and CallGate call the overrides of a CircuitBreaker subclass; RampPolicy uses an overridden curve; a breaker that throws in acquirePermission() gets nothing registered
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\CircuitBreakerInterface;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\Execution\CallGate;
use Zeusi\CircuitBreaker\HalfOpen\PowerRampCurve;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\State;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

/** A kill switch: while off, nothing passes, whatever the circuit says. */
final class KillSwitchBreaker extends CircuitBreaker
{
    public bool $off = false;
    public array $registered = [];
    public function acquirePermission(): bool { return !$this->off && parent::acquirePermission(); }
    public function registerFailure(?float $duration = null): void { $this->registered[] = 'failure'; parent::registerFailure($duration); }
}

$clock = new MockClock(1_764_000_000.0);
$breaker = new KillSwitchBreaker('payments', new Configuration(
    timeWindow: 10,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: RampPolicy::createLinear(duration: 60, initialRatio: 0.5),
), new InMemoryStorage($clock), null, $clock);
$breaker->off = true;
foreach ([fn () => (new CallExecutor($breaker))->execute(fn () => print("the call ran\n")), fn () => (new CallGate($breaker))->admit()] as $call) {
    try {
        $call();
        echo "permitted\n";
    } catch (CallNotPermittedException $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
$breaker->off = false;
try {
    (new CallExecutor($breaker))->execute(fn () => throw new RuntimeException('down'));
} catch (RuntimeException $e) {
    echo $e->getMessage(), ', registered through the override: ', implode(' ', $breaker->registered), "\n";
}

// A plain subclass overriding nothing keeps working as the breaker itself.
final class NamedBreaker extends CircuitBreaker {}
$plain = new NamedBreaker('plain', $breaker->getService() === 'payments' ? new Configuration(
    timeWindow: 10,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: RampPolicy::createLinear(duration: 60, initialRatio: 0.5),
) : null, new InMemoryStorage($clock), null, $clock);
try {
    (new CallExecutor($plain))->execute(fn () => throw new RuntimeException('down'));
} catch (RuntimeException) {
}
echo 'plain subclass: ', $plain->getState()->value, "\n";

// A curve of ours whose computation is overridden: asked for every call
// of the half-open state but the first, which always tests the service.
final class ClosedDoorCurve extends PowerRampCurve
{
    public int $asked = 0;
    public function computeAdmissionRatio(float $progress): float { $this->asked++; return 0.0; }
}
$curve = new ClosedDoorCurve(initialRatio: 1.0);
$ramped = new CircuitBreaker('ramped', new Configuration(
    timeWindow: 10,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: new RampPolicy(duration: 60, curve: $curve),
), new InMemoryStorage($clock), null, $clock);
$ramped->registerFailure();
$clock->sleep(10);
$permitted = 0;
for ($i = 0; $i < 20; $i++) {
    $permitted += (int) $ramped->acquirePermission();
}
echo "overridden curve: $permitted of 20 permitted, asked {$curve->asked} times\n";

// A breaker whose acquirePermission() throws: its exception goes on, the
// call never runs, nothing is registered.
final class ThrowingBreaker implements CircuitBreakerInterface
{
    public array $log = [];
    public function acquirePermission(): bool { throw new LogicException('breaker down'); }
    public function registerSuccess(?float $duration = null): void { $this->log[] = 'success'; }
    public function registerFailure(?float $duration = null): void { $this->log[] = 'failure'; }
    public function getState(): State { return State::Closed; }
    public function getService(): string { return 'throwing'; }
}
$throwing = new ThrowingBreaker();
foreach ([fn () => (new CallExecutor($throwing))->execute(fn () => print("the call ran\n")), fn () => (new CallGate($throwing))->admit()->registerResult('x')] as $call) {
    try {
        $call();
        echo "no exception\n";
    } catch (LogicException $e) {
        echo get_class($e), ': ', $e->getMessage(), ', previous: ', var_export($e->getPrevious(), true), "\n";
    }
}
echo 'registered: ', json_encode($throwing->log), "\n";
?>
--EXPECT--
Zeusi\CircuitBreaker\Exception\CallNotPermittedException: Circuit 'payments' is closed: this call was not permitted
Zeusi\CircuitBreaker\Exception\CallNotPermittedException: Circuit 'payments' is closed: this call was not permitted
down, registered through the override: failure
plain subclass: open
overridden curve: 1 of 20 permitted, asked 19 times
LogicException: breaker down, previous: NULL
LogicException: breaker down, previous: NULL
registered: []
