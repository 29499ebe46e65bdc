--TEST--
new of a rule, a configuration, a shared-memory storage and a breaker: argument counts, types, defaults, named and spread arguments, subclasses, as PHP reports them
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

function attempt(string $label, callable $make): void
{
    try {
        $made = $make();
        echo "$label: ", get_class($made), "\n";
    } catch (Throwable $e) {
        echo "$label: ", get_class($e), ': ', $e->getMessage(), "\n";
    }
}

$rule = new FailureRateRule(50, 10);
$policy = RampPolicy::createExponential(60, 0.01);
$configuration = new Configuration(60, [$rule], 10, $policy);
$storage = new SharedMemoryStorage('t:');

attempt('rule', fn () => new FailureRateRule(threshold: 50.5, minimumRequests: 10));
attempt('rule, one argument', fn () => new FailureRateRule(50));
attempt('rule, three arguments', fn () => new FailureRateRule(50, 10, 3));
attempt('rule, a string threshold', fn () => new FailureRateRule('x', 10));
attempt('rule, a numeric string', fn () => new FailureRateRule('50', '10'));
attempt('rule, out of range', fn () => new FailureRateRule(150, 10));
attempt('rule, unknown named', fn () => new FailureRateRule(50, minimum: 10));
attempt('configuration', fn () => new Configuration(60, [$rule], 10, $policy));
attempt('configuration, maxOpenDuration', fn () => new Configuration(timeWindow: 60, openingRules: [$rule], openDuration: 10, halfOpenPolicy: $policy, maxOpenDuration: 40));
attempt('configuration, maxOpenDuration null', fn () => new Configuration(60, [$rule], 10, $policy, null));
attempt('configuration, three arguments', fn () => new Configuration(60, [$rule], 10));
attempt('configuration, six arguments', fn () => new Configuration(60, [$rule], 10, $policy, 40, 1));
attempt('configuration, seven arguments', fn () => new Configuration(60, [$rule], 10, $policy, 40, 1, 1));
attempt('configuration, maxConcurrentCalls a string', fn () => new Configuration(60, [$rule], 10, $policy, null, 'many'));
attempt('configuration, rules not an array', fn () => new Configuration(60, $rule, 10, $policy));
attempt('configuration, policy not a policy', fn () => new Configuration(60, [$rule], 10, $rule));
attempt('configuration, maxOpenDuration a string', fn () => new Configuration(60, [$rule], 10, $policy, 'long'));
attempt('configuration, a rule not a rule', fn () => new Configuration(60, [$policy], 10, $policy));
attempt('storage', fn () => new SharedMemoryStorage());
attempt('storage, prefix', fn () => new SharedMemoryStorage(prefix: 'p:'));
attempt('storage, null prefix', fn () => new SharedMemoryStorage(null));
attempt('storage, int prefix', fn () => new SharedMemoryStorage(12));
attempt('storage, array prefix', fn () => new SharedMemoryStorage([]));
attempt('storage, two arguments', fn () => new SharedMemoryStorage('a', 'b'));
attempt('storage, spread', fn () => new SharedMemoryStorage(...['q:']));
attempt('breaker', fn () => new CircuitBreaker('s', $configuration, $storage));
attempt('breaker, named clock', fn () => new CircuitBreaker(service: 's', configuration: $configuration, storage: $storage, clock: new MockClock(1000)));
attempt('breaker, null listener', fn () => new CircuitBreaker('s', $configuration, $storage, null, null));
attempt('breaker, two arguments', fn () => new CircuitBreaker('s', $configuration));
attempt('breaker, six arguments', fn () => new CircuitBreaker('s', $configuration, $storage, null, null, 1));
attempt('breaker, int service', fn () => new CircuitBreaker(12, $configuration, $storage));
attempt('breaker, array service', fn () => new CircuitBreaker([], $configuration, $storage));
attempt('breaker, no configuration', fn () => new CircuitBreaker('s', $storage, $storage));
attempt('breaker, no storage', fn () => new CircuitBreaker('s', $configuration, 'storage'));
attempt('breaker, no listener', fn () => new CircuitBreaker('s', $configuration, $storage, $storage));
attempt('breaker, no clock', fn () => new CircuitBreaker('s', $configuration, $storage, null, 'clock'));
attempt('breaker, reflection', fn () => (new ReflectionClass(CircuitBreaker::class))->newInstanceArgs(['r', $configuration, $storage]));

class PrefixedStorage extends SharedMemoryStorage
{
    public function __construct(string $name)
    {
        parent::__construct("app:$name:");
    }
}
attempt('subclass', fn () => new PrefixedStorage('x'));
$breaker = new CircuitBreaker('sub', $configuration, new PrefixedStorage('x'));
var_dump($breaker->acquirePermission(), $breaker->getService());
class UnconstructedStorage extends SharedMemoryStorage
{
    public function __construct()
    {
    }
}
attempt('subclass without parent constructor', function () use ($configuration) {
    return new CircuitBreaker('u', $configuration, new UnconstructedStorage());
});
attempt('second construction', function () use ($storage) {
    $storage->__construct('other:');
    return $storage;
});

