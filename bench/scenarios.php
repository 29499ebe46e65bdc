<?php
// The scenarios of issue 13, each a function running `$n` iterations; shared
// by bench/protected-call.php (timings) and bench/callgrind.sh (instruction
// counts, `php bench/scenarios.php NAME N`). With CB_BENCH_REDIS (host:port),
// the `fleet` scenario too (the protected call on FleetStorage, issue 12),
// and `redis` and `redis-rejected` (RedisStorage permitted and rejected calls,
// issue 22); with CB_BENCH_MEMCACHED (host:port), the `memcached` one (issue 22).
// `per-request-userland` is the floor of `per-request`: the same code on the
// PHP classes of bench/userland-floor.php, which do nothing.

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;
use Bench\Userland as Floor;

require_once __DIR__ . '/userland-floor.php';

/** An open duration no run of the bench outlasts, in seconds. */
const OPEN_FOR_THE_RUN = 86_400;

function bench_configuration(int $window = 60, ?int $maxConcurrentCalls = null, int $openDuration = 10): Configuration
{
    return new Configuration(
        timeWindow: $window,
        openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 10)],
        openDuration: $openDuration,
        halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
        maxConcurrentCalls: $maxConcurrentCalls,
    );
}

final class BenchListener implements Zeusi\CircuitBreaker\Event\EventListenerInterface
{
    public int $events = 0;
    public function handleEvent(Zeusi\CircuitBreaker\Event\EventInterface $event): void
    {
        $this->events++;
    }
}

