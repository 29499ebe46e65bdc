--TEST--
The extension loads and declares its classes, interfaces and enums
--FILE--
<?php
var_dump(extension_loaded('circuit_breaker'));
foreach ([
    'Zeusi\CircuitBreaker\CircuitBreaker', 'Zeusi\CircuitBreaker\Configuration',
    'Zeusi\CircuitBreaker\Storage\InMemoryStorage', 'Zeusi\CircuitBreaker\Clock\SystemClock',
    'Zeusi\CircuitBreaker\Clock\MockClock', 'Zeusi\CircuitBreaker\Execution\CallExecutor',
    'Zeusi\CircuitBreaker\Execution\CallGate', 'Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier',
] as $class) {
    echo $class, ': ', class_exists($class) ? 'class' : 'missing', "\n";
}
foreach ([
    'Zeusi\CircuitBreaker\CircuitBreakerInterface', 'Zeusi\CircuitBreaker\Storage\StorageInterface',
    'Zeusi\CircuitBreaker\Event\EventListenerInterface', 'Zeusi\CircuitBreaker\Execution\OutcomeClassifierInterface',
    'Zeusi\CircuitBreaker\HalfOpen\RampCurveInterface', 'Zeusi\CircuitBreaker\Clock\ClockInterface',
] as $interface) {
    echo $interface, ': ', interface_exists($interface) ? 'interface' : 'missing', "\n";
}
var_dump(array_map(fn ($case) => $case->value, Zeusi\CircuitBreaker\State::cases()));
var_dump(Zeusi\CircuitBreaker\Outcome::Failure instanceof UnitEnum);
var_dump(is_subclass_of('Zeusi\CircuitBreaker\Exception\CallNotPermittedException', RuntimeException::class));
var_dump(is_subclass_of('Zeusi\CircuitBreaker\Exception\StorageException', RuntimeException::class));
var_dump(is_subclass_of('Zeusi\CircuitBreaker\Exception\InvalidConfigurationException', InvalidArgumentException::class));
?>
--EXPECT--
bool(true)
Zeusi\CircuitBreaker\CircuitBreaker: class
Zeusi\CircuitBreaker\Configuration: class
Zeusi\CircuitBreaker\Storage\InMemoryStorage: class
Zeusi\CircuitBreaker\Clock\SystemClock: class
Zeusi\CircuitBreaker\Clock\MockClock: class
Zeusi\CircuitBreaker\Execution\CallExecutor: class
Zeusi\CircuitBreaker\Execution\CallGate: class
Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier: class
Zeusi\CircuitBreaker\CircuitBreakerInterface: interface
Zeusi\CircuitBreaker\Storage\StorageInterface: interface
Zeusi\CircuitBreaker\Event\EventListenerInterface: interface
Zeusi\CircuitBreaker\Execution\OutcomeClassifierInterface: interface
Zeusi\CircuitBreaker\HalfOpen\RampCurveInterface: interface
Zeusi\CircuitBreaker\Clock\ClockInterface: interface
array(3) {
  [0]=>
  string(6) "closed"
  [1]=>
  string(4) "open"
  [2]=>
  string(9) "half_open"
}
bool(true)
bool(true)
bool(true)
bool(true)