--EXPECT--
rule: Zeusi\CircuitBreaker\Opening\FailureRateRule
rule, one argument: ArgumentCountError: Zeusi\CircuitBreaker\Opening\FailureRateRule::__construct() expects exactly 2 arguments, 1 given
rule, three arguments: ArgumentCountError: Zeusi\CircuitBreaker\Opening\FailureRateRule::__construct() expects exactly 2 arguments, 3 given
rule, a string threshold: TypeError: Zeusi\CircuitBreaker\Opening\FailureRateRule::__construct(): Argument #1 ($threshold) must be of type float, string given
rule, a numeric string: Zeusi\CircuitBreaker\Opening\FailureRateRule
rule, out of range: Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid threshold: 150 given, expected a percentage from 1 to 100
rule, unknown named: Error: Unknown named parameter $minimum
configuration: Zeusi\CircuitBreaker\Configuration
configuration, maxOpenDuration: Zeusi\CircuitBreaker\Configuration
configuration, maxOpenDuration null: Zeusi\CircuitBreaker\Configuration
configuration, three arguments: ArgumentCountError: Zeusi\CircuitBreaker\Configuration::__construct() expects at least 4 arguments, 3 given
configuration, six arguments: Zeusi\CircuitBreaker\Configuration
configuration, seven arguments: ArgumentCountError: Zeusi\CircuitBreaker\Configuration::__construct() expects at most 6 arguments, 7 given
configuration, maxConcurrentCalls a string: TypeError: Zeusi\CircuitBreaker\Configuration::__construct(): Argument #6 ($maxConcurrentCalls) must be of type ?int, string given
configuration, rules not an array: TypeError: Zeusi\CircuitBreaker\Configuration::__construct(): Argument #2 ($openingRules) must be of type array, Zeusi\CircuitBreaker\Opening\FailureRateRule given
configuration, policy not a policy: TypeError: Zeusi\CircuitBreaker\Configuration::__construct(): Argument #4 ($halfOpenPolicy) must be of type Zeusi\CircuitBreaker\HalfOpen\HalfOpenPolicyInterface, Zeusi\CircuitBreaker\Opening\FailureRateRule given
configuration, maxOpenDuration a string: TypeError: Zeusi\CircuitBreaker\Configuration::__construct(): Argument #5 ($maxOpenDuration) must be of type ?float, string given
configuration, a rule not a rule: Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid openingRules: Zeusi\CircuitBreaker\HalfOpen\RampPolicy at position 0 given, expected instances of FailureRateRule, SlowCallRateRule, FailureOrSlowCallRateRule, ConsecutiveFailuresRule or AdaptiveThrottlingRule
storage: Zeusi\CircuitBreaker\Storage\SharedMemoryStorage
storage, prefix: Zeusi\CircuitBreaker\Storage\SharedMemoryStorage
storage, null prefix: TypeError: Argument `$prefix` must not be null
storage, int prefix: Zeusi\CircuitBreaker\Storage\SharedMemoryStorage
storage, array prefix: TypeError: Zeusi\CircuitBreaker\Storage\SharedMemoryStorage::__construct(): Argument #1 ($prefix) must be of type string, array given
storage, two arguments: ArgumentCountError: Zeusi\CircuitBreaker\Storage\SharedMemoryStorage::__construct() expects at most 1 argument, 2 given
storage, spread: Zeusi\CircuitBreaker\Storage\SharedMemoryStorage
breaker: Zeusi\CircuitBreaker\CircuitBreaker
breaker, named clock: Zeusi\CircuitBreaker\CircuitBreaker
breaker, null listener: Zeusi\CircuitBreaker\CircuitBreaker
breaker, two arguments: ArgumentCountError: Zeusi\CircuitBreaker\CircuitBreaker::__construct() expects at least 3 arguments, 2 given
breaker, six arguments: ArgumentCountError: Zeusi\CircuitBreaker\CircuitBreaker::__construct() expects at most 5 arguments, 6 given
breaker, int service: Zeusi\CircuitBreaker\CircuitBreaker
breaker, array service: TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #1 ($service) must be of type string, array given
breaker, no configuration: TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #2 ($configuration) must be of type Zeusi\CircuitBreaker\Configuration, Zeusi\CircuitBreaker\Storage\SharedMemoryStorage given
breaker, no storage: TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #3 ($storage) must be of type Zeusi\CircuitBreaker\Storage\StorageInterface, string given
breaker, no listener: TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #4 ($eventListener) must be of type ?Zeusi\CircuitBreaker\Event\EventListenerInterface, Zeusi\CircuitBreaker\Storage\SharedMemoryStorage given
breaker, no clock: TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #5 ($clock) must be of type ?Zeusi\CircuitBreaker\Clock\ClockInterface, string given
breaker, reflection: Zeusi\CircuitBreaker\CircuitBreaker
subclass: PrefixedStorage
bool(true)
string(3) "sub"
subclass without parent constructor: Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid storage: UnconstructedStorage without increment(), getMultiple(), compareAndSet() given, expected a storage of this extension, or a KeyValueStoreInterface (increment(), getMultiple(), compareAndSet())
second construction: LogicException: Zeusi\CircuitBreaker\Storage\SharedMemoryStorage::__construct() cannot be called on an object already constructed
