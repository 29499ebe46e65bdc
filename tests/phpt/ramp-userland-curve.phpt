--TEST--
A ramp follows a curve written in PHP
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampCurveInterface;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;

final class SteppedRampCurve implements RampCurveInterface
{
    public array $seen = [];

    public function computeAdmissionRatio(float $progress): float
    {
        $this->seen[] = $progress;
        return $progress < 0.5 ? 0.1 : 0.5;
    }
}

$curve = new SteppedRampCurve();
$clock = new MockClock(1_764_000_000.0);
$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: new RampPolicy(duration: 60, curve: $curve),
);
$breaker = breaker($configuration, $clock);
repeat(4, fn () => $breaker->registerFailure());
$clock->sleep(15);
$permitted = 0;
for ($i = 0; $i < 100; $i++) {
    $permitted += (int) $breaker->acquirePermission();
}
printf("%d of 100 at progress %.4f\n", $permitted, $curve->seen[0]);
$clock->sleep(30);
$permitted = 0;
for ($i = 0; $i < 100; $i++) {
    $permitted += (int) $breaker->acquirePermission();
}
printf("%d of 100 at progress %.4f\n", $permitted, end($curve->seen));
?>
--EXPECT--
10 of 100 at progress 0.0833
50 of 100 at progress 0.5833
