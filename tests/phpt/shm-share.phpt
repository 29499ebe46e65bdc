--TEST--
While another prefix holds records, no prefix takes more than circuit_breaker.shm_max_share of the segment: a prefix churning names is refused (failing open) while another still gets records; a full segment refuses at once
--INI--
circuit_breaker.shm_size=256K
circuit_breaker.shm_max_share=0.5
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule(2)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);

/** Registers a success for new names of `$prefix` until one is refused: how many got a record, and the refusal. */
function fill(string $prefix, Zeusi\CircuitBreaker\Configuration $configuration): array
{
    $storage = new SharedMemoryStorage($prefix);
    $listener = new RecordingListener();
    for ($i = 0; $i < 10_000; $i++) {
        $breaker = new CircuitBreaker("name-$i", $configuration, $storage, $listener);
        $breaker->registerSuccess();
        if ($listener->events) {
            return [$i, $listener->events[0], $breaker];
        }
    }
    return [$i, null, null];
}

// The share binds while another prefix holds records: the shop has one.
$shop = new CircuitBreaker('checkout', $configuration, new SharedMemoryStorage('shop:'));
$shop->registerFailure();
$shop->registerFailure();
[$churned, $refusal, $refused] = fill('churn:', $configuration);
echo "churn: $churned circuits, then ", get_class($refusal), ": ", $refusal->exception->getMessage(), "\n";
// The refused circuit fails open: calls are permitted, failures do not open it.
var_dump($refused->acquirePermission());
$refused->registerFailure();
$refused->registerFailure();
var_dump($refused->acquirePermission());

// Another application still gets its records, and its circuits work.
echo "shop: checkout is ", $shop->getState()->value, "\n";
[$filled, $refusal] = fill('shop:', $configuration);
echo "shop: ", $filled + 1, " circuits, as many as churn: ", var_export($filled + 1 === $churned, true), ", then ", $refusal->exception->getMessage(), "\n";

// The records left (none, or one when the capacity is odd) go to a third
// prefix, then it is refused, naming the size.
[$none, $refusal, $refused] = fill('third:', $configuration);
echo "third: $none circuits, then ", $refusal->exception->getMessage(), "\n";
var_dump($refused->acquirePermission());
// The churner's circuits keep working.
$first = new CircuitBreaker('name-0', $configuration, new SharedMemoryStorage('churn:'));
$first->registerFailure();
$first->registerFailure();
echo "churn: name-0 is ", $first->getState()->value, "\n";
?>
--EXPECTF--
churn: %d circuits, then Zeusi\CircuitBreaker\Event\StorageFailed: the prefix 'churn:' holds %d of the %d circuits of the shared memory, its share: raise circuit_breaker.shm_max_share (now 0.5) or circuit_breaker.shm_size (now 262144 bytes), or use fewer service names
bool(true)
bool(true)
shop: checkout is open
shop: %d circuits, as many as churn: true, then the prefix 'shop:' holds %d of the %d circuits of the shared memory, its share: raise circuit_breaker.shm_max_share (now 0.5) or circuit_breaker.shm_size (now 262144 bytes), or use fewer service names
third: %d circuits, then the shared memory holds %d circuits, all in use: raise circuit_breaker.shm_size (now 262144 bytes)
bool(true)
churn: name-0 is open
