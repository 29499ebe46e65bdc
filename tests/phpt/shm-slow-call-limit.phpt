--TEST--
SharedMemoryStorage refuses, at construction, a configuration with more distinct slow call durations than its records hold
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = fn (int $durations) => new Configuration(
    timeWindow: 10,
    openingRules: array_map(fn ($d) => new SlowCallRateRule(slowCallDuration: $d, threshold: 50, minimumRequests: 1), range(1, $durations)),
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
new CircuitBreaker('payments', $configuration(4), new SharedMemoryStorage());
echo "4 durations accepted\n";
new CircuitBreaker('payments', $configuration(5), new InMemoryStorage());
echo "5 durations accepted in memory\n";
try {
    new CircuitBreaker('payments', $configuration(5), new SharedMemoryStorage());
} catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
4 durations accepted
5 durations accepted in memory
Invalid openingRules: 5 distinct slow call durations given, expected at most 4 with this storage
