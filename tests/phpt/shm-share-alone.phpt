--TEST--
One application (one prefix) alone on the segment is not held to circuit_breaker.shm_max_share: with the default 0.5 it stores more than half of the records, up to a full segment
--INI--
circuit_breaker.shm_size=256K
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
$info = SharedMemoryStorage::info();
$storage = new SharedMemoryStorage('alone:');
$listener = new RecordingListener();
for ($stored = 0; $stored < $info['records']; $stored++) {
    (new CircuitBreaker("name-$stored", $configuration, $storage, $listener))->registerSuccess();
    if ($listener->events) {
        break;
    }
}
$after = SharedMemoryStorage::info();
echo "max_share: {$info['max_share']}, stored more than half: ", var_export($stored > $info['max_records_per_prefix'], true),
    ", at least 90% of the records: ", var_export($stored >= 0.9 * $info['records'], true), "\n";
echo 'refused by the share: ', $after['claims_refused_by_share'], "\n";
echo $listener->events ? 'then: ' . $listener->events[0]->exception->getMessage() : 'no refusal', "\n";
?>
--EXPECTF--
max_share: 0.5, stored more than half: true, at least 90% of the records: true
refused by the share: 0
%s
