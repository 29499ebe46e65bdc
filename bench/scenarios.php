<?php
// The scenarios of issue 13, each a function running `$n` iterations; shared
// by bench/protected-call.php (timings) and bench/callgrind.sh (instruction
// counts, `php bench/scenarios.php NAME N`).

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

function bench_configuration(int $window = 60): Configuration
{
    return new Configuration(
        timeWindow: $window,
        openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 10)],
        openDuration: 10,
        halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
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
    $listened = new CircuitBreaker('listened', bench_configuration(), new SharedMemoryStorage('bench:'), new BenchListener());
    $open = new CircuitBreaker('open', bench_configuration(), new SharedMemoryStorage('bench:'));
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
    return [
        // The floor: two calls of the cheapest method of an ext-php-rs
        // class without arguments (it returns a field, a short string).
        'floor' => function (int $n) use ($reused) {
            for ($i = 0; $i < $n; $i++) {
                $reused->getService();
                $reused->getService();
            }
        },
        'reused' => function (int $n) use ($reused) {
            for ($i = 0; $i < $n; $i++) {
                if ($reused->acquirePermission()) {
                    $reused->registerSuccess();
                }
            }
        },
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
        'listener' => function (int $n) use ($listened) {
            for ($i = 0; $i < $n; $i++) {
                if ($listened->acquirePermission()) {
                    $listened->registerSuccess();
                }
            }
        },
    ];
}

if (realpath($_SERVER['SCRIPT_FILENAME']) === __FILE__) {
    $scenarios = bench_scenarios();
    $name = $argv[1] ?? 'reused';
    $scenarios[$name]((int) ($argv[2] ?? 1000));
}
