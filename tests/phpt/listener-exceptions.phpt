--TEST--
Exceptions thrown by the listener never reach the caller, and a listener may call back into its breaker
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;

final class ThrowingListener implements EventListenerInterface
{
    public ?Zeusi\CircuitBreaker\CircuitBreaker $breaker = null;
    public int $calls = 0;

    public function handleEvent(EventInterface $event): void
    {
        $this->calls++;
        echo "listener sees ", $this->breaker->getState()->value, "\n";
        throw new LogicException('listener failed');
    }
}

$listener = new ThrowingListener();
$breaker = breaker(listener: null);
$breaker = new Zeusi\CircuitBreaker\CircuitBreaker('payments', new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
), new Zeusi\CircuitBreaker\Storage\InMemoryStorage(), $listener);
$listener->breaker = $breaker;
$breaker->registerFailure();
var_dump($breaker->acquirePermission());
echo $listener->calls, " events, no exception\n";
?>
--EXPECT--
listener sees open
listener sees open
bool(false)
2 events, no exception
