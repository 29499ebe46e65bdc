--TEST--
Bulkhead (review): a storage that fails at the half-open admission (after the state was read) must let the call through within its bulkhead (fail open), not refuse it as BulkheadFull on its own first permit, and a refused call must hold no permit
--INI--
error_log=/dev/null
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;

final class Store implements KeyValueStoreInterface
{
    public array $data = [];
    public bool $failAdmissions = false;
    public function increment(string $key, int $ttl): int
    {
        if ($this->failAdmissions && str_contains($key, ':a:')) {
            throw new RuntimeException('increment timed out');
        }
        return $this->data[$key] = (int) ($this->data[$key] ?? 0) + 1;
    }
    public function getMultiple(array $keys): array
    {
        return array_intersect_key($this->data, array_flip($keys));
    }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        $current = isset($this->data[$key]) ? (string) $this->data[$key] : null;
        if ($current !== $expected) {
            return false;
        }
        $this->data[$key] = $value;
        return true;
    }
}

$clock = new MockClock('2026-01-01');
$store = new Store();
$breaker = new CircuitBreaker('review-half-open-' . getmypid(), new Configuration(
    timeWindow: 60,
    openingRules: [new ConsecutiveFailuresRule(failures: 1)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    maxConcurrentCalls: 2,
), $store, null, $clock);
$breaker->acquirePermission();
$breaker->registerFailure(0.01);
$clock->sleep(11);
$store->failAdmissions = true;
// Another call of the circuit in flight (its own fiber): one place left.
$other = new Fiber(function () use ($breaker) {
    $breaker->acquirePermission();
    Fiber::suspend();
});
$other->start();
echo 'in flight: ', $breaker->getStatus()->callsInFlight, "\n";
echo 'permitted, the storage failing: ';
var_dump($breaker->acquirePermission());
echo 'in flight: ', $breaker->getStatus()->callsInFlight, "\n";
?>
--EXPECT--
in flight: 1
permitted, the storage failing: bool(true)
in flight: 2
