--TEST--
The examples of docs/operations.md (the README's Operations section before it moved there) run as written
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
use Zeusi\CircuitBreaker\State;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 10), new SlowCallRateRule(slowCallDuration: 2, threshold: 80, minimumRequests: 10)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    maxOpenDuration: 300,           // 10, 20, 40, 80, 160, 300, 300... seconds
);
// Shared memory lists by the system clock: the mock clock starts from it.
$clock = new MockClock();
$storage = new SharedMemoryStorage('readme:');
$breaker = new CircuitBreaker('payments', $configuration, $storage, null, $clock);
$breaker->registerSuccess(2.5);
$breaker->registerFailure(0.1);

$breaker->forceOpen(600);     // no call for 10 minutes, whatever the outcomes
var_dump($breaker->acquirePermission());
$breaker->forceClosed(3600);  // every call passes for an hour: a false alarm
var_dump($breaker->acquirePermission());
$breaker->reset();            // closed now, fresh window, forced state and backoff ended
$breaker->registerSuccess(3.0);

$status = $breaker->getStatus();   // changes nothing, as getState()
printf(
    "%s is %s%s since %s, %s\n",
    $status->service,
    $status->state->value,
    $status->forced ? ' (forced)' : '',
    $status->since?->format('H:i:s') ?? 'ever',
    $status->until ? 'until ' . $status->until->format('H:i:s') : 'for now',
);
echo "{$status->failures} failures of {$status->calls} calls; opens for {$status->openDuration} s\n";
foreach ($status->slowCalls as ['slowCallDuration' => $slow, 'calls' => $count]) {
    echo "$count calls took $slow s or more\n";
}

(new CircuitBreaker('payments-eu', $configuration, $storage, null, $clock))->forceOpen(60);
foreach ($storage->listCircuits() as $status) {
    if ($status->state !== State::Closed) {
        echo "{$status->service}: {$status->state->value} until {$status->until?->format('c')}\n";
    }
}
$payments = $storage->listCircuits('payments-');  // services starting with 'payments-'
echo count($payments), "\n";
?>
--EXPECTF--
bool(false)
bool(true)
payments is closed since %d:%d:%d, for now
0 failures of 1 calls; opens for 10 s
1 calls took 2 s or more
payments-eu: open until %s
1
