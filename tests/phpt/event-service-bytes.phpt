--TEST--
An event's getService() is the breaker's service name, byte for byte, also when it is not UTF-8; so is one built from its properties
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\CircuitClosed;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$name = "caf\xe9-\xff\x00api";
$listener = new RecordingListener();
$breaker = new CircuitBreaker($name, new Configuration(60, [new ConsecutiveFailuresRule(1)], 10, PermittedCallsPolicy::createSingleTrial(30)), new InMemoryStorage(), $listener);
$breaker->registerFailure();
$breaker->acquirePermission();
foreach ($listener->events as $event) {
    echo (new ReflectionClass($event))->getShortName(), ': ', $event->getService() === $breaker->getService() ? 'same bytes' : bin2hex($event->getService()), "\n";
}
echo bin2hex((new CircuitClosed(service: $name, time: 1800000000.0))->getService()), "\n";
?>
--EXPECT--
CircuitOpened: same bytes
CallRejected: same bytes
636166e92dff00617069
