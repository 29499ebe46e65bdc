<?php
// The application of the pool-loaded test: touches the enum cases (whose
// objects the engine keeps per request) and a breaker on shared memory.

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\State;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(
    timeWindow: 3600,
    openingRules: [new ConsecutiveFailuresRule(10)],
    openDuration: 600,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 60),
);
$breaker = new CircuitBreaker('pool', $configuration, new SharedMemoryStorage('pool-test:'));
if (($_GET['action'] ?? '') === 'fail') {
    $breaker->registerFailure();
}
header('Content-Type: application/json');
echo json_encode([
    'pid' => getmypid(),
    'state' => $breaker->getState()->value,
    'open' => $breaker->getState() === State::Open,
    'cases' => array_map(fn (State $state) => $state->name, State::cases()),
]), "\n";
