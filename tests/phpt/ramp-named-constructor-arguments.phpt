--TEST--
RampPolicy::createExponential(), run by our own handler: argument counts, types, coercion, null, limits, named and spread arguments, as PHP reports them
--FILE--
<?php
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
function attempt(string $label, callable $make): void
{
    try {
        $made = $make();
        echo "$label: ", get_class($made), ' ', $made->getMaxDuration(), "\n";
    } catch (Throwable $e) {
        echo "$label: ", get_class($e), ': ', $e->getMessage(), "\n";
    }
}
attempt('policy', fn () => RampPolicy::createExponential(60, 0.01));
attempt('policy, named', fn () => RampPolicy::createExponential(initialRatio: 0.5, duration: 30));
attempt('policy, spread', fn () => RampPolicy::createExponential(...[20, 0.5]));
attempt('policy, one argument', fn () => RampPolicy::createExponential(60));
attempt('policy, three arguments', fn () => RampPolicy::createExponential(60, 0.01, 3));
attempt('policy, a string duration', fn () => RampPolicy::createExponential('long', 0.01));
attempt('policy, a numeric string', fn () => RampPolicy::createExponential('60', '0.5'));
attempt('policy, null ratio', fn () => RampPolicy::createExponential(60, null));
attempt('policy, out of range', fn () => RampPolicy::createExponential(60, 2));
attempt('policy, unknown named', fn () => RampPolicy::createExponential(60, ratio: 0.5));
attempt('policy, called on an object', fn () => (RampPolicy::createExponential(60, 0.5))::createExponential(10, 0.5));
--EXPECTF--
policy: Zeusi\CircuitBreaker\HalfOpen\RampPolicy 60
policy, named: Zeusi\CircuitBreaker\HalfOpen\RampPolicy 30
policy, spread: Zeusi\CircuitBreaker\HalfOpen\RampPolicy 20
policy, one argument: ArgumentCountError: Zeusi\CircuitBreaker\HalfOpen\RampPolicy::createExponential() expects exactly 2 arguments, 1 given
policy, three arguments: ArgumentCountError: Zeusi\CircuitBreaker\HalfOpen\RampPolicy::createExponential() expects exactly 2 arguments, 3 given
policy, a string duration: TypeError: Zeusi\CircuitBreaker\HalfOpen\RampPolicy::createExponential(): Argument #1 ($duration) must be of type float, string given
policy, a numeric string: Zeusi\CircuitBreaker\HalfOpen\RampPolicy 60

Deprecated: Zeusi\CircuitBreaker\HalfOpen\RampPolicy::createExponential(): Passing null to parameter #2 ($initialRatio) of type float is deprecated in %s on line 19
policy, null ratio: Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid initialRatio: 0 given, expected greater than 0 and at most 1
policy, out of range: Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid initialRatio: 2 given, expected greater than 0 and at most 1
policy, unknown named: Error: Unknown named parameter $ratio
policy, called on an object: Zeusi\CircuitBreaker\HalfOpen\RampPolicy 10
