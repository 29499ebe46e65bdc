<?php
// The application the PHP-FPM test sends requests to: each request runs in
// whichever worker FPM picks, and answers with that worker's pid.

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(
    timeWindow: 3600,
    // Opens at exactly 40 failures: a failure lost by any worker keeps it closed.
    openingRules: [new FailureRateRule(threshold: 100, minimumRequests: 40)],
    openDuration: 600,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 60),
);
$breaker = new CircuitBreaker('upstream', $configuration, new SharedMemoryStorage('fpm-test:'));

$action = $_GET['action'] ?? 'state';
if ($action === 'fail') {
    usleep(20_000); // overlapping requests go to different workers
    $breaker->registerFailure();
}
header('Content-Type: application/json');
echo json_encode(['pid' => getmypid(), 'state' => $breaker->getState()->value, 'permitted' => $action === 'acquire' ? $breaker->acquirePermission() : null]), "\n";
