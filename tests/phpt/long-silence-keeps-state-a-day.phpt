--TEST--
After a long silence (up to a day past the moment time ended the state) the first call finds the circuit closed and emits CircuitClosed once
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

const DAY = 86_400;
$configuration = new Configuration(
    timeWindow: 10,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);

// Open at t=0: half-open from 10 s, due to close at 40 s.
foreach (['open' => 0, 'half-open' => 10] as $case => $touchedAt) {
    foreach ([DAY - 60 => 'a day less a minute', DAY + 60 => 'a day and a minute'] as $after => $label) {
        $clock = new MockClock(1_764_000_000.0);
        $storage = new InMemoryStorage($clock);
        $listener = new RecordingListener();
        $breaker = new CircuitBreaker('payments', $configuration, $storage, $listener, $clock);
        repeat(4, fn () => $breaker->registerFailure());
        if ($touchedAt > 0) {
            $clock->sleep($touchedAt);
            $breaker->acquirePermission(); // stores the half-open state
        }
        $clock->sleep(40 - $touchedAt + $after);
        $state = $breaker->getState()->value;
        $permitted = $breaker->acquirePermission();
        $other = new RecordingListener();
        (new CircuitBreaker('payments', $configuration, $storage, $other, $clock))->acquirePermission();
        $breaker->acquirePermission();
        printf(
            "%s, silent %s after its end: %s, permitted %s, events: %s; another breaker: %s\n",
            $case,
            $label,
            $state,
            var_export($permitted, true),
            implode(' ', $listener->names()),
            implode(' ', $other->names()) ?: 'none',
        );
    }
}
?>
--EXPECT--
open, silent a day less a minute after its end: closed, permitted true, events: CircuitOpened CircuitClosed; another breaker: none
open, silent a day and a minute after its end: closed, permitted true, events: CircuitOpened; another breaker: none
half-open, silent a day less a minute after its end: closed, permitted true, events: CircuitOpened CircuitHalfOpened CircuitClosed; another breaker: none
half-open, silent a day and a minute after its end: closed, permitted true, events: CircuitOpened CircuitHalfOpened; another breaker: none
