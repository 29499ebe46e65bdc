<?php
// The application of the metrics test: calls through breakers on the
// shared memory of the pool (prefix 'shop:', as examples/metrics.php reads),
// and an operator's forceOpen(), each in whichever worker FPM picks.

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(
    timeWindow: 3600,
    openingRules: [new FailureRateRule(threshold: 100, minimumRequests: 4)],
    openDuration: 600,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 60),
);
$breaker = new CircuitBreaker($_GET['service'] ?? 'upstream', $configuration, new SharedMemoryStorage('shop:'));

$permitted = null;
switch ($_GET['action'] ?? '') {
    case 'call':
        $permitted = $breaker->acquirePermission();
        if ($permitted) {
            usleep(20_000); // overlapping requests go to different workers
            ($_GET['outcome'] ?? '') === 'failure' ? $breaker->registerFailure(0.02) : $breaker->registerSuccess(0.02);
        }
        break;
    case 'force-open':
        $breaker->forceOpen((float) $_GET['seconds']);
        break;
}
header('Content-Type: application/json');
echo json_encode(['pid' => getmypid(), 'permitted' => $permitted]), "\n";