/** @return array<string, Closure(int): void> */
function bench_scenarios(): array
{
    $reused = new CircuitBreaker('reused', bench_configuration(), new SharedMemoryStorage('bench:'));
    // The reused call with a bulkhead (issue 21): a permit taken and given back.
    $bulkheaded = new CircuitBreaker('bulkheaded', bench_configuration(maxConcurrentCalls: 16), new SharedMemoryStorage('bench:'));
    $listened = new CircuitBreaker('listened', bench_configuration(), new SharedMemoryStorage('bench:'), new BenchListener());
    // Open for longer than any run of the bench: a half-open circuit would
    // permit some of the calls measured as rejected.
    $open = new CircuitBreaker('open', bench_configuration(openDuration: OPEN_FOR_THE_RUN), new SharedMemoryStorage('bench:'));
    for ($i = 0; $i < 10; $i++) {
        $open->registerFailure();
    }
    $many = [];
    $storage = new SharedMemoryStorage('many:');
    $configuration = bench_configuration();
    for ($i = 0; $i < 5000; $i++) {
        $many[] = new CircuitBreaker("https://api.example.com/service/number-$i", $configuration, $storage);
    }
    $one = new CircuitBreaker('https://api.example.com/service/number-x', $configuration, $storage);
    $redis = getenv('CB_BENCH_REDIS');
    $remote = $redis !== false && class_exists(FleetStorage::class)
        ? [
            'fleet' => bench_protected_calls(new CircuitBreaker('fleet', bench_configuration(), new FleetStorage(new RedisStorage("redis://$redis", 'bench-fleet:')))),
            // Issue 22: the client side of a permitted RedisStorage call (2 round trips).
            'redis' => bench_protected_calls(new CircuitBreaker('redis', bench_configuration(), new RedisStorage("redis://$redis", 'bench-redis:', 1.0))),
            // And of a call it rejects while open (no round trip).
            'redis-rejected' => bench_rejected_calls(new CircuitBreaker('redis-open', bench_configuration(openDuration: OPEN_FOR_THE_RUN), new RedisStorage("redis://$redis", 'bench-redis:', 1.0))),
        ]
        : [];
    $memcached = getenv('CB_BENCH_MEMCACHED');
    if ($memcached !== false) {
        // Issue 22: the client side of a permitted MemcachedStorage call (2 round trips).
        $remote['memcached'] = bench_protected_calls(new CircuitBreaker('memcached', bench_configuration(), new MemcachedStorage($memcached, 'bench-memcached:', 1.0)));
        // The 30 s window of the figure issue 22 started from (193 819 instructions).
        $remote['memcached-30s'] = bench_protected_calls(new CircuitBreaker('memcached-30s', bench_configuration(30), new MemcachedStorage($memcached, 'bench-memcached:', 1.0)));
    }
    return [
        // The floor: two calls of the cheapest method of an ext-php-rs
        // class without arguments (it returns a field, a short string).
        'floor' => function (int $n) use ($reused) {
            for ($i = 0; $i < $n; $i++) {
                $reused->getService();
                $reused->getService();
            }
        },
        'reused' => bench_protected_calls($reused),
        'bulkhead' => bench_protected_calls($bulkheaded),
        'rejected' => function (int $n) use ($open) {
            for ($i = 0; $i < $n; $i++) {
                $open->acquirePermission();
            }
        },
        'per-request' => function (int $n) {
            for ($i = 0; $i < $n; $i++) {
                $configuration = new Configuration(
                    timeWindow: 60,
                    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 10)],
                    openDuration: 10,
                    halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
                );
                $breaker = new CircuitBreaker('per-request', $configuration, new SharedMemoryStorage('bench:'));
                if ($breaker->acquirePermission()) {
                    $breaker->registerSuccess();
                }
            }
        },
        // The same, on classes written in PHP that do nothing: what PHP
        // spends on the seed's usage itself. Written out again rather than
        // shared with `per-request`: a class named by a variable is looked
        // up on every `new`, which neither loop does.
        'per-request-userland' => function (int $n) {
            for ($i = 0; $i < $n; $i++) {
                $configuration = new Floor\Configuration(
                    timeWindow: 60,
                    openingRules: [new Floor\FailureRateRule(threshold: 50, minimumRequests: 10)],
                    openDuration: 10,
                    halfOpenPolicy: Floor\RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
                );
                $breaker = new Floor\CircuitBreaker('per-request', $configuration, new Floor\SharedMemoryStorage('bench:'));
                if ($breaker->acquirePermission()) {
                    $breaker->registerSuccess();
                }
            }
        },
        // The same loop as over many, over a list of one.
        'one-service' => function (int $n) use ($one) {
            $many = [$one];
            $count = count($many);
            for ($i = 0; $i < $n; $i++) {
                $breaker = $many[$i % $count];
                if ($breaker->acquirePermission()) {
                    $breaker->registerSuccess();
                }
            }
        },
        'many-services' => function (int $n) use ($many) {
            $count = count($many);
            for ($i = 0; $i < $n; $i++) {
                $breaker = $many[$i % $count];
                if ($breaker->acquirePermission()) {
                    $breaker->registerSuccess();
                }
            }
        },
        'listener' => bench_protected_calls($listened),
    ] + $remote;
}

/** @return Closure(int): void $n protected calls of $breaker */
/** The calls of an open breaker (opened here, by 10 failures): each rejected. */
function bench_rejected_calls(CircuitBreaker $breaker): Closure
{
    for ($i = 0; $i < 10; $i++) {
        $breaker->registerFailure();
    }
    return function (int $n) use ($breaker) {
        for ($i = 0; $i < $n; $i++) {
            if ($breaker->acquirePermission()) {
                throw new LogicException('the open breaker permitted a call');
            }
        }
    };
}

function bench_protected_calls(CircuitBreaker $breaker): Closure
{
    return function (int $n) use ($breaker) {
        for ($i = 0; $i < $n; $i++) {
            if ($breaker->acquirePermission()) {
                $breaker->registerSuccess();
            }
        }
    };
}

if (realpath($_SERVER['SCRIPT_FILENAME']) === __FILE__) {
    $scenarios = bench_scenarios();
    $name = $argv[1] ?? 'reused';
    if (!isset($scenarios[$name])) {
        fwrite(STDERR, "scenario: one of " . implode(', ', array_keys($scenarios)) . " (fleet, redis: with CB_BENCH_REDIS; memcached: with CB_BENCH_MEMCACHED), not '$name'\n");
        exit(2);
    }
    $scenarios[$name]((int) ($argv[2] ?? 1000));
}
