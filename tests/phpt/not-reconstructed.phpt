--TEST--
Configuration, the rules, the ramp curves and policies, RedisStorage and MemcachedStorage refuse __construct() once constructed, as CircuitBreaker does: their read-only values never change under the breakers that copied them
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\ExponentialRampCurve;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\HalfOpen\PowerRampCurve;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$policy = new PermittedCallsPolicy(maxDuration: 30, permittedCalls: 1);
$rule = new FailureRateRule(threshold: 50, minimumRequests: 4);
$objects = [
    [$rule, [60, 8], fn ($o) => $o->threshold],
    [new SlowCallRateRule(1.0, 50, 4), [2.0, 60, 8], fn ($o) => $o->threshold],
    [new FailureOrSlowCallRateRule(1.0, 50, 4), [2.0, 60, 8], fn ($o) => $o->threshold],
    [new ConsecutiveFailuresRule(3), [9], fn ($o) => $o->failures],
    [new ExponentialRampCurve(0.1), [0.5], fn ($o) => $o->computeAdmissionRatio(0)],
    [new PowerRampCurve(0.1), [0.5], fn ($o) => $o->computeAdmissionRatio(0)],
    [new RampPolicy(10, new PowerRampCurve(0.1)), [20, new PowerRampCurve(0.5)], fn ($o) => get_class($o)],
    [$policy, [60, 5], fn ($o) => $o->permittedCalls],
    [new Configuration(10, [$rule], 60, $policy), [20, [$rule], 30, $policy], fn ($o) => $o->timeWindow],
    [new RedisStorage('redis://127.0.0.1:1', 'first:'), ['redis://127.0.0.1:2', 'second:'], fn ($o) => get_class($o)],
    [new MemcachedStorage('127.0.0.1:1', 'first:'), ['127.0.0.1:2', 'second:'], fn ($o) => get_class($o)],
];
foreach ($objects as [$object, $arguments, $read]) {
    try {
        $object->__construct(...$arguments);
        echo get_class($object), ": reconstructed\n";
    } catch (LogicException $exception) {
        echo get_class($exception), ': ', $exception->getMessage(), ' (', $read($object), ")\n";
    }
}
?>
--EXPECT--
LogicException: Zeusi\CircuitBreaker\Opening\FailureRateRule::__construct() cannot be called on an object already constructed (50)
LogicException: Zeusi\CircuitBreaker\Opening\SlowCallRateRule::__construct() cannot be called on an object already constructed (50)
LogicException: Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule::__construct() cannot be called on an object already constructed (50)
LogicException: Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule::__construct() cannot be called on an object already constructed (3)
LogicException: Zeusi\CircuitBreaker\HalfOpen\ExponentialRampCurve::__construct() cannot be called on an object already constructed (0.1)
LogicException: Zeusi\CircuitBreaker\HalfOpen\PowerRampCurve::__construct() cannot be called on an object already constructed (0.1)
LogicException: Zeusi\CircuitBreaker\HalfOpen\RampPolicy::__construct() cannot be called on an object already constructed (Zeusi\CircuitBreaker\HalfOpen\RampPolicy)
LogicException: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::__construct() cannot be called on an object already constructed (1)
LogicException: Zeusi\CircuitBreaker\Configuration::__construct() cannot be called on an object already constructed (10)
LogicException: Zeusi\CircuitBreaker\Storage\RedisStorage::__construct() cannot be called on an object already constructed (Zeusi\CircuitBreaker\Storage\RedisStorage)
LogicException: Zeusi\CircuitBreaker\Storage\MemcachedStorage::__construct() cannot be called on an object already constructed (Zeusi\CircuitBreaker\Storage\MemcachedStorage)
