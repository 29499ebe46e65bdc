--TEST--
FleetStorage: the host records of one application's fleet circuits are out of reach of every prefix, "shop:\0fleet\0" (the tier's own marker) included: not listed, not opened, not reset, their sync words not written
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 5)],
    openDuration: 30,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
// Port 1: nothing listens there, the host decides alone, on its records.
$fleet = new FleetStorage(new MemcachedStorage('127.0.0.1:1', timeout: 0.05), host: new SharedMemoryStorage('shop:'));
$shop = new CircuitBreaker('payments', $configuration, $fleet);
repeat(8, fn () => $shop->acquirePermission() && $shop->registerFailure());
echo 'shop: ', $shop->getState()->value, "\n";

foreach (["shop:\0fleet\0", "shop:\0fleet\0L", "shop:\0fleet\0F", "shop:", ''] as $prefix) {
    $other = new SharedMemoryStorage($prefix);
    $listed = array_map(fn ($status) => $status->service, $other->listCircuits());
    echo json_encode($prefix), ' lists ', json_encode(array_values(array_filter($listed, fn ($service) => str_contains($service, 'payments')))), "\n";
    foreach (['Lpayments', 'payments', 'Fpayments'] as $service) {
        $intruder = new CircuitBreaker($service, $configuration, $other);
        if ($intruder->getState()->value !== 'closed') {
            echo "  $service reached: ", $intruder->getState()->value, "\n";
        }
        $intruder->reset();
        repeat(20, fn () => $intruder->registerSuccess());
    }
}
echo 'shop after all that: ', $shop->getState()->value, "\n";
?>
--EXPECT--
shop: open
"shop:\u0000fleet\u0000" lists []
"shop:\u0000fleet\u0000L" lists []
"shop:\u0000fleet\u0000F" lists []
"shop:" lists []
"" lists []
shop after all that: open
