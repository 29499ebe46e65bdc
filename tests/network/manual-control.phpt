--TEST--
A network storage (Redis standalone and cluster, two memcached servers): forceOpen, forceClosed, reset and the backoff level hold fleet-wide
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
require __DIR__ . '/../phpt/subprocess.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

on_every_target(function (string $target) {
    $configuration = new Configuration(
        timeWindow: 60,
        openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
        openDuration: 10,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
        maxOpenDuration: 40,
    );
    $prefix = "control-" . getmypid() . ':';
    $clock = new MockClock(microtime(true));
    $listener = new RecordingListener();
    $worker = new CircuitBreaker('payments', $configuration, storage(target_list($target), $prefix, 2.0), $listener, $clock);
    // Another server runs each command: its own process, its own storage object.
    $operator = function (string $command, string ...$duration) use ($target, $prefix, $clock) {
        [$status, $output] = run_php(__DIR__ . '/../phpt/operator-command.inc', store(), $target, $prefix, 'payments', (string) $clock->now()->format('U.u'), $command, ...$duration);
        echo '  operator: ', $status === 0 ? str_replace("\n", '; ', trim($output)) : "failed: $output", "\n";
    };

    // The backoff level lives in the store: the other server sees it.
    repeat(4, fn () => $worker->registerFailure());
    $clock->sleep(10);
    $worker->acquirePermission();
    $worker->registerFailure();
    $operator('status');
    printf("worker: retry after %g s\n", $worker->getStatus()->openDuration);

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
});
?>
--EXPECT--
  operator: open, level 1
worker: retry after 20 s
  operator: CircuitForced Closed 60 s
forced closed: closed, true
after 10 failures: closed
  operator: CircuitForced Open 300 s
forced open: open, false, retry after 300 s
  operator: CircuitReset
reset: closed, true
worker: CircuitOpened, CircuitHalfOpened, CircuitOpened
