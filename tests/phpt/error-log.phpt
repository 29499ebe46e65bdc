--TEST--
A breaker that is not protecting says so in PHP's error log, once per worker per storage per circuit_breaker.log_interval (default 60 s, 0 turns it off): when its storage starts failing (calls fail open), when it works again, and when a listener throws (the exception still swallowed); nothing is logged while all works
--FILE--
<?php
require __DIR__ . '/subprocess.inc';

$child = tempnam(sys_get_temp_dir(), 'cb-log') . '.php';
file_put_contents($child, <<<'PHP'
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

/** Keys in an array; every call throws while $down. */
final class FlakyStorage implements StorageInterface
{
    public bool $down = false;
    private array $entries = [];

    private function check(): void
    {
        if ($this->down) {
            throw new RuntimeException('the store is down');
        }
    }

    public function increment(string $key, int $ttl): int
    {
        $this->check();
        return $this->entries[$key] = (int) ($this->entries[$key] ?? 0) + 1;
    }

    public function getMultiple(array $keys): array
    {
        $this->check();
        return array_intersect_key($this->entries, array_flip($keys));
    }

    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        $this->check();
        if (($this->entries[$key] ?? null) !== $expected) {
            return false;
        }
        $this->entries[$key] = $value;
        return true;
    }
}

final class ThrowingListener implements Zeusi\CircuitBreaker\Event\EventListenerInterface
{
    public function handleEvent(Zeusi\CircuitBreaker\Event\EventInterface $event): void
    {
        throw new LogicException('a bug in the listener');
    }
}

$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule(1000)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$storage = new FlakyStorage();
$breaker = new CircuitBreaker('payments', $configuration, $storage);
$call = function () use ($breaker) {
    if ($breaker->acquirePermission()) {
        $breaker->registerSuccess();
    }
};
for ($i = 0; $i < 5; $i++) $call();
$storage->down = true;
for ($i = 0; $i < 10; $i++) $call();
$storage->down = false;
for ($i = 0; $i < 5; $i++) $call();
// Down again within the interval: not said again.
$storage->down = true;
for ($i = 0; $i < 10; $i++) $call();
$storage->down = false;
$call();
// A listener that throws, three times: the calls go on.
$listened = new CircuitBreaker('orders', $configuration, new FlakyStorage(), new ThrowingListener());
for ($i = 0; $i < 3; $i++) {
    $listened->forceOpen(1);
    $listened->reset();
}
echo "done\n";
PHP);

foreach (['' => 'default interval', '0' => 'circuit_breaker.log_interval=0'] as $interval => $label) {
    $log = tempnam(sys_get_temp_dir(), 'cb-log');
    $settings = ['-d', 'log_errors=1', '-d', "error_log=$log"];
    if ($interval !== '') {
        array_push($settings, '-d', "circuit_breaker.log_interval=$interval");
    }
    $process = proc_open([PHP_BINARY, '-n', '-d', 'extension=' . loaded_extension(), ...$settings, $child], [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes);
    $output = stream_get_contents($pipes[1]);
    fclose($pipes[1]);
    proc_close($process);
    echo "$label: ", trim($output), "\n";
    foreach (file($log, FILE_IGNORE_NEW_LINES) as $line) {
        echo '  ', preg_replace('/^\[[^]]*\] /', '', $line), "\n";
    }
    unlink($log);
}
unlink($child);
?>
--EXPECT--
default interval: done
  circuit_breaker: FlakyStorage failed, its calls fail open (the breaker does not protect): getMultiple() threw RuntimeException: the store is down
  circuit_breaker: FlakyStorage works again
  circuit_breaker: the event listener of 'orders' threw LogicException: a bug in the listener (ignored: events never fail a call)
circuit_breaker.log_interval=0: done
