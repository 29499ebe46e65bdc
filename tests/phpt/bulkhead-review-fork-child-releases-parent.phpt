--TEST--
Bulkhead (review): a child forked while its parent holds a permit must not empty the parent's slot when it exits
--EXTENSIONS--
pcntl
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new ConsecutiveFailuresRule(failures: 100)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    maxConcurrentCalls: 1,
);
$name = 'review-fork-' . getmypid();
$breaker = new CircuitBreaker($name, $configuration, new SharedMemoryStorage());
var_dump($breaker->acquirePermission());
$pid = pcntl_fork();
if ($pid === 0) {
    exit(0); // the child does nothing with the breaker
}
pcntl_waitpid($pid, $status);
echo 'in flight after the child exited: ', $breaker->getStatus()->callsInFlight, "\n";
$other = new CircuitBreaker($name, $configuration, new SharedMemoryStorage());
echo 'a second call with a limit of 1: ';
var_dump($other->acquirePermission());
$breaker->registerSuccess(0.01);
?>
--EXPECT--
bool(true)
in flight after the child exited: 1
a second call with a limit of 1: bool(false)
