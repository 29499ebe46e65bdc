--TEST--
MemcachedStorage: the timeout bounds a whole call, all its round trips together (connecting included), transitions too; past it the call fails open with a timeout
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED_SLOW')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

// Every reply of the slow server (a proxy in front of the fast one) comes
// 45 ms late: one round trip fits in the 50 ms timeout, two do not. Each
// call must return within twice the timeout: the margin covers a loaded
// machine, and a call that made its round trips one after the other, each
// with a timeout of its own, took 4 to 5 times the timeout.
const TIMEOUT_MS = 50;
$service = 'deadline-' . getmypid();
$prefix = 'deadline:';
$slowStorage = new MemcachedStorage(memcached_env('CB_MEMCACHED_SLOW'), $prefix, TIMEOUT_MS / 1000);
$fastStorage = new MemcachedStorage(memcached_env('CB_MEMCACHED'), $prefix, 1.0);
$listener = new RecordingListener();
$slow = new CircuitBreaker($service, configuration(openDuration: 1), $slowStorage, $listener);
$fast = new CircuitBreaker($service, configuration(openDuration: 1), $fastStorage);
$otherListener = new RecordingListener();
$other = new CircuitBreaker("$service-other", configuration(), $slowStorage, $otherListener);
$worst = 0.0;

function measure(string $name, callable $call): void
{
    global $listener, $other, $otherListener, $worst;
    // Past the backoff a failed call leaves, one call that succeeds (one
    // round trip; retried, as a loaded machine may make it time out): the
    // measured call finds its connection usable.
    for ($attempt = 0; $attempt < 40; $attempt++) {
        usleep(150_000);
        $otherListener->events = [];
        $other->acquirePermission();
        if (storage_failures($otherListener) === []) {
            break;
        }
    }
    $listener->events = [];
    $started = hrtime(true);
    try {
        $result = $call();
    } catch (StorageException $e) {
        $result = 'StorageException';
    }
    $ms = (hrtime(true) - $started) / 1e6;
    $worst = max($worst, $ms);
    $failures = storage_failures($listener);
    $how = match (true) {
        $failures === [] => 'completed',
        str_contains($failures[0], 'timed out') => 'failed open: timed out',
        default => 'failed open: ' . $failures[0],
    };
    // A call that failed without waiting (backing off) would prove nothing.
    $reached = in_array($how, ['completed', 'failed open: timed out'], true);
    printf(
        "%-45s %s, %s (%s, %.1f ms = %.2fx the timeout)\n",
        $name,
        $reached ? 'reached the slow server' : 'did not reach the slow server',
        $ms < 2 * TIMEOUT_MS ? 'within 2x' : 'OVER 2x',
        $how,
        $ms,
        $ms / TIMEOUT_MS,
    );
}

measure('acquirePermission, closed', fn () => $slow->acquirePermission());
measure('registerFailure, closed (a new bucket)', fn () => $slow->registerFailure());
repeat(4, fn () => $fast->registerFailure());
$fast->acquirePermission();
measure('getState, open', fn () => $slow->getState());
// The shortest open duration there is, 1 s, ends: its end on the clock
// (openDuration is 1 s at the least, so this waits on time).
time_sleep_until((float) $fast->getStatus()->until->format('U.u') + 0.01);
measure('acquirePermission, due to half-open', fn () => $slow->acquirePermission());
$fast->acquirePermission();
measure('registerSuccess, half-open, closing', fn () => $slow->registerSuccess());
$fast->registerSuccess();
repeat(3, fn () => $fast->registerFailure());
measure('registerFailure, reaching the threshold', fn () => $slow->registerFailure());
printf("slowest call: %.2fx the timeout\n", $worst / TIMEOUT_MS);
?>
--EXPECTF--
acquirePermission, closed %s reached the slow server, within 2x (%s)
registerFailure, closed (a new bucket) %s reached the slow server, within 2x (%s)
getState, open %s reached the slow server, within 2x (%s)
acquirePermission, due to half-open %s reached the slow server, within 2x (%s)
registerSuccess, half-open, closing %s reached the slow server, within 2x (%s)
registerFailure, reaching the threshold %s reached the slow server, within 2x (%s)
slowest call: %fx the timeout
