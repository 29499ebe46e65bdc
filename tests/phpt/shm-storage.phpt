--TEST--
SharedMemoryStorage keeps circuits with the same semantics; prefixes separate them; ApcuStorage names the same storage
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Storage\ApcuStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$clock = new MockClock(1_764_000_000.0);
$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$listener = new RecordingListener();
$shop = new CircuitBreaker('payments', $configuration, new SharedMemoryStorage(prefix: 'shop:'), $listener, $clock);
repeat(2, fn () => $shop->registerSuccess());
repeat(2, fn () => $shop->registerFailure());
echo "shop: ", $shop->getState()->value, "\n";
// Another breaker object on the same storage and name sees the same circuit.
$again = new CircuitBreaker('payments', $configuration, new SharedMemoryStorage('shop:'), null, $clock);
echo "same name: ", $again->getState()->value, "\n";
$apcu = new CircuitBreaker('payments', $configuration, new ApcuStorage('shop:'), null, $clock);
echo "through ApcuStorage: ", $apcu->getState()->value, "\n";
$other = new CircuitBreaker('payments', $configuration, new SharedMemoryStorage('blog:'), null, $clock);
echo "other prefix: ", $other->getState()->value, "\n";
$clock->sleep(10);
var_dump($shop->acquirePermission(), $again->acquirePermission()); // one trial across both objects
$shop->registerSuccess();
echo "after the trial: ", $again->getState()->value, "\n";
echo implode(' ', $listener->names()), "\n";
var_dump(new ApcuStorage() instanceof SharedMemoryStorage);
?>
--EXPECT--
shop: open
same name: open
through ApcuStorage: open
other prefix: closed
bool(true)
bool(false)
after the trial: closed
CircuitOpened CircuitHalfOpened CircuitClosed
bool(true)
