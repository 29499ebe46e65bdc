--TEST--
A network storage: forked processes count exactly (no lost first increment on a new bucket) and each transition is emitted once
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

final class FileListener implements EventListenerInterface
{
    public function __construct(private string $file) {}
    public function handleEvent(EventInterface $event): void
    {
        file_put_contents($this->file, (new ReflectionClass($event))->getShortName() . "\n", FILE_APPEND | LOCK_EX);
    }
}

/** Runs $work($worker) in $workers forked processes and waits for them all. */
function fork_all(int $workers, callable $work): void
{
    $children = [];
    for ($worker = 0; $worker < $workers; $worker++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $work($worker);
            exit(0);
        }
        $children[] = $pid;
    }
    foreach ($children as $pid) {
        pcntl_waitpid($pid, $status);
    }
}

const WORKERS = 4;
const OUTCOMES = 2_000;
$log = tempnam(sys_get_temp_dir(), 'events');
$service = 'concurrency-' . getmypid();
// Opens at 100% failures with exactly 8000 outcomes: one lost and it stays closed.
$configuration = new Configuration(
    timeWindow: 3600,
    openingRules: [new FailureRateRule(threshold: 100, minimumRequests: WORKERS * OUTCOMES)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
// All start at once on a new bucket: its first increments race to create
// it. Each process makes its own breaker and connection, after the fork.
fork_all(WORKERS, function (int $worker) use ($service, $configuration, $log) {
    $breaker = new CircuitBreaker($service, $configuration, storage(timeout: 1.0), new FileListener($log));
    for ($i = 0; $i < ($worker === 0 ? OUTCOMES - 1 : OUTCOMES); $i++) {
        $breaker->registerFailure();
    }
});
$breaker = new CircuitBreaker($service, $configuration, storage(), new FileListener($log));
echo WORKERS * OUTCOMES - 1, ' failures: ', $breaker->getState()->value, "\n";
$breaker->registerFailure();
echo WORKERS * OUTCOMES, ' failures: ', $breaker->getState()->value, "\n";

// Eight processes racing on a circuit: one opening event.
$raced = 'raced-' . getmypid();
fork_all(8, function () use ($raced, $log) {
    $breaker = new CircuitBreaker($raced, configuration(minimum: 20), storage(timeout: 1.0), new FileListener($log));
    for ($i = 0; $i < 50; $i++) {
        $breaker->registerFailure();
    }
});
echo implode(' ', array_map('trim', file($log))), "\n";
unlink($log);
?>
--EXPECT--
7999 failures: closed
8000 failures: open
CircuitOpened CircuitOpened
