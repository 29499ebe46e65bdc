--TEST--
The seed README's examples of running calls run unchanged: the HttpClient outcome classifier, the PaymentGateway built on a CallExecutor, the caller's fallback on CallNotPermittedException, and the CallGate of asynchronous calls
--FILE--
<?php
require __DIR__ . '/seed-readme.inc';

// Seed README, Classifying outcomes (lines 79-103), unchanged.
$classifierExample = <<<'EXAMPLE'
use Symfony\Contracts\HttpClient\Exception\ClientExceptionInterface;
use Symfony\Contracts\HttpClient\Exception\RedirectionExceptionInterface;
use Symfony\Contracts\HttpClient\Exception\ServerExceptionInterface;
use Symfony\Contracts\HttpClient\Exception\TransportExceptionInterface;
use Zeusi\CircuitBreaker\Execution\OutcomeClassifierInterface;
use Zeusi\CircuitBreaker\Outcome;

final class HttpClientOutcomeClassifier implements OutcomeClassifierInterface
{
    public function classifyException(\Throwable $exception): ?Outcome
    {
        return match (true) {
            $exception instanceof TransportExceptionInterface, // refused, timed out
            $exception instanceof ServerExceptionInterface => Outcome::Failure, // 5xx
            $exception instanceof ClientExceptionInterface, // 4xx: the service answered
            $exception instanceof RedirectionExceptionInterface => Outcome::Success,
            default => null, // nothing about the service: register nothing
        };
    }

    public function classifyResult(mixed $result): ?Outcome
    {
        return Outcome::Success; // the errors are thrown when the response is read
    }
}
EXAMPLE;
// Seed README, Synchronous calls (lines 111-131), unchanged.
$gatewayExample = <<<'EXAMPLE'
use Symfony\Contracts\HttpClient\HttpClientInterface;
use Zeusi\CircuitBreaker\CircuitBreakerInterface;
use Zeusi\CircuitBreaker\Execution\CallExecutor;

final class PaymentGateway
{
    private readonly CallExecutor $executor;

    public function __construct(
        private readonly HttpClientInterface $client,
        CircuitBreakerInterface $breaker, // new CircuitBreaker('payments', ...)
    ) {
        $this->executor = new CallExecutor($breaker, new HttpClientOutcomeClassifier());
    }

    public function charge(Order $order): array
    {
        // the response is read within the call, so that the executor sees it complete
        return $this->executor->execute(fn () => $this->client->request('POST', '/charges', ['json' => $order])->toArray());
    }
}
EXAMPLE;
// Seed README, Synchronous calls, the caller (lines 135-139), unchanged.
$chargeExample = <<<'EXAMPLE'
try {
    $charge = $paymentGateway->charge($order);
} catch (CallNotPermittedException) {
    return ChargeResult::deferred(); // the circuit did not permit the call
}
EXAMPLE;
// Seed README, Asynchronous calls (lines 149-156), unchanged.
$gateExample = <<<'EXAMPLE'
use Zeusi\CircuitBreaker\Execution\CallGate;

$gate = new CallGate($breaker, $classifier);

$attempt = $gate->admit(); // throws CallNotPermittedException when the call is not permitted
// start the call, then in whatever callback completes it:
$attempt->registerResult($result, $duration);       // or
$attempt->registerException($exception, $duration); // the duration known by the client, or null
EXAMPLE;
// What the examples assume: Symfony HttpClient's contracts (the few
// interfaces they name), an order, a fallback.
$assumed = <<<'PHP'
namespace Symfony\Contracts\HttpClient\Exception {
    interface ExceptionInterface extends \Throwable {}
    interface TransportExceptionInterface extends ExceptionInterface {}
    interface HttpExceptionInterface extends ExceptionInterface {}
    interface ClientExceptionInterface extends HttpExceptionInterface {}
    interface RedirectionExceptionInterface extends HttpExceptionInterface {}
    interface ServerExceptionInterface extends HttpExceptionInterface {}
}
namespace Symfony\Contracts\HttpClient {
    interface ResponseInterface { public function toArray(bool $throw = true): array; }
    interface HttpClientInterface { public function request(string $method, string $url, array $options = []): ResponseInterface; }
}
namespace {
    use Symfony\Contracts\HttpClient\Exception as E;
    final class TransportException extends \RuntimeException implements E\TransportExceptionInterface {}
    final class ClientException extends \RuntimeException implements E\ClientExceptionInterface {}
    final class ServerException extends \RuntimeException implements E\ServerExceptionInterface {}
    final class Order { public int $amount = 100; }
    final class ChargeResult { public static function deferred(): self { return new self(); } }
    /** Answers each request with the next of its scripted answers: an array, or a Throwable to throw. */
    final class ScriptedHttpClient implements Symfony\Contracts\HttpClient\HttpClientInterface
    {
        public array $sent = [];
        public function __construct(public array $answers) {}
        public function request(string $method, string $url, array $options = []): Symfony\Contracts\HttpClient\ResponseInterface
        {
            $this->sent[] = "$method $url";
            $answer = array_shift($this->answers);
            return new class ($answer) implements Symfony\Contracts\HttpClient\ResponseInterface {
                public function __construct(private mixed $answer) {}
                public function toArray(bool $throw = true): array
                {
                    return $this->answer instanceof Throwable ? throw $this->answer : $this->answer;
                }
            };
        }
    }
}
PHP;
include example_file($assumed);
include example_file($classifierExample);
include example_file($gatewayExample);

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = new CircuitBreaker('payments', $configuration, new InMemoryStorage(), $listener = new RecordingListener());

