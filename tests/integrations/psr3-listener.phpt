--TEST--
PSR-3 listener with psr/log's TestLogger: opened at warning, half-open at info, closed at notice, forced open at warning, reset at notice, a failing storage at error; rejections never one by one: counted, logged at most once per interval of the breaker's clock and given with the next transition
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
error_reporting=E_ALL & ~E_DEPRECATED
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
require_once '/usr/share/php/Psr/Log/Test/TestLogger.php';

use Psr\Log\Test\TestLogger;
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Integration\Log\LoggingEventListener;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;

$logger = new TestLogger();
$show = function () use ($logger) {
    foreach ($logger->records as $record) {
        $context = array_diff_key($record['context'], ['exception' => 1]);
        echo str_pad($record['level'], 9), $record['message'], '  ', json_encode($context), isset($record['context']['exception']) ? ' +exception ' . get_class($record['context']['exception']) : '', "\n";
    }
    $logger->reset();
};
$clock = new MockClock(1_000_000);
$breaker = new CircuitBreaker('payments', test_configuration(3, 120), new InMemoryStorage($clock), new LoggingEventListener($logger, 60), $clock);

for ($i = 0; $i < 3; $i++) {
    $breaker->acquirePermission();
    $breaker->registerFailure(0.01);
}
for ($i = 0; $i < 20; $i++) {        // 20 rejections over 19 s: no line
    $breaker->acquirePermission();
    $clock->sleep(1);
}
echo "-- opened, 20 rejections in 19 s\n";
$show();
$clock->sleep(41);                     // still open (120 s), 61 s after the first rejection
$breaker->acquirePermission();
echo "-- one more rejection, past the interval\n";
$show();
$breaker->forceOpen(100);
for ($i = 0; $i < 3; $i++) {
    $breaker->acquirePermission();
}
$breaker->forceClosed(5);
$breaker->reset();
echo "-- forced open, 3 rejections, forced closed, reset\n";
$show();
for ($i = 0; $i < 3; $i++) {
    $breaker->acquirePermission();
    $breaker->registerFailure();
}
$breaker->acquirePermission();
$clock->sleep(120);
$breaker->acquirePermission();
$breaker->registerFailure();
$clock->sleep(120);
$breaker->acquirePermission();
$breaker->registerSuccess();
echo "-- open again, a rejection, half-open, a trial that fails, half-open, a trial that succeeds\n";
$show();

final class Down implements KeyValueStoreInterface
{
    public function increment(string $key, int $ttl): int { throw new RuntimeException('connection refused'); }
    public function getMultiple(array $keys): array { throw new RuntimeException('connection refused'); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { throw new RuntimeException('connection refused'); }
}
$ledger = new CircuitBreaker('ledger', test_configuration(), new Down(), new LoggingEventListener($logger, null, ['storage_failed' => 'critical']));
$ledger->acquirePermission();
echo "-- a storage that fails (its level overridden)\n";
$show();
try {
    new LoggingEventListener($logger, 60, ['typo' => 'info']);
} catch (InvalidArgumentException $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECTF--
-- opened, 20 rejections in 19 s
warning  Circuit breaker 'payments' opened: 3 of 3 calls matched its ConsecutiveFailuresRule; open for 120 s  {"service":"payments","event":"CircuitOpened","previous_state":"closed","open_duration":120,"rule":"ConsecutiveFailuresRule","matching":3,"evaluated":3}
-- one more rejection, past the interval
notice   Circuit breaker 'payments' rejected 21 calls in the last 61 s  {"service":"payments","event":"CallRejected","rejected":21,"seconds":61}
-- forced open, 3 rejections, forced closed, reset
warning  Circuit breaker 'payments' forced open for 100 s  {"service":"payments","event":"CircuitForced","state":"open","duration":100}
notice   Circuit breaker 'payments' forced closed for 5 s; 3 calls were rejected  {"service":"payments","event":"CircuitForced","state":"closed","duration":5,"rejected":3}
notice   Circuit breaker 'payments' was reset: closed  {"service":"payments","event":"CircuitReset"}
-- open again, a rejection, half-open, a trial that fails, half-open, a trial that succeeds
warning  Circuit breaker 'payments' opened: 3 of 3 calls matched its ConsecutiveFailuresRule; open for 120 s  {"service":"payments","event":"CircuitOpened","previous_state":"closed","open_duration":120,"rule":"ConsecutiveFailuresRule","matching":3,"evaluated":3}
info     Circuit breaker 'payments' is half-open: trial calls go through; 1 call was rejected  {"service":"payments","event":"CircuitHalfOpened","rejected":1}
warning  Circuit breaker 'payments' opened again, its trial failed: 1 of 1 calls matched its ConsecutiveFailuresRule; open for 120 s  {"service":"payments","event":"CircuitOpened","previous_state":"half_open","open_duration":120,"rule":"ConsecutiveFailuresRule","matching":1,"evaluated":1}
info     Circuit breaker 'payments' is half-open: trial calls go through  {"service":"payments","event":"CircuitHalfOpened"}
notice   Circuit breaker 'payments' closed  {"service":"payments","event":"CircuitClosed"}
-- a storage that fails (its level overridden)
critical The storage of circuit breaker 'ledger' failed, its calls go through (fail open): getMultiple() threw RuntimeException: connection refused  {"service":"ledger","event":"StorageFailed"} +exception Zeusi\CircuitBreaker\Exception\StorageException
unknown event in the levels: typo
