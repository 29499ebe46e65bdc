--TEST--
RedisStorage: a server sending replies no Redis sends (a bulk of 4 GiB, a line or an array that never ends, arrays nested 100 000 deep, a line of no RESP type, a bulk longer than announced) costs a call a typed StorageFailed and fails it open within the deadline: no panic, the worker's peak memory barely moves, nothing of the data is quoted
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

/** The process's resident memory now (VmRSS) or at its peak (VmHWM), in MB. */
function memory_mb(string $which): float
{
    preg_match("/^$which:\\s+(\\d+) kB/m", file_get_contents('/proc/self/status'), $match);
    return $match[1] / 1024;
}

/** The process's resident memory now, its peak starting over from it (Linux 4.0 and later). */
function reset_peak_mb(): float
{
    file_put_contents('/proc/self/clear_refs', '5');
    return memory_mb('VmRSS');
}

foreach (['endless-bulk', 'endless-line', 'endless-array', 'deep', 'garbage', 'long-bulk'] as $mode) {
    $server = proc_open([PHP_BINARY, '-n', __DIR__ . '/../integration/redis-hostile-server.php', $mode], [1 => ['pipe', 'w']], $pipes);
    $port = trim(fgets($pipes[1]));
    echo "a server sending $mode:\n";
    $listener = new RecordingListener();
    $breaker = new CircuitBreaker('payments', configuration(), new RedisStorage("redis://127.0.0.1:$port", 'hostile:', 1.0), $listener);
    $before = reset_peak_mb();
    $started = hrtime(true);
    $permitted = $breaker->acquirePermission();
    $elapsed = (hrtime(true) - $started) / 1e9;
    echo '  permitted: ', var_export($permitted, true), ', within the deadline: ', var_export($elapsed < 1.2, true),
        ', peak memory up by less than 16 MB: ', var_export(memory_mb('VmHWM') - $before < 16, true), "\n";
    foreach (storage_failures($listener) as $event) {
        $failure = get_class($event->exception) . ": " . $event->exception->getMessage();
        echo '  StorageFailed quotes no data: ', var_export(!str_contains($failure, 'xxxx'), true), "\n";
        echo '  ', preg_replace(['/127\.0\.0\.1:\d+/', '/\b\d+\b/'], ['ADDRESS', 'N'], $failure), "\n";
    }
    proc_terminate($server);
    proc_close($server);
}
?>
--EXPECT--
a server sending endless-bulk:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
  StorageFailed quotes no data: true
  Zeusi\CircuitBreaker\Exception\StorageException: Redis holds data that is not a circuit's (a key of the wrong type, or a counter that holds no number), which could not be removed: Redis repair failed: reply too large - Client: the replies took more than N bytes
a server sending endless-line:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
  StorageFailed quotes no data: true
  Zeusi\CircuitBreaker\Exception\StorageException: Redis holds data that is not a circuit's (a key of the wrong type, or a counter that holds no number), which could not be removed: Redis repair failed: reply too large - Client: the replies took more than N bytes
a server sending endless-array:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
  StorageFailed quotes no data: true
  Zeusi\CircuitBreaker\Exception\StorageException: Redis holds data that is not a circuit's (a key of the wrong type, or a counter that holds no number), which could not be removed: Redis repair failed: reply too large - Client: the replies took more than N bytes
a server sending deep:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
  StorageFailed quotes no data: true
  Zeusi\CircuitBreaker\Exception\StorageException: Redis HGET failed: invalid RESP reply - Parse: arrays nested too deep
a server sending garbage:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
  StorageFailed quotes no data: true
  Zeusi\CircuitBreaker\Exception\StorageException: Redis HGET failed: invalid RESP reply - Parse: not a RESP2 reply
a server sending long-bulk:
  permitted: true, within the deadline: true, peak memory up by less than 16 MB: true
  StorageFailed quotes no data: true
  Zeusi\CircuitBreaker\Exception\StorageException: Redis HGET failed: invalid RESP reply - Parse: a bulk string longer than announced
