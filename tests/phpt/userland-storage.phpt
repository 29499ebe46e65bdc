--TEST--
A storage written in PHP over arrays: the core drives its three primitives with the same semantics as any storage
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

/** Keys in an array, each with its expiry on the mock clock. */
final class ArrayStorage implements StorageInterface
{
    public array $entries = [];
    public array $calls = [];

    public function __construct(private MockClock $clock) {}

    private function now(): float
    {
        return (float) $this->clock->now()->format('U.u');
    }

    private function live(string $key): ?string
    {
        [$value, $expires] = $this->entries[$key] ?? [null, 0];
        return $expires > $this->now() ? $value : null;
    }

    public function increment(string $key, int $ttl): int
    {
        $this->calls[] = 'increment';
        $value = (int) $this->live($key) + 1;
        $expires = $this->live($key) === null ? $this->now() + $ttl : $this->entries[$key][1];
        $this->entries[$key] = [(string) $value, $expires];
        return $value;
    }

    public function getMultiple(array $keys): array
    {
        $this->calls[] = 'getMultiple';
        $found = [];
        foreach ($keys as $key) {
            if (($value = $this->live($key)) !== null) {
                $found[$key] = $value;
            }
        }
        return $found;
    }

    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        $this->calls[] = 'compareAndSet';
        if ($this->live($key) !== $expected) {
            return false;
        }
        $this->entries[$key] = [$value, $this->now() + $ttl];
        return true;
    }
}

$clock = new MockClock(1_764_000_000.0);
$storage = new ArrayStorage($clock);
$listener = new RecordingListener();
$configuration = new Configuration(
    timeWindow: 10,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4), new ConsecutiveFailuresRule(failures: 3)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = new CircuitBreaker("payments \xff", $configuration, $storage, $listener, $clock);
repeat(5, fn () => $breaker->registerSuccess());
$breaker->registerFailure();
$breaker->registerFailure();
echo "2 failures after 5 successes: ", $breaker->getState()->value, "\n";
$breaker->registerFailure();
echo "3 failures in a row: ", $breaker->getState()->value, "\n";
var_dump($breaker->acquirePermission());
$clock->sleep(10);
var_dump($breaker->acquirePermission(), $breaker->acquirePermission());
$storage->calls = [];
$breaker->registerSuccess();
echo "after the trial: ", $breaker->getState()->value, "\n";
echo implode(' ', $listener->names()), "\n";
echo "keys: ", implode(', ', array_slice(array_keys($storage->entries), 0, 2)), "\n";
// Outcomes slide out of the window with the clock.
$clock->sleep(11);
repeat(2, fn () => $breaker->registerFailure());
$breaker->registerSuccess();
repeat(2, fn () => $breaker->registerFailure());
echo "2 + 2 failures around a success: ", $breaker->getState()->value, "\n";
?>
--EXPECT--
2 failures after 5 successes: closed
3 failures in a row: open
bool(false)
bool(true)
bool(false)
after the trial: closed
CircuitOpened CircuitHalfOpened CircuitClosed
keys: cb:payments%20%FF:b:1764000000:0:0, cb:payments%20%FF:f:0
2 + 2 failures around a success: open