// A 404 is the caller's error, so a success for the circuit; refused and 5xx are failures.
$client = new ScriptedHttpClient([
    ['id' => 'ch_1'],
    new ClientException('404'),
    new TransportException('refused'),
    new ServerException('503'),
    new TransportException('timed out'),
    new TransportException('timed out'),
]);
$paymentGateway = new PaymentGateway($client, $breaker);
$order = new Order();
$charge = example_file($chargeExample, 'use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;');
for ($i = 0; $i < 8; $i++) {
    try {
        [$returned, $scope] = run_example($charge, compact('paymentGateway', 'order'));
        echo $returned instanceof ChargeResult ? 'deferred' : 'charged ' . json_encode($scope['charge']), "\n";
    } catch (Throwable $e) {
        echo get_class($e), ' ', $e->getMessage(), "\n";
    }
}
echo "requests sent: ", count($client->sent), ", state: ", $breaker->getState()->value, "\n";

// The CallGate example: admit, then the first outcome only is registered.
$gateBreaker = new CircuitBreaker('async', $configuration, new InMemoryStorage());
$classifier = new HttpClientOutcomeClassifier();
$gate = example_file($gateExample);
for ($i = 0; $i < 4; $i++) {
    run_example($gate, ['breaker' => $gateBreaker, 'classifier' => $classifier, 'result' => ['id' => $i], 'exception' => new TransportException('refused'), 'duration' => 0.2]);
}
echo "4 results then 4 exceptions reported by the same attempts: ", $gateBreaker->getState()->value, "\n";
try {
    run_example($gate, ['breaker' => $breaker, 'classifier' => $classifier, 'result' => [], 'exception' => null, 'duration' => null]);
} catch (Zeusi\CircuitBreaker\Exception\CallNotPermittedException $e) {
    echo "admit() on the open circuit: ", get_class($e), ", retry after ", $e->getRetryAfter() > 0 ? 'a positive' : 'no', " delay\n";
}

// The closure form, its `...` placeholders filled in; the closure on results is optional.
use Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier;
use Zeusi\CircuitBreaker\Outcome;
$both = new CallbackOutcomeClassifier(fn (\Throwable $exception) => Outcome::Failure, fn (mixed $result) => $result === 'bad' ? Outcome::Failure : Outcome::Success);
$exceptionsOnly = new CallbackOutcomeClassifier(fn (\Throwable $exception) => null);
echo "CallbackOutcomeClassifier: ", $both->classifyResult('bad')->name, ' ', $both->classifyException(new TransportException())->name, ' ',
    $exceptionsOnly->classifyResult('anything')->name, ' ', var_export($exceptionsOnly->classifyException(new TransportException()), true), "\n";
?>
--EXPECT--
charged {"id":"ch_1"}
ClientException 404
TransportException refused
ServerException 503
deferred
deferred
deferred
deferred
requests sent: 4, state: open
4 results then 4 exceptions reported by the same attempts: closed
admit() on the open circuit: Zeusi\CircuitBreaker\Exception\CallNotPermittedException, retry after a positive delay
CallbackOutcomeClassifier: Failure Failure Success NULL
