--TEST--
listCircuits(): every circuit of the segment (5 000 here) and of an InMemoryStorage, by prefix, with its status and no configuration at hand
--INI--
circuit_breaker.shm_size=64M
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;
use Zeusi\CircuitBreaker\Exception\StorageException;

$configuration = new Configuration(
    timeWindow: 10,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    maxOpenDuration: 80,
);
$clock = new MockClock(microtime(true));
$storage = new SharedMemoryStorage('shop:');
for ($i = 0; $i < 5_000; $i++) {
    (new CircuitBreaker(sprintf('svc-%04d', $i), $configuration, $storage, null, $clock))->registerSuccess();
}
$open = new CircuitBreaker('svc-0007', $configuration, $storage, null, $clock);
repeat(4, fn () => $open->registerFailure());
(new CircuitBreaker('svc-0042', $configuration, $storage, null, $clock))->forceOpen(600);
(new CircuitBreaker('other', $configuration, new SharedMemoryStorage('elsewhere:'), null, $clock))->registerSuccess();

$all = $storage->listCircuits();
echo count($all), " circuits\n";
$states = [];
foreach ($all as $status) {
    $key = $status->state->value . ($status->forced ? ' (forced)' : '');
    $states[$key] = ($states[$key] ?? 0) + 1;
}
ksort($states);
print_r($states);
$byName = [];
foreach ($storage->listCircuits('svc-004') as $status) {
    $byName[$status->service] = $status;
}
ksort($byName);
echo count($byName), " with prefix svc-004: ", implode(' ', array_keys($byName)), "\n";
$forced = $byName['svc-0042'];
printf("svc-0042: %s forced, %d s left, window %s\n", $forced->state->value, $forced->until->getTimestamp() - $forced->since->getTimestamp(), var_export($forced->calls, true));
[$opened] = $storage->listCircuits('svc-0007');
printf("svc-0007: %s for %g s until %s\n", $opened->state->value, $opened->openDuration, $opened->until == $open->getStatus()->until ? 'the breaker says so too' : 'a different instant');
echo count((new SharedMemoryStorage('elsewhere:'))->listCircuits()), " in another prefix\n";

$clock = new MockClock(1_764_000_000.0);
$memory = new InMemoryStorage($clock);
foreach (['a', 'b', 'c'] as $name) {
    (new CircuitBreaker("api-$name", $configuration, $memory, null, $clock))->registerFailure();
}
(new CircuitBreaker('api-b', $configuration, $memory, null, $clock))->forceClosed(60);
foreach ($memory->listCircuits('api-') as $status) {
    echo $status->service, ' ', $status->state->value, $status->forced ? ' forced' : '', "\n";
}
try {
    (new MemcachedStorage('127.0.0.1:1'))->listCircuits();
} catch (StorageException $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
5000 circuits
Array
(
    [closed] => 4998
    [open] => 1
    [open (forced)] => 1
)
10 with prefix svc-004: svc-0040 svc-0041 svc-0042 svc-0043 svc-0044 svc-0045 svc-0046 svc-0047 svc-0048 svc-0049
svc-0042: open forced, 600 s left, window NULL
svc-0007: open for 10 s until the breaker says so too
1 in another prefix
api-a closed
api-b closed forced
api-c closed
MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers
