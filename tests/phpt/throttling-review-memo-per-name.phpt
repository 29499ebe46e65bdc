--TEST--
Throttling (review): two circuits of the same name over different storages (prefixes) have different windows; the healthy one's registers must not switch off the throttling of the failing one
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\AdaptiveThrottlingRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

function configuration(): Configuration
{
    return new Configuration(
        timeWindow: 60,
        openingRules: [new AdaptiveThrottlingRule(k: 1.5)],
        openDuration: 10,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    );
}
$pid = getmypid();
$down = new CircuitBreaker('search', configuration(), new SharedMemoryStorage("tenant-a-$pid:"));
$healthy = new CircuitBreaker('search', configuration(), new SharedMemoryStorage("tenant-b-$pid:"));
$sent = 0;
for ($i = 0; $i < 200; $i++) {
    if ($down->acquirePermission()) {
        $sent++;
        $down->registerFailure(0.01);
    }
    if ($healthy->acquirePermission()) {
        $healthy->registerSuccess(0.01);
    }
}
printf("rejection rate %.1f, sent to the dead service: %s\n", $down->getStatus()->rejectionRate, $sent < 40 ? 'fewer than 40 of 200' : "$sent of 200");
?>
--EXPECT--
rejection rate 0.9, sent to the dead service: fewer than 40 of 200
