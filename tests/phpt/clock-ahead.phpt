--TEST--
A state written by a clock ahead is bounded by the reader's clock: an open state lasts at most its open duration (at its backoff level) from the reader's now, a forced one at most 30 days; clamped once, by one process, and logged once
--INI--
circuit_breaker.log_interval=60
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

final class ArrayStore implements KeyValueStoreInterface
{
    public array $entries = [];
    public function increment(string $key, int $ttl): int { return $this->entries[$key] = (int) ($this->entries[$key] ?? 0) + 1; }
    public function getMultiple(array $keys): array { return array_intersect_key($this->entries, array_flip($keys)); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        if ((isset($this->entries[$key]) ? (string) $this->entries[$key] : null) !== $expected) {
            return false;
        }
        $this->entries[$key] = $value;
        return true;
    }
}

$log = tempnam(sys_get_temp_dir(), 'cb-clock');
ini_set('error_log', $log);
$configuration = new Configuration(60, [new ConsecutiveFailuresRule(2)], 5, PermittedCallsPolicy::createSingleTrial(30));
$now = 1800000000;
$storages = [
    'shared memory' => new SharedMemoryStorage('clock-ahead:'),
    'in memory' => new InMemoryStorage(),
    'key-value store' => new ArrayStore(),
];
foreach ($storages as $name => $storage) {
    echo "-- $name\n";
    // Server B's clock runs an hour ahead: it opens the circuit for 5 s.
    $ahead = new Zeusi\CircuitBreaker\CircuitBreaker('svc', $configuration, $storage, null, new MockClock($now + 3600));
    $ahead->registerFailure();
    $ahead->registerFailure();
    $clock = new MockClock($now);
    $listener = new RecordingListener();
    $here = new CircuitBreaker('svc', $configuration, $storage, $listener, $clock);
    $other = new CircuitBreaker('svc', $configuration, $storage, null, $clock);
    var_dump($here->acquirePermission(), $other->acquirePermission());
    $status = $here->getStatus();
    echo "open for at most ", $status->remaining, " s more, until +", $status->until->getTimestamp() - $now, " s\n";
    $clock->sleep(5);
    var_dump($here->acquirePermission());
    echo $here->getState()->name, ': ', implode(', ', $listener->names()), "\n";
    $here->reset();

    // A forced state ending ten years from now, written by a clock ten years ahead.
    $far = new CircuitBreaker('svc', $configuration, $storage, null, new MockClock($now + 10 * 365 * 86400));
    $far->forceOpen(2592000);
    var_dump($here->acquirePermission());
    $status = $here->getStatus();
    echo "forced open for ", $status->remaining / 86400, " days\n";
    $clock->sleep(30 * 86400);
    echo $here->getState()->name, "\n";
    $here->reset();
}
$lines = file($log, FILE_IGNORE_NEW_LINES);
echo count($lines), " lines in the error log\n";
echo preg_replace('/^\[[^]]*\] /', '', $lines[0]), "\n";
echo preg_replace('/^\[[^]]*\] /', '', $lines[1]), "\n";
unlink($log);
?>
--EXPECTF--
-- shared memory
bool(false)
bool(false)
open for at most 5 s more, until +5 s
bool(true)
HalfOpen: CircuitHalfOpened
bool(false)
forced open for 30 days
Closed
-- in memory
bool(false)
bool(false)
open for at most 5 s more, until +5 s
bool(true)
HalfOpen: CircuitHalfOpened
bool(false)
forced open for 30 days
Closed
-- key-value store
bool(false)
bool(false)
open for at most 5 s more, until +5 s
bool(true)
HalfOpen: CircuitHalfOpened
bool(false)
forced open for 30 days
Closed
6 lines in the error log
circuit_breaker: the state of circuit 'svc' was written by a clock 3600 s ahead of this server's: it now ends at most its duration from this server's time (check the clocks of the servers sharing the storage)
%s
