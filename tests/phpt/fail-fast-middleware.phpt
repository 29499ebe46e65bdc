--TEST--
examples/fail-fast: the PSR-15 middleware answers 503 with Retry-After (whole seconds, rounded up) from the longest open remainder while a service of the route is open or forced open; lets the request through when every circuit is closed or half-open (a candidate trial); reads statuses only (nothing acquired or counted); a failing storage does not fail the route
--FILE--
<?php
require __DIR__ . '/../../examples/fail-fast/psr-stand-ins.php';
require __DIR__ . '/../../examples/fail-fast/FailFastMiddleware.php';

use Example\FailFast\FailFastMiddleware;
use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

// Stand-in request and response: the middleware needs nothing more.
final class Response implements ResponseInterface
{
    public function __construct(private int $status, private array $headers = []) {}
    public function getStatusCode(): int { return $this->status; }
    public function getHeaderLine(string $name): string { return implode(',', $this->headers[strtolower($name)] ?? []); }
    public function withHeader(string $name, $value): static
    {
        $copy = clone $this;
        $copy->headers[strtolower($name)] = (array) $value;
        return $copy;
    }
}
final class Request implements ServerRequestInterface
{
    public function getHeaderLine(string $name): string { return ''; }
    public function withHeader(string $name, $value): static { return clone $this; }
}
final class Responses implements ResponseFactoryInterface
{
    public function createResponse(int $code = 200, string $reasonPhrase = ''): ResponseInterface { return new Response($code); }
}
/** The route: calls 'payments' through its breaker, as a real handler would. */
final class Route implements RequestHandlerInterface
{
    public int $handled = 0;
    public function __construct(private CircuitBreaker $payments) {}
    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $this->handled++;
        if (!$this->payments->acquirePermission()) {
            return new Response(503);
        }
        $this->payments->registerSuccess();
        return new Response(200);
    }
}

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 2)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$clock = new MockClock(1_764_000_000);
$storage = new InMemoryStorage($clock);
$payments = new CircuitBreaker('payments', $configuration, $storage, null, $clock);
$stock = new CircuitBreaker('stock', $configuration, $storage, null, $clock);
$route = new Route($payments);
$middleware = new FailFastMiddleware([$payments, $stock], new Responses());
$show = function (string $when) use ($middleware, $route, $payments, $stock) {
    $before = $route->handled;
    $response = $middleware->process(new Request(), $route);
    printf(
        "%s: %d%s, route %s (payments %s, stock %s)\n",
        $when,
        $response->getStatusCode(),
        $response->getHeaderLine('Retry-After') === '' ? '' : ' Retry-After: ' . $response->getHeaderLine('Retry-After'),
        $route->handled > $before ? 'ran' : 'not run',
        $payments->getState()->value,
        $stock->getState()->value,
    );
};
$open = function (CircuitBreaker $breaker) {
    $breaker->registerFailure();
    $breaker->registerFailure();
};

$show('closed');
$open($payments);
$clock->sleep(3.2);
$show('payments open 3.2 s ago');
$counters = $storage->listCircuits('payments')[0]->counters;
$show('again');
echo 'nothing acquired or counted by the middleware: ', json_encode($storage->listCircuits('payments')[0]->counters === $counters), "\n";
$clock->sleep(2);
$open($stock);                 // opened 5.2 s after payments: ends later
$clock->sleep(0.5);
$show('both open');
$stock->forceOpen(120);
$show('stock forced open');
$stock->reset();
$clock->sleep(4.4);            // payments: open for 10 s, 10.1 s ago
$show('payments half-open');   // the route's call is the trial, and closes it
$show('closed again');

// A breaker whose storage fails: getStatus() throws, the route goes on.
final class FailingStorage implements StorageInterface
{
    public function increment(string $key, int $ttl): int { throw new RuntimeException('down'); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { throw new RuntimeException('down'); }
    public function getMultiple(array $keys): array { throw new RuntimeException('down'); }
}
$down = new CircuitBreaker('down', $configuration, new FailingStorage(), null, $clock);
try {
    $down->getStatus();
} catch (Zeusi\CircuitBreaker\Exception\StorageException $e) {
    echo "getStatus() throws ", get_class($e), "\n";
}
$response = (new FailFastMiddleware([$down], new Responses()))->process(new Request(), $route);
echo 'storage failing: ', $response->getStatusCode(), "\n";
?>
--EXPECT--
closed: 200, route ran (payments closed, stock closed)
payments open 3.2 s ago: 503 Retry-After: 7, route not run (payments open, stock closed)
again: 503 Retry-After: 7, route not run (payments open, stock closed)
nothing acquired or counted by the middleware: true
both open: 503 Retry-After: 10, route not run (payments open, stock open)
stock forced open: 503 Retry-After: 120, route not run (payments open, stock open)
payments half-open: 200, route ran (payments closed, stock closed)
closed again: 200, route ran (payments closed, stock closed)
getStatus() throws Zeusi\CircuitBreaker\Exception\StorageException
storage failing: 200
