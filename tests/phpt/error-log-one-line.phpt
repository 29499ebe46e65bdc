--TEST--
One failure is one line of PHP's error log: line breaks and other control characters of a storage's or a listener's message (a server's reply, a stored value, an exception's text) are escaped, so a log reader or shipper never sees a forged line
--FILE--
<?php
require __DIR__ . '/subprocess.inc';

$child = tempnam(sys_get_temp_dir(), 'cb-log') . '.php';
file_put_contents($child, <<<'PHP'
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

/** Every call throws, with a message of several lines. */
final class BrokenStorage implements StorageInterface
{
    public function increment(string $key, int $ttl): int
    {
        throw new RuntimeException("first line\n[01-Jan-2026 00:00:00 UTC] PHP Warning:  forged\r\nend\x07");
    }

    public function getMultiple(array $keys): array
    {
        throw new RuntimeException("first line\n[01-Jan-2026 00:00:00 UTC] PHP Warning:  forged\r\nend\x07");
    }

    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        throw new RuntimeException("first line\nforged");
    }
}

final class ThrowingListener implements Zeusi\CircuitBreaker\Event\EventListenerInterface
{
    public function handleEvent(Zeusi\CircuitBreaker\Event\EventInterface $event): void
    {
        throw new LogicException("a bug\nin the listener");
    }
}

$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule(1000)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = new CircuitBreaker('payments', $configuration, new BrokenStorage(), new ThrowingListener());
if ($breaker->acquirePermission()) {
    $breaker->registerSuccess();
}
echo "done\n";
PHP);

$log = tempnam(sys_get_temp_dir(), 'cb-log');
$process = proc_open([PHP_BINARY, '-n', '-d', 'extension=' . loaded_extension(), '-d', 'log_errors=1', '-d', "error_log=$log", $child], [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes);
$output = stream_get_contents($pipes[1]);
fclose($pipes[1]);
proc_close($process);
echo trim($output), "\n";
foreach (file($log, FILE_IGNORE_NEW_LINES) as $line) {
    echo preg_match('/^\[[^]]*\] /', $line) ? '' : 'NOT A LOG LINE: ', preg_replace('/^\[[^]]*\] /', '', $line), "\n";
}
unlink($log);
unlink($child);
?>
--EXPECT--
done
circuit_breaker: BrokenStorage failed, its calls fail open (the breaker does not protect): getMultiple() threw RuntimeException: first line\n[01-Jan-2026 00:00:00 UTC] PHP Warning:  forged\r\nend\x07
circuit_breaker: the event listener of 'payments' threw LogicException: a bug\nin the listener (ignored: events never fail a call)
