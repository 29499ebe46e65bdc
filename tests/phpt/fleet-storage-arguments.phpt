--TEST--
FleetStorage: its arguments are checked at construction; with its store unreachable the host decides alone, said once; its records stay out of the host's listing
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

// Port 1: nothing listens there, every round trip fails at once.
$nowhere = fn () => new RedisStorage('redis://127.0.0.1:1', timeout: 0.05);
foreach ([
    fn () => new FleetStorage(new InMemoryStorage()),
    fn () => new FleetStorage($nowhere(), syncInterval: 0.0099),
    fn () => new FleetStorage($nowhere(), syncInterval: 60.001),
    fn () => new FleetStorage($nowhere(), syncInterval: NAN),
    fn () => new FleetStorage($nowhere(), host: new InMemoryStorage()),
] as $make) {
    try {
        $make();
        echo "accepted\n";
    } catch (Throwable $error) {
        echo get_class($error), ': ', $error->getMessage(), "\n";
    }
}
new FleetStorage($nowhere(), syncInterval: 0.01);
new FleetStorage($nowhere(), syncInterval: 60);

$listener = new RecordingListener();
$breaker = new CircuitBreaker('payments', new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 5)],
    openDuration: 30,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
), new FleetStorage($nowhere(), host: new SharedMemoryStorage('app:')), $listener);
for ($i = 0; $i < 8; $i++) {
    if ($breaker->acquirePermission()) {
        $breaker->registerFailure();
    }
}
echo implode(' ', $listener->names()), "\n";
echo $breaker->getState()->value, "\n";
echo 'host listing: ', json_encode(array_map(fn ($status) => $status->service, (new SharedMemoryStorage('app:'))->listCircuits())), "\n";
?>
--EXPECT--
Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid fleet: Zeusi\CircuitBreaker\Storage\InMemoryStorage given, expected a RedisStorage (standalone, cluster or Sentinel) or a MemcachedStorage of this extension
Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid syncInterval: 0.0099 given, expected 0.01 to 60 seconds
Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid syncInterval: 60.001 given, expected 0.01 to 60 seconds
Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid syncInterval: NAN given, expected 0.01 to 60 seconds
TypeError: Zeusi\CircuitBreaker\Storage\FleetStorage::__construct(): Argument #2 ($host) must be of type ?Zeusi\CircuitBreaker\Storage\SharedMemoryStorage, Zeusi\CircuitBreaker\Storage\InMemoryStorage given
StorageFailed CircuitOpened
open
host listing: []
