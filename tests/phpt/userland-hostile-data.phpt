--TEST--
A storage written in PHP, hostile data heals: a state overwritten by another client (forever, and not a state) is replaced with a time to live by the next call, whose StorageFailed names the key and what it held; counters overwritten with garbage are replaced and the circuit still counts and opens
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

/** Keys in an array with their expiry on the mock clock; increments refuse what is not an integer, as Redis and Memcached do. */
final class ArrayStorage implements StorageInterface
{
    public array $entries = [];

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

    /** What another client does: a plain write that never expires. */
    public function overwrite(string $key, string $value): void
    {
        $this->entries[$key] = [$value, INF];
    }

    /** Seconds left to live, INF for a key that never expires. */
    public function ttl(string $key): float
    {
        return $this->entries[$key][1] - $this->now();
    }

    public function increment(string $key, int $ttl): int
    {
        $value = $this->live($key);
        if ($value !== null && !preg_match('/^\d+$/', $value)) {
            throw new UnexpectedValueException("$key does not hold an integer");
        }
        $expires = $value === null ? $this->now() + $ttl : $this->entries[$key][1];
        $this->entries[$key] = [(string) ((int) $value + 1), $expires];
        return (int) $value + 1;
    }

    public function getMultiple(array $keys): array
    {
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
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4), new ConsecutiveFailuresRule(failures: 5)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = new CircuitBreaker('api', $configuration, $storage, $listener, $clock);
$failures = fn () => array_values(array_map(
    fn ($event) => $event->exception->getMessage(),
    array_filter($listener->events, fn ($event) => $event instanceof Zeusi\CircuitBreaker\Event\StorageFailed),
));

$storage->overwrite('cb:api:s', "not\x00a state");
var_dump($breaker->acquirePermission());
echo implode("\n", $failures()), "\n";
[$value] = $storage->entries['cb:api:s'];
echo "now holds a state: ", preg_match('/^\d:\d+:\d+$/', $value) ? 'yes' : "no ($value)", ", with a time to live: ", is_finite($storage->ttl('cb:api:s')) ? 'yes' : 'no', "\n";

$listener->events = [];
repeat(2, fn () => $breaker->registerFailure());
$overwritten = 0;
foreach (array_keys($storage->entries) as $key) {
    if ($key !== 'cb:api:s') {
        $storage->overwrite($key, 'NaN');
        $overwritten++;
    }
}
repeat(4, fn () => $breaker->registerFailure());
echo "$overwritten counters overwritten; after failures over them: ", $breaker->getState()->value, ", StorageFailed: ", json_encode($failures()), "\n";
echo "open state with a time to live: ", is_finite($storage->ttl('cb:api:s')) ? 'yes' : 'no', "\n";
?>
--EXPECT--
bool(true)
key cb:api:s held "not\x00a state", which is not a circuit state: replaced by a closed state
now holds a state: yes, with a time to live: yes
2 counters overwritten; after failures over them: open, StorageFailed: []
open state with a time to live: yes
