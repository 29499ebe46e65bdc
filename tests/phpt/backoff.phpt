--TEST--
Backoff: each reopening from half-open doubles the open duration up to maxOpenDuration; closing starts again from openDuration
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

function configuration(?float $maxOpenDuration): Configuration
{
    return new Configuration(
        timeWindow: 10,
        openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
        openDuration: 10,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
        maxOpenDuration: $maxOpenDuration,
    );
}

$clock = new MockClock(1_764_000_000.0);
$listener = new RecordingListener();
$breaker = breaker(configuration(40), $clock, $listener);
$executor = new CallExecutor($breaker);
var_dump(configuration(40)->maxOpenDuration, configuration(null)->maxOpenDuration);

$retryAfter = function () use ($executor): ?float {
    try {
        $executor->execute(fn () => 'never');
    } catch (CallNotPermittedException $e) {
        return $e->getRetryAfter();
    }
    return null;
};

repeat(4, fn () => $breaker->registerFailure());
$start = $clock->now();
// The trials come at +10, +30 (10 + 20), +70 (+40), +110 (+40): each fails.
foreach ([1, 2, 3, 4] as $trial) {
    $wait = $retryAfter();
    $status = $breaker->getStatus();
    printf("open for %g s (status: %g s, level %d), ", $wait, $status->openDuration, $status->backoffLevel);
    $clock->sleep($wait);
    var_dump($breaker->acquirePermission());
    $trial < 4 ? $breaker->registerFailure() : $breaker->registerSuccess();
}
echo "trial at +", $clock->now()->getTimestamp() - $start->getTimestamp(), " s succeeded: ", $breaker->getState()->name, "\n";
repeat(4, fn () => $breaker->registerFailure());
printf("next opening: %g s, level %d\n", $retryAfter(), $breaker->getStatus()->backoffLevel);
echo implode(', ', array_map(fn ($e) => sprintf('%g', $e->openDuration), array_filter($listener->events, fn ($e) => $e instanceof Zeusi\CircuitBreaker\Event\CircuitOpened))), "\n";

// Without maxOpenDuration, no backoff: today's behaviour.
$plain = breaker(configuration(null), new MockClock(1_764_000_000.0));
repeat(4, fn () => $plain->registerFailure());
printf("without backoff: %g s\n", $plain->getStatus()->openDuration);

foreach ([9.999, 2_592_000.5, NAN] as $invalid) {
    try {
        configuration($invalid);
    } catch (InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
float(40)
NULL
open for 10 s (status: 10 s, level 0), bool(true)
open for 20 s (status: 20 s, level 1), bool(true)
open for 40 s (status: 40 s, level 2), bool(true)
open for 40 s (status: 40 s, level 2), bool(true)
trial at +110 s succeeded: Closed
next opening: 10 s, level 0
10, 20, 40, 40, 10
without backoff: 10 s
Invalid maxOpenDuration: 9.999 given, expected null, or openDuration to 2592000 seconds (30 days)
Invalid maxOpenDuration: 2592000.5 given, expected null, or openDuration to 2592000 seconds (30 days)
Invalid maxOpenDuration: NAN given, expected null, or openDuration to 2592000 seconds (30 days)
