--TEST--
Any string is a service name: circuits of different names are separate, binary names included
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;

$clock = new MockClock(1_764_000_000.0);
$storage = new Zeusi\CircuitBreaker\Storage\InMemoryStorage($clock);
$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$names = ["payments", "payments\0", "\xff\xfe binary", str_repeat('long', 1000), "", "with space\nand newline"];
$breakers = array_map(fn ($name) => new CircuitBreaker($name, $configuration, $storage, null, $clock), $names);
$breakers[1]->registerFailure();
$breakers[2]->registerFailure();
foreach ($breakers as $i => $breaker) {
    printf("%d %s %s\n", $i, $breaker->getService() === $names[$i] ? 'same name' : 'other name', $breaker->getState()->value);
}
?>
--EXPECT--
0 same name closed
1 same name open
2 same name open
3 same name closed
4 same name closed
5 same name closed
