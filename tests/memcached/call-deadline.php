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
$other = new CircuitBreaker("$service-other", configuration(), $slowStorage);
$worst = 0.0;

function measure(string $name, callable $call): void
{
    global $listener, $other, $worst;
    // Past the backoff a failed call leaves, and one call that succeeds
    // (one round trip): the measured call finds its connection usable.
    usleep(150_000);
    $other->acquirePermission();
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
    printf("%-45s %-25s %5.1f ms = %.2fx the timeout: %s\n", $name, $how, $ms, $ms / TIMEOUT_MS, $ms < 2 * TIMEOUT_MS ? 'within 2x' : 'OVER 2x');
}

measure('acquirePermission, closed', fn () => $slow->acquirePermission());
measure('registerFailure, closed (a new bucket)', fn () => $slow->registerFailure());
repeat(4, fn () => $fast->registerFailure());
$fast->acquirePermission();
measure('getState, open', fn () => $slow->getState());
usleep(1_050_000);
measure('acquirePermission, due to half-open', fn () => $slow->acquirePermission());
$fast->acquirePermission();
measure('registerSuccess, half-open, closing', fn () => $slow->registerSuccess());
$fast->registerSuccess();
repeat(3, fn () => $fast->registerFailure());
measure('registerFailure, reaching the threshold', fn () => $slow->registerFailure());
printf("slowest call: %.2fx the timeout\n", $worst / TIMEOUT_MS);
?>
