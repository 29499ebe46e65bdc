<?php
// What constructing the objects costs next to a call of a breaker that is
// reused: a call is acquirePermission() + registerSuccess(), and each row
// builds more per call (the breaker, then the configuration too, then the
// storage too). Every row is measured in the same run, interleaved, best of
// several rounds, and shown as a ratio to the reused breaker's call.
// Usage: php -n -d extension=build/circuit_breaker.so bench/construction.php [iterations] [shm|memory]

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$iterations = (int) ($argv[1] ?? 200_000);
$storageKind = $argv[2] ?? 'shm';
$newStorage = match ($storageKind) {
    'shm' => fn () => new SharedMemoryStorage('bench:'),
    'memory' => fn () => new InMemoryStorage(),
    default => throw new InvalidArgumentException("storage: shm or memory, not $storageKind"),
};
// The configuration of the README's usage example.
$newConfiguration = fn () => new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 10)],
    openDuration: 10,
    halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
);

$storage = $newStorage();
$configuration = $newConfiguration();
$breaker = new CircuitBreaker('payments', $configuration, $storage);

$cases = [
    'reused breaker: a call' => function (int $n) use ($breaker) {
        for ($i = 0; $i < $n; $i++) {
            $breaker->acquirePermission();
            $breaker->registerSuccess();
        }
    },
    'new CircuitBreaker + a call' => function (int $n) use ($configuration, $storage) {
        for ($i = 0; $i < $n; $i++) {
            $breaker = new CircuitBreaker('payments', $configuration, $storage);
            $breaker->acquirePermission();
            $breaker->registerSuccess();
        }
    },
    'new Configuration + new CircuitBreaker + a call' => function (int $n) use ($newConfiguration, $storage) {
        for ($i = 0; $i < $n; $i++) {
            $breaker = new CircuitBreaker('payments', $newConfiguration(), $storage);
            $breaker->acquirePermission();
            $breaker->registerSuccess();
        }
    },
    'new storage + Configuration + CircuitBreaker + a call' => function (int $n) use ($newConfiguration, $newStorage) {
        for ($i = 0; $i < $n; $i++) {
            $breaker = new CircuitBreaker('payments', $newConfiguration(), $newStorage());
            $breaker->acquirePermission();
            $breaker->registerSuccess();
        }
    },
    'new Configuration alone' => function (int $n) use ($newConfiguration) {
        for ($i = 0; $i < $n; $i++) {
            $newConfiguration();
        }
    },
];

$best = array_fill_keys(array_keys($cases), INF);
for ($round = 0; $round < 7; $round++) {
    foreach ($cases as $name => $body) {
        $start = hrtime(true);
        $body($iterations);
        $best[$name] = min($best[$name], (hrtime(true) - $start) / $iterations);
    }
}

$reused = $best['reused breaker: a call'];
printf("PHP %s, %s, %s storage, %d iterations, best of 7 rounds\n", PHP_VERSION, php_uname('m'), $storageKind, $iterations);
printf("%-55s %8s %8s\n", 'per operation', 'ns', 'x call');
foreach ($best as $name => $ns) {
    printf("%-55s %8.0f %8.1f\n", $name, $ns, $ns / $reused);
}
