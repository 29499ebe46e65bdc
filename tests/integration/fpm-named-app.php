<?php
// Both sides of the named-segment test: a php-fpm request
// (?action=...&service=...) or a CLI command (ACTION SERVICE). `fail`
// registers the failures that open SERVICE, `force` forces it open for ten
// minutes; `acquire` asks for a call; `list` lists every circuit of the
// segment. One line of JSON: who answered and what it saw.

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

[$action, $service] = PHP_SAPI === 'cli'
    ? [$argv[1], $argv[2]]
    : [$_GET['action'] ?? 'acquire', $_GET['service'] ?? 'upstream'];
$storage = new SharedMemoryStorage('named-it:');
if ($action === 'list') {
    $circuits = [];
    foreach ($storage->listCircuits() as $status) {
        $circuits[] = $status->service . ':' . $status->state->value . ($status->forced ? ':forced' : '');
    }
    sort($circuits);
    echo json_encode(['circuits' => $circuits]), "\n";
    exit;
}
$breaker = new CircuitBreaker($service, new Configuration(
    timeWindow: 3600,
    openingRules: [new ConsecutiveFailuresRule(3)],
    openDuration: 600,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 60),
), $storage);
if ($action === 'fail') {
    for ($i = 0; $i < 3; $i++) {
        $breaker->registerFailure();
    }
}
if ($action === 'force') {
    $breaker->forceOpen(600);
}
$permitted = $breaker->acquirePermission();
if (PHP_SAPI !== 'cli') {
    header('Content-Type: application/json');
}
try {
    $state = $breaker->getState()->value;
} catch (Zeusi\CircuitBreaker\Exception\StorageException) {
    // The segment is gone from under this process (shortened, say).
    $state = 'storage-failed';
}
echo json_encode([
    'sapi' => PHP_SAPI,
    'pid' => getmypid(),
    'state' => $state,
    'permitted' => $permitted,
]), "\n";
