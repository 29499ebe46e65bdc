<?php
// One process of the named-segment tests. `fail SERVICE` registers
// failures until SERVICE opens; `state SERVICE` says what this process
// sees of it; `info` prints the phpinfo() row of the segment's name.
// `fail-once SERVICE` registers one failure of a circuit that 1000 open,
// `count SERVICE` prints how many failures that circuit holds.

require __DIR__ . '/bootstrap.inc';

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

[, $action, $service] = $argv;
if ($action === 'info') {
    ob_start();
    phpinfo(INFO_MODULES);
    preg_match('/^shared memory name => .*$/m', ob_get_clean(), $row);
    echo $row[0], "\n";
    exit;
}
$listener = new RecordingListener();
$breaker = new CircuitBreaker($service, new Configuration(
    timeWindow: 3600,
    openingRules: [new ConsecutiveFailuresRule(in_array($action, ['fail-once', 'count'], true) ? 1000 : 3)],
    openDuration: 600,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 60),
), new SharedMemoryStorage('named-test:'), $listener);
if ($action === 'fail') {
    repeat(3, fn () => $breaker->registerFailure());
}
if ($action === 'fail-once') {
    $breaker->registerFailure();
    exit;
}
if ($action === 'count') {
    echo "$service: ", $breaker->getStatus()->failures, " failures\n";
    exit;
}
if (str_starts_with($action, 'truncate-to-')) {
    // An operator's `truncate -s N /dev/shm/NAME` while this process maps it.
    echo "$service: ", $breaker->acquirePermission() ? 'permitted' : 'rejected', " before\n";
    $file = fopen('/dev/shm/' . ini_get('circuit_breaker.shm_name'), 'r+');
    ftruncate($file, (int) substr($action, strlen('truncate-to-')));
    fclose($file);
}
$permitted = $breaker->acquirePermission();
try {
    $state = $breaker->getState()->value;
} catch (StorageException $e) {
    $state = 'StorageException: ' . $e->getMessage();
}
echo "$service: $state, ", $permitted ? 'permitted' : 'rejected', "\n";
foreach ($listener->events as $event) {
    if ($event instanceof StorageFailed) {
        echo 'StorageFailed: ', $event->exception->getMessage(), "\n";
        break;
    }
}
