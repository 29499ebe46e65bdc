--TEST--
Forked processes racing on one shared circuit: each transition is emitted once, by the process that made it
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) die('skip pcntl needed'); ?>
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

/** Appends each event to a file shared by the processes. */
final class FileListener implements EventListenerInterface
{
    public function __construct(private string $file) {}

    public function handleEvent(EventInterface $event): void
    {
        file_put_contents($this->file, (new ReflectionClass($event))->getShortName() . ' ' . getmypid() . "\n", FILE_APPEND | LOCK_EX);
    }
}

$log = tempnam(sys_get_temp_dir(), 'events');
$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 20)],
    openDuration: 10,
    halfOpenPolicy: new PermittedCallsPolicy(maxDuration: 30, permittedCalls: 3),
);
$clock = new MockClock(1_764_000_000.0);

function race(callable $work): void
{
    $children = [];
    for ($worker = 0; $worker < 8; $worker++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $work();
            exit(0);
        }
        $children[] = $pid;
    }
    foreach ($children as $pid) {
        pcntl_waitpid($pid, $status);
    }
}

function counts(string $log): array
{
    $counts = [];
    foreach (file($log, FILE_IGNORE_NEW_LINES) as $line) {
        $name = explode(' ', $line)[0];
        $counts[$name] = ($counts[$name] ?? 0) + 1;
    }
    ksort($counts);
    return $counts;
}

$breaker = new CircuitBreaker('raced', $configuration, new SharedMemoryStorage(), new FileListener($log), $clock);
race(function () use ($breaker) {
    for ($i = 0; $i < 200; $i++) {
        $breaker->registerFailure();
    }
});
echo json_encode(counts($log)), "\n";

$clock->sleep(10); // the children forked now share this clock's time
$permits = tempnam(sys_get_temp_dir(), 'permits');
race(function () use ($breaker, $permits) {
    for ($i = 0; $i < 50; $i++) {
        if ($breaker->acquirePermission()) {
            file_put_contents($permits, "permitted\n", FILE_APPEND | LOCK_EX);
            $breaker->registerSuccess();
        }
    }
});
$counts = counts($log);
echo "CircuitOpened ", $counts['CircuitOpened'], ", CircuitHalfOpened ", $counts['CircuitHalfOpened'], ", CircuitClosed ", $counts['CircuitClosed'], "\n";
echo "permitted calls while half-open: at least ", min(3, count(file($permits))), "\n";
echo $breaker->getState()->value, "\n";
unlink($log);
unlink($permits);
?>
--EXPECT--
{"CircuitOpened":1}
CircuitOpened 1, CircuitHalfOpened 1, CircuitClosed 1
permitted calls while half-open: at least 3
closed
