--TEST--
Classifiers decide which outcome to register, or none
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\Execution\OutcomeClassifierInterface;
use Zeusi\CircuitBreaker\Outcome;

final class NotFound extends RuntimeException {}
final class Timeout extends RuntimeException {}

final class HttpClassifier implements OutcomeClassifierInterface
{
    public function classifyException(\Throwable $exception): ?Outcome
    {
        return match (true) {
            $exception instanceof Timeout => Outcome::Failure,
            $exception instanceof NotFound => Outcome::Success,
            default => null,
        };
    }

    public function classifyResult(mixed $result): ?Outcome
    {
        return $result === 503 ? Outcome::Failure : Outcome::Success;
    }
}

function run(CallExecutor $executor, callable $call): void
{
    try {
        $executor->execute($call);
    } catch (RuntimeException) {
    }
}

// Not found answers are successes: 8 of them and 3 timeouts stay below 50%.
$breaker = breaker();
$executor = new CallExecutor($breaker, new HttpClassifier());
repeat(8, fn () => run($executor, fn () => throw new NotFound()));
repeat(3, fn () => run($executor, fn () => throw new Timeout()));
echo $breaker->getState()->value, "\n";
// Exceptions that say nothing about the service register nothing.
repeat(50, fn () => run($executor, fn () => throw new RuntimeException('bad request built')));
echo $breaker->getState()->value, "\n";
// Results can be failures too.
repeat(8, fn () => run($executor, fn () => 503));
echo $breaker->getState()->value, "\n";

// The callback classifier, with and without its result closure.
$breaker = breaker();
$executor = new CallExecutor($breaker, new CallbackOutcomeClassifier(
    fn (\Throwable $exception) => $exception instanceof Timeout ? Outcome::Failure : null,
));
repeat(10, fn () => $executor->execute(fn () => 'any result is a success'));
repeat(9, fn () => run($executor, fn () => throw new Timeout()));
echo $breaker->getState()->value, " at 9 of 19\n";
run($executor, fn () => throw new Timeout());
echo $breaker->getState()->value, " at 10 of 20\n";

$classifier = new CallbackOutcomeClassifier(fn (\Throwable $e) => null, fn (mixed $result) => $result ? Outcome::Success : Outcome::Failure);
var_dump($classifier->classifyResult(false), $classifier->classifyResult(1), $classifier->classifyException(new Exception()));
?>
--EXPECT--
closed
closed
open
closed at 9 of 19
open at 10 of 20
enum(Zeusi\CircuitBreaker\Outcome::Failure)
enum(Zeusi\CircuitBreaker\Outcome::Success)
NULL
