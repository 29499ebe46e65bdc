--TEST--
acquirePermission(), registerSuccess() and registerFailure(): argument counts and types, return values, exceptions, callables, reflection, subclasses (an unconstructed one too), as PHP reports them
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

function attempt(string $label, callable $call): void
{
    try {
        echo "$label: ";
        var_dump($call());
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}

$clock = new MockClock(1000);
$configuration = new Configuration(60, [new ConsecutiveFailuresRule(2)], 10, new PermittedCallsPolicy(5, 1));
$breaker = new CircuitBreaker('hot', $configuration, new SharedMemoryStorage('hot:'), null, $clock);

attempt('acquire', fn () => $breaker->acquirePermission());
attempt('acquire, an argument', fn () => $breaker->acquirePermission(1));
attempt('success', fn () => $breaker->registerSuccess());
attempt('success, a duration', fn () => $breaker->registerSuccess(0.25));
attempt('success, an int duration', fn () => $breaker->registerSuccess(1));
attempt('success, a numeric string', fn () => $breaker->registerSuccess('0.5'));
attempt('success, null', fn () => $breaker->registerSuccess(null));
attempt('success, named', fn () => $breaker->registerSuccess(duration: 0.1));
attempt('success, unknown named', fn () => $breaker->registerSuccess(time: 0.1));
attempt('success, a word', fn () => $breaker->registerSuccess('slow'));
attempt('success, an array', fn () => $breaker->registerSuccess([]));
attempt('success, negative', fn () => $breaker->registerSuccess(-1.0));
attempt('success, infinite', fn () => $breaker->registerSuccess(INF));
attempt('success, two arguments', fn () => $breaker->registerSuccess(1.0, 2.0));
attempt('failure', fn () => $breaker->registerFailure());
attempt('failure, a duration', fn () => $breaker->registerFailure(2.5));
attempt('acquire while open', fn () => $breaker->acquirePermission());
attempt('state', fn () => $breaker->getState());
attempt('failure, a word', fn () => $breaker->registerFailure('x'));
attempt('failure, two arguments', fn () => $breaker->registerFailure(1, 2));
$clock->sleep(11);
attempt('acquire, half-open', fn () => $breaker->acquirePermission());
attempt('success, half-open', fn () => $breaker->registerSuccess());
attempt('state', fn () => $breaker->getState());
attempt('callable', fn () => array_map([$breaker, 'acquirePermission'], []));
attempt('first-class callable', fn () => ($breaker->acquirePermission(...))());
attempt('reflection', fn () => (new ReflectionMethod(CircuitBreaker::class, 'registerFailure'))->invoke($breaker, 0.5));

class Unconstructed extends CircuitBreaker
{
    public function __construct()
    {
    }
}
$unconstructed = new Unconstructed();
attempt('unconstructed acquire', fn () => $unconstructed->acquirePermission());
attempt('unconstructed success', fn () => $unconstructed->registerSuccess());
attempt('unconstructed success, a word', fn () => $unconstructed->registerSuccess('x'));
attempt('unconstructed acquire, an argument', fn () => $unconstructed->acquirePermission(1));

class Counting extends CircuitBreaker
{
    public int $calls = 0;
    public function acquirePermission(): bool
    {
        $this->calls++;
        return parent::acquirePermission();
    }
}
$counting = new Counting('counting', $configuration, new SharedMemoryStorage('hot:'), null, $clock);
attempt('subclass acquire', fn () => $counting->acquirePermission());
attempt('subclass success', fn () => $counting->registerSuccess(0.5));
echo "subclass calls: {$counting->calls}\n";

--EXPECT--
acquire: bool(true)
acquire, an argument: ArgumentCountError: Zeusi\CircuitBreaker\CircuitBreaker::acquirePermission() expects exactly 0 arguments, 1 given
success: NULL
success, a duration: NULL
success, an int duration: NULL
success, a numeric string: NULL
success, null: NULL
success, named: NULL
success, unknown named: Error: Unknown named parameter $time
success, a word: TypeError: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be of type ?float, string given
success, an array: TypeError: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be of type ?float, array given
success, negative: ValueError: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be null or a finite number of seconds, at least 0, -1 given
success, infinite: ValueError: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be null or a finite number of seconds, at least 0, INF given
success, two arguments: ArgumentCountError: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess() expects at most 1 argument, 2 given
failure: NULL
failure, a duration: NULL
acquire while open: bool(false)
state: enum(Zeusi\CircuitBreaker\State::Open)
failure, a word: TypeError: Zeusi\CircuitBreaker\CircuitBreaker::registerFailure(): Argument #1 ($duration) must be of type ?float, string given
failure, two arguments: ArgumentCountError: Zeusi\CircuitBreaker\CircuitBreaker::registerFailure() expects at most 1 argument, 2 given
acquire, half-open: bool(true)
success, half-open: NULL
state: enum(Zeusi\CircuitBreaker\State::Closed)
callable: array(0) {
}
first-class callable: bool(true)
reflection: NULL
unconstructed acquire: Error: Unconstructed::acquirePermission(): the Unconstructed object was not constructed (made without calling its constructor, as ReflectionClass::newInstanceWithoutConstructor() does): create it with new, or call parent::__construct() from a subclass's constructor
unconstructed success: Error: Unconstructed::registerSuccess(): the Unconstructed object was not constructed (made without calling its constructor, as ReflectionClass::newInstanceWithoutConstructor() does): create it with new, or call parent::__construct() from a subclass's constructor
unconstructed success, a word: TypeError: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be of type ?float, string given
unconstructed acquire, an argument: ArgumentCountError: Zeusi\CircuitBreaker\CircuitBreaker::acquirePermission() expects exactly 0 arguments, 1 given
subclass acquire: bool(true)
subclass success: NULL
subclass calls: 1
