--TEST--
One interface catches everything the extension throws of its own, as Guzzle's GuzzleException does: Exception\CircuitBreakerExceptionInterface extends Throwable and is implemented by every exception class of the extension; a rejection, a storage failure and an invalid configuration are each caught through it, and keep their SPL parents
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Exception\CircuitBreakerExceptionInterface;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$interface = new ReflectionClass(CircuitBreakerExceptionInterface::class);
var_dump($interface->isInterface(), $interface->implementsInterface(Throwable::class));

// Every exception class the extension declares implements it.
$ours = array_filter(
    (new ReflectionExtension('circuit_breaker'))->getClassNames(),
    fn (string $class) => class_exists($class) && is_subclass_of($class, Throwable::class),
);
sort($ours);
foreach ($ours as $class) {
    echo $class, ': ', is_subclass_of($class, CircuitBreakerExceptionInterface::class) ? 'implements it' : 'does NOT implement it', "\n";
}

$caught = function (callable $throwing): void {
    try {
        $throwing();
        echo "nothing thrown\n";
    } catch (CircuitBreakerExceptionInterface $e) {
        echo 'caught ', (new ReflectionClass($e))->getShortName(), ' (a ', get_parent_class($e), ")\n";
    }
};
$breaker = breaker();
$breaker->forceOpen(60);
$caught(fn () => (new CallExecutor($breaker))->execute(fn () => 'never runs'));
$caught(fn () => (new MemcachedStorage('127.0.0.1:11211'))->listCircuits());
$caught(fn () => new FailureRateRule(threshold: 0, minimumRequests: 10));
?>
--EXPECT--
bool(true)
bool(true)
Zeusi\CircuitBreaker\Exception\CallNotPermittedException: implements it
Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: implements it
Zeusi\CircuitBreaker\Exception\StorageException: implements it
caught CallNotPermittedException (a RuntimeException)
caught StorageException (a RuntimeException)
caught InvalidConfigurationException (a InvalidArgumentException)
