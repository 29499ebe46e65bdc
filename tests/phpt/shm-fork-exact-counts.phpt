--TEST--
Forked processes count outcomes on one shared circuit without losing one: 4 x 100000 failures open it exactly at the last
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) die('skip pcntl needed'); ?>
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

const WORKERS = 4;
const OUTCOMES = 100_000;

// The circuit opens at 100% failures with a minimum of exactly 400000
// outcomes: one lost increment and it would stay closed.
$clock = new MockClock(1_764_000_000.0); // every outcome in one bucket
$configuration = new Configuration(
    timeWindow: 3600,
    openingRules: [new FailureRateRule(threshold: 100, minimumRequests: WORKERS * OUTCOMES)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = new CircuitBreaker('counted', $configuration, new SharedMemoryStorage(), null, $clock);
$breaker->registerFailure(); // the parent counts the first one

$children = [];
for ($worker = 0; $worker < WORKERS; $worker++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $outcomes = $worker === 0 ? OUTCOMES - 2 : OUTCOMES;
        for ($i = 0; $i < $outcomes; $i++) {
            $breaker->registerFailure();
        }
        exit(0);
    }
    $children[] = $pid;
}
foreach ($children as $pid) {
    pcntl_waitpid($pid, $status);
}
echo WORKERS * OUTCOMES - 1, " counted: ", $breaker->getState()->value, "\n";
$breaker->registerFailure();
echo WORKERS * OUTCOMES, " counted: ", $breaker->getState()->value, "\n";
?>
--EXPECT--
399999 counted: closed
400000 counted: open
