--TEST--
getStatus(): state, forced, since, until, open duration and the window as the rules count it; it changes nothing
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
use Zeusi\CircuitBreaker\Status\CircuitStatus;

$clock = new MockClock(1_764_000_000.0);
$listener = new RecordingListener();
$breaker = breaker(new Configuration(
    timeWindow: 30,
    openingRules: [
        new FailureRateRule(threshold: 50, minimumRequests: 10),
        new SlowCallRateRule(slowCallDuration: 2, threshold: 80, minimumRequests: 10),
        new SlowCallRateRule(slowCallDuration: 0.5, threshold: 90, minimumRequests: 10),
    ],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
), $clock, $listener);

function show(CircuitStatus $status): void
{
    $time = fn (?DateTimeImmutable $t) => $t === null ? 'null' : $t->format('H:i:s.v');
    printf(
        "%s %s forced=%s since=%s until=%s open=%s level=%d calls=%s failures=%s slow=%s\n",
        $status->service,
        $status->state->value,
        var_export($status->forced, true),
        $time($status->since),
        $time($status->until),
        var_export($status->openDuration, true),
        $status->backoffLevel,
        var_export($status->calls, true),
        var_export($status->failures, true),
        json_encode($status->slowCalls),
    );
}

show($breaker->getStatus());
$breaker->registerSuccess(2.5);
$breaker->registerSuccess(0.7);
$breaker->registerFailure(0.1);
$breaker->registerSuccess();
$clock->sleep(1.5);
show($breaker->getStatus());
repeat(6, fn () => $breaker->registerFailure());
show($breaker->getStatus());
$clock->sleep(10);
show($breaker->getStatus());
echo implode(', ', $listener->names()), " (the status changed nothing)\n";
$breaker->acquirePermission();
$breaker->registerFailure();
show($breaker->getStatus());
$breaker->forceClosed(3600);
show($breaker->getStatus());
try {
    new CircuitStatus();
} catch (Throwable $e) {
    echo get_class($e), "\n";
}
?>
--EXPECTF--
payments closed forced=false since=null until=null open=10.0 level=0 calls=0 failures=0 slow=[{"slowCallDuration":0.5,"calls":0},{"slowCallDuration":2,"calls":0}]
payments closed forced=false since=null until=null open=10.0 level=0 calls=4 failures=1 slow=[{"slowCallDuration":0.5,"calls":2},{"slowCallDuration":2,"calls":1}]
payments open forced=false since=16:00:01.500 until=16:00:11.500 open=10.0 level=0 calls=0 failures=0 slow=[{"slowCallDuration":0.5,"calls":0},{"slowCallDuration":2,"calls":0}]
payments half_open forced=false since=16:00:11.500 until=null open=10.0 level=0 calls=0 failures=0 slow=[{"slowCallDuration":0.5,"calls":0},{"slowCallDuration":2,"calls":0}]
CircuitOpened (the status changed nothing)
payments open forced=false since=16:00:11.500 until=16:00:21.500 open=10.0 level=0 calls=0 failures=0 slow=[{"slowCallDuration":0.5,"calls":0},{"slowCallDuration":2,"calls":0}]
payments closed forced=true since=16:00:11.500 until=17:00:11.500 open=10.0 level=0 calls=0 failures=0 slow=[{"slowCallDuration":0.5,"calls":0},{"slowCallDuration":2,"calls":0}]
%s
