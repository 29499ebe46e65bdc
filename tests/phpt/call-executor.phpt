--TEST--
CallExecutor returns the result, rethrows the call's own exception unchanged after registering it, and measures durations
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;

final class GatewayUnavailable extends RuntimeException {}

$breaker = breaker();
$executor = new CallExecutor($breaker);
var_dump($executor->execute(fn () => ['charged' => 42]));

$original = new GatewayUnavailable('down', 503);
$line = __LINE__ - 1;
for ($i = 0; $i < 3; $i++) {
    try {
        $executor->execute(function () use ($original) { throw $original; });
    } catch (GatewayUnavailable $caught) {
        echo $caught === $original ? 'same' : 'other', ' ', $caught->getCode(), ' line ', $caught->getLine() === $line ? 'kept' : $caught->getLine(), "\n";
    }
}
echo $breaker->getState()->value, " (1 success and 3 failures registered)\n";

// Durations are measured: a 30 ms call is slow for a 10 ms rule.
$slow = new Configuration(
    timeWindow: 60,
    openingRules: [new SlowCallRateRule(slowCallDuration: 0.01, threshold: 100, minimumRequests: 2)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = breaker($slow);
$executor = new CallExecutor($breaker);
$executor->execute(fn () => usleep(30_000));
$executor->execute(fn () => usleep(30_000));
echo $breaker->getState()->value, " after two slow calls\n";
?>
--EXPECT--
array(1) {
  ["charged"]=>
  int(42)
}
same 503 line kept
same 503 line kept
same 503 line kept
open (1 success and 3 failures registered)
open after two slow calls
