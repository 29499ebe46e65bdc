<?php
// Rejected calls on an open circuit in MemcachedStorage: bench/run.sh runs
// this under valgrind with two counts of calls, and the difference of the
// heap allocations it reports, over the difference of calls, is the
// allocations of one rejected call.
// Usage: php -d extension=... bench/memcached-rejected.php HOST:PORT CALLS

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

[, $server, $calls] = $argv;
// Open for an hour, so that a slow run (under valgrind) stays open; a
// timeout of 5 s, so that valgrind's slowness is no storage failure.
$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 10)],
    openDuration: 3600,
    halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
);
$breaker = new CircuitBreaker('rejected-' . getmypid(), $configuration, new MemcachedStorage($server, 'bench:', 5.0));
for ($i = 0; $i < 10; $i++) {
    $breaker->registerFailure();
}
if ($breaker->acquirePermission()) {
    fwrite(STDERR, "the circuit did not open\n");
    exit(1);
}
for ($i = 0; $i < (int) $calls; $i++) {
    $breaker->acquirePermission();
}
