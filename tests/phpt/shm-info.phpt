--TEST--
SharedMemoryStorage::info() gives the segment's statistics, as apcu_sma_info() gives APCu's: sizes, records used, free and idle, failed and refused claims
--INI--
circuit_breaker.shm_size=1M
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\ApcuStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(10, [new FailureRateRule(50, 1)], 1, new PermittedCallsPolicy(1));
function fill(string $prefix, int $services, Configuration $configuration): void
{
    $storage = new SharedMemoryStorage($prefix);
    for ($i = 0; $i < $services; $i++) {
        (new CircuitBreaker("service-$i", $configuration, $storage))->registerSuccess();
    }
}
function show(array $info): void
{
    foreach ($info as $name => $value) {
        echo "$name: ", var_export($value, true), "\n";
    }
    printf("used + free = records: %s\n", $info['records_used'] + $info['records_free'] === $info['records'] ? 'yes' : 'no');
}

$empty = SharedMemoryStorage::info();
var_dump($empty === ApcuStorage::info());
fill('a', 3, $configuration);
show(SharedMemoryStorage::info());
// Prefix b asks for 5 more circuits than its share; c for more than are left.
fill('b', $empty['max_records_per_prefix'] + 5, $configuration);
fill('c', $empty['records'], $configuration);
$full = SharedMemoryStorage::info();
echo "full: {$full['records_free']} free, refused by the share: ", $full['claims_refused_by_share'] > 0 ? 'some' : 'none',
    ", failed for lack of space: ", $full['claims_failed_full'] > 0 ? 'some' : 'none', "\n";
// Idle once their time to live (here about the 10 s window) has passed
// without use: wait for all of them (filled over several seconds under
// valgrind), 60 s at most.
$started = microtime(true);
while (($info = SharedMemoryStorage::info())['records_idle'] < $info['records_used'] && microtime(true) - $started < 60) {
    usleep(200_000);
}
$idle = SharedMemoryStorage::info();
echo "idle after waiting: ", $idle['records_idle'] === $idle['records_used'] ? 'all used records' : $idle['records_idle'], "\n";
?>
--EXPECTF--
bool(true)
available: true
segment_size: 1048576
record_size: %d
records: %d
records_used: 3
records_free: %d
records_idle: 0
max_share: 0.5
max_records_per_prefix: %d
idle_records_reused: 0
claims_failed_full: 0
claims_refused_by_share: 0
used + free = records: yes
full: 0 free, refused by the share: some, failed for lack of space: some
idle after waiting: all used records
