--TEST--
Bulkhead (review): docs/operations.md promises 1 024 circuits with a bulkhead per pool and 64 per process over InMemoryStorage; each of the first 1 000 (and 60) distinct names must be bounded
--INI--
error_log=/dev/null
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new ConsecutiveFailuresRule(failures: 100)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    maxConcurrentCalls: 1,
);
function first_unbounded(int $circuits, Closure $storage, Configuration $configuration): ?int
{
    for ($i = 0; $i < $circuits; $i++) {
        $holder = new CircuitBreaker("tenant-$i.example.com:443", $configuration, $storage());
        $holder->acquirePermission();
        $second = new CircuitBreaker("tenant-$i.example.com:443", $configuration, $storage());
        if ($second->acquirePermission()) {
            return $i;
        }
    }
    return null;
}
$shared = new SharedMemoryStorage();
var_dump(first_unbounded(1000, fn () => $shared, $configuration));
$memory = new InMemoryStorage();
var_dump(first_unbounded(60, fn () => $memory, $configuration));
?>
--EXPECT--
NULL
NULL
