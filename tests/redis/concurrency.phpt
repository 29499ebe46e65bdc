--TEST--
RedisStorage: forked processes count exactly and each transition is emitted once
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

final class FileListener implements EventListenerInterface
{
    public function __construct(private string $file) {}
    public function handleEvent(EventInterface $event): void
    {
        file_put_contents($this->file, (new ReflectionClass($event))->getShortName() . "\n", FILE_APPEND | LOCK_EX);
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
$children = [];
for ($worker = 0; $worker < WORKERS; $worker++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        // Each process makes its own breaker and connection, after the fork.
        $breaker = new CircuitBreaker($service, $configuration, new RedisStorage(redis_env('CB_REDIS_DSN'), timeout: 1.0), new FileListener($log));
        for ($i = 0; $i < ($worker === 0 ? OUTCOMES - 1 : OUTCOMES); $i++) {
            $breaker->registerFailure();
        }
        exit(0);
    }
    $children[] = $pid;
}
foreach ($children as $pid) {
    pcntl_waitpid($pid, $status);
}
$breaker = new CircuitBreaker($service, $configuration, new RedisStorage(redis_env('CB_REDIS_DSN')), new FileListener($log));
echo WORKERS * OUTCOMES - 1, ' failures: ', $breaker->getState()->value, "\n";
$breaker->registerFailure();
echo WORKERS * OUTCOMES, ' failures: ', $breaker->getState()->value, "\n";

// Eight processes racing on a circuit: one opening event.
$raced = 'raced-' . getmypid();
$children = [];
for ($worker = 0; $worker < 8; $worker++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $breaker = new CircuitBreaker($raced, configuration(minimum: 20), new RedisStorage(redis_env('CB_REDIS_DSN'), timeout: 1.0), new FileListener($log));
        for ($i = 0; $i < 50; $i++) {
            $breaker->registerFailure();
        }
        exit(0);
    }
    $children[] = $pid;
}
foreach ($children as $pid) {
    pcntl_waitpid($pid, $status);
}
echo implode(' ', array_map('trim', file($log))), "\n";
unlink($log);
?>
--EXPECT--
7999 failures: closed
8000 failures: open
CircuitOpened CircuitOpened
