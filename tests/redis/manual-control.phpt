--TEST--
RedisStorage (standalone and cluster): forceOpen, forceClosed, reset and the backoff level hold fleet-wide; listCircuits finds every circuit by SCAN on every master
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN') || !getenv('CB_REDIS_CLUSTER')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
require __DIR__ . '/../phpt/subprocess.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    maxOpenDuration: 40,
);
foreach (['standalone' => redis_env('CB_REDIS_DSN'), 'cluster' => redis_env('CB_REDIS_CLUSTER')] as $name => $target) {
    echo "== $name\n";
    $prefix = "control-" . getmypid() . ':';
    $targets = str_contains($target, ',') ? explode(',', $target) : $target;
    $clock = new MockClock(microtime(true));
    $listener = new RecordingListener();
    $worker = new CircuitBreaker('payments', $configuration, new RedisStorage($targets, $prefix, 2.0), $listener, $clock);
    // Another server runs each command: its own process, its own storage object.
    $operator = function (string $command, string ...$duration) use ($target, $prefix, $clock) {
        [$status, $output] = run_php(__DIR__ . '/../phpt/operator-command.inc', 'redis', $target, $prefix, 'payments', (string) $clock->now()->format('U.u'), $command, ...$duration);
        echo '  operator: ', $status === 0 ? str_replace("\n", '; ', trim($output)) : "failed: $output", "\n";
    };

    // The backoff level lives in Redis: the other server sees it.
    repeat(4, fn () => $worker->registerFailure());
    $clock->sleep(10);
    $worker->acquirePermission();
    $worker->registerFailure();
    $operator('status');

    $operator('forceClosed', '60');
    printf("forced closed: %s, %s\n", $worker->getState()->value, var_export($worker->acquirePermission(), true));
    repeat(10, fn () => $worker->registerFailure());
    printf("after 10 failures: %s\n", $worker->getState()->value);

    $operator('forceOpen', '300');
    printf("forced open: %s, %s, retry after %s s\n", $worker->getState()->value, var_export($worker->acquirePermission(), true), $worker->getStatus()->until->getTimestamp() - $clock->now()->getTimestamp());

    // The worker remembers the open circuit; a reset still reaches it once
    // its memory is checked again (2 s).
    $clock->sleep(2);
    $operator('reset');
    printf("reset: %s, %s\n", $worker->getState()->value, var_export($worker->acquirePermission(), true));
    echo "worker: ", implode(', ', $listener->names()), "\n";

    // Listing: a few circuits, one of them only counted, never changed.
    $storage = new RedisStorage($targets, $prefix, 2.0);
    foreach (['inventory', 'shipping {eu}', 'search'] as $service) {
        (new CircuitBreaker($service, $configuration, $storage, null, $clock))->registerSuccess();
    }
    (new CircuitBreaker('search', $configuration, $storage, null, $clock))->forceOpen(60);
    $listed = [];
    foreach ($storage->listCircuits() as $status) {
        $listed[] = $status->service . ': ' . $status->state->value . ($status->forced ? ' (forced)' : '');
    }
    sort($listed);
    echo implode("\n", $listed), "\n";
    echo count($storage->listCircuits('s')), " starting with 's'\n";
}
?>
--EXPECT--
== standalone
  operator: open, level 1
  operator: CircuitForced Closed 60 s
forced closed: closed, true
after 10 failures: closed
  operator: CircuitForced Open 300 s
forced open: open, false, retry after 300 s
  operator: CircuitReset
reset: closed, true
worker: CircuitOpened, CircuitHalfOpened, CircuitOpened
inventory: closed
payments: closed
search: open (forced)
shipping {eu}: closed
2 starting with 's'
== cluster
  operator: open, level 1
  operator: CircuitForced Closed 60 s
forced closed: closed, true
after 10 failures: closed
  operator: CircuitForced Open 300 s
forced open: open, false, retry after 300 s
  operator: CircuitReset
reset: closed, true
worker: CircuitOpened, CircuitHalfOpened, CircuitOpened
inventory: closed
payments: closed
search: open (forced)
shipping {eu}: closed
2 starting with 's'
