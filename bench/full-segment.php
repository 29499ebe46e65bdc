<?php
// The cost of a protected call (acquirePermission() + registerSuccess()) once
// the shared memory segment is full, next to a call on a circuit that has a
// record: for a circuit refused a record (the same name, call after call) and
// for a new name at each call (an application churning names).
// Usage: php -n -d extension=build/circuit_breaker.so -d circuit_breaker.shm_size=32M bench/full-segment.php [iterations]

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$iterations = (int) ($argv[1] ?? 2_000);
$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 10)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);

/** Best of five runs of $body, in microseconds per iteration. */
function measure(int $iterations, callable $body): float
{
    $best = INF;
    for ($run = 0; $run < 5; $run++) {
        $start = hrtime(true);
        $body($iterations, $run);
        $best = min($best, (hrtime(true) - $start) / $iterations / 1000);
    }
    return $best;
}

// Fill the segment, a prefix after another (each may be held to its share).
$filled = 0;
for ($prefix = 0; $prefix < 100; $prefix++) {
    $storage = new SharedMemoryStorage("fill-$prefix:");
    $refused = false;
    $listener = new class ($refused) implements Zeusi\CircuitBreaker\Event\EventListenerInterface {
        public function __construct(public bool &$refused) {}
        public function handleEvent(Zeusi\CircuitBreaker\Event\EventInterface $event): void { $this->refused = true; }
    };
    for ($i = 0; ; $i++) {
        (new CircuitBreaker("name-$i", $configuration, $storage, $listener))->registerSuccess();
        if ($refused) {
            break;
        }
        $filled++;
    }
    if ($i === 0) {
        break; // even a new prefix is refused: the segment is full
    }
}

$storage = new SharedMemoryStorage('fill-0:');
$known = new CircuitBreaker('name-0', $configuration, $storage);
$unknown = new CircuitBreaker('no record', $configuration, new SharedMemoryStorage('late:'));
$withRecord = measure($iterations * 10, function (int $n) use ($known) {
    for ($i = 0; $i < $n; $i++) {
        $known->acquirePermission();
        $known->registerSuccess();
    }
});
$refusedSame = measure($iterations, function (int $n) use ($unknown) {
    for ($i = 0; $i < $n; $i++) {
        $unknown->acquirePermission();
        $unknown->registerSuccess();
    }
});
$newBreaker = measure($iterations, function (int $n) use ($storage, $configuration) {
    for ($i = 0; $i < $n; $i++) {
        $breaker = new CircuitBreaker('name-0', $configuration, $storage);
        $breaker->acquirePermission();
        $breaker->registerSuccess();
    }
});
$late = new SharedMemoryStorage('late:');
$refusedNew = measure($iterations, function (int $n, int $run) use ($late, $configuration) {
    for ($i = 0; $i < $n; $i++) {
        $breaker = new CircuitBreaker("new-$run-$i", $configuration, $late);
        $breaker->acquirePermission();
        $breaker->registerSuccess();
    }
});
printf("segment %s, %d circuits\n", ini_get('circuit_breaker.shm_size'), $filled);
printf("  call with a record:                %8.2f us\n", $withRecord);
printf("  call refused a record (same name): %8.2f us  (%.0fx)\n", $refusedSame, $refusedSame / $withRecord);
printf("  new breaker, call with a record:   %8.2f us\n", $newBreaker);
printf("  new breaker, refused (new name):   %8.2f us  (%.0fx)\n", $refusedNew, $refusedNew / $newBreaker);
