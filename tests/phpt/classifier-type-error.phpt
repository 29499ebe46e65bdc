--TEST--
A classifier that returns neither an Outcome nor null: a TypeError naming its method, with the call's exception as its previous
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\Execution\CallGate;
use Zeusi\CircuitBreaker\Execution\OutcomeClassifierInterface;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Outcome;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

/** PHP's own return type check rejects what it returns. */
final class WrongClassifier implements OutcomeClassifierInterface
{
    public function classifyException(Throwable $exception): ?Outcome { return 'failure'; }
    public function classifyResult(mixed $result): ?Outcome { return 42; }
}

/** Wraps the call's exception itself: it is not chained twice. */
final class WrappingClassifier implements OutcomeClassifierInterface
{
    public function classifyException(Throwable $exception): ?Outcome { throw new LogicException('wrapped', 0, $exception); }
    public function classifyResult(mixed $result): ?Outcome { return null; }
}

function chain(Throwable $e): string
{
    $links = [];
    for (; $e !== null; $e = $e->getPrevious()) {
        $links[] = get_class($e) . '(' . $e->getMessage() . ')';
    }
    return implode(' <- ', $links);
}

$breaker = new CircuitBreaker('api', new Configuration(60, [new ConsecutiveFailuresRule(1)], 30, new PermittedCallsPolicy(5)), new InMemoryStorage());
$classifiers = [
    new WrongClassifier(),
    new CallbackOutcomeClassifier(fn (Throwable $e) => 'failure', fn (mixed $result) => 42),
    new WrappingClassifier(),
];
foreach ($classifiers as $classifier) {
    $executor = new CallExecutor($breaker, $classifier);
    foreach ([fn () => throw new RuntimeException('down'), fn () => 'ok'] as $call) {
        try {
            $executor->execute($call);
            echo "returned\n";
        } catch (Throwable $e) {
            echo chain($e), "\n";
        }
    }
    try {
        (new CallGate($breaker, $classifier))->admit()->registerException(new DomainException('late'));
        echo "registered\n";
    } catch (Throwable $e) {
        echo chain($e), "\n";
    }
}
echo $breaker->getState()->name, "\n";
?>
--EXPECT--
TypeError(WrongClassifier::classifyException(): Return value must be of type ?Zeusi\CircuitBreaker\Outcome, string returned) <- RuntimeException(down)
TypeError(WrongClassifier::classifyResult(): Return value must be of type ?Zeusi\CircuitBreaker\Outcome, int returned)
TypeError(WrongClassifier::classifyException(): Return value must be of type ?Zeusi\CircuitBreaker\Outcome, string returned) <- DomainException(late)
TypeError(Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier::classifyException(): the callback must return Zeusi\CircuitBreaker\Outcome or null, string returned) <- RuntimeException(down)
TypeError(Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier::classifyResult(): the callback must return Zeusi\CircuitBreaker\Outcome or null, int returned)
TypeError(Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier::classifyException(): the callback must return Zeusi\CircuitBreaker\Outcome or null, string returned) <- DomainException(late)
LogicException(wrapped) <- RuntimeException(down)
returned
LogicException(wrapped) <- DomainException(late)
Closed
