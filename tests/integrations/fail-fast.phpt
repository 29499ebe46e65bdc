--TEST--
PSR-15 FailFast middleware with real PSR-7 messages (nyholm): 503 with Retry-After (the longest open remainder, whole seconds rounded up) while a breaker of the route is open or forced open, without running the route; the route runs when every breaker is closed or half-open, and when a storage fails; statuses only are read (nothing counted)
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
error_reporting=E_ALL & ~E_DEPRECATED
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
require __DIR__ . '/psr15-interfaces.inc'; // TEST-ONLY: PSR-15 is not packaged in Debian

use Nyholm\Psr7\Factory\Psr17Factory;
use Nyholm\Psr7\Response;
use Nyholm\Psr7\ServerRequest;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Integration\Psr15\FailFastMiddleware;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;

final class Route implements RequestHandlerInterface
{
    public int $handled = 0;
    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $this->handled++;
        return new Response(200, [], 'paid');
    }
}
final class Down implements KeyValueStoreInterface
{
    public function increment(string $key, int $ttl): int { throw new RuntimeException('down'); }
    public function getMultiple(array $keys): array { throw new RuntimeException('down'); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { throw new RuntimeException('down'); }
}

$clock = new MockClock(1_000_000);
$storage = new InMemoryStorage($clock);
$payments = new CircuitBreaker('payments', test_configuration(2, 30), $storage, null, $clock);
$stock = new CircuitBreaker('stock', test_configuration(2, 30), $storage, null, $clock);
$route = new Route();
$middleware = new FailFastMiddleware([$payments, $stock], new Psr17Factory());
$request = new ServerRequest('POST', '/v1/payments');
$show = function () use ($middleware, $request, $route) {
    $response = $middleware->process($request, $route);
    return $response->getStatusCode() . ' Retry-After: ' . ($response->getHeaderLine('Retry-After') ?: '-') . " (route ran {$route->handled})";
};

echo 'closed: ', $show(), "\n";
$payments->registerFailure();
$payments->registerFailure();
echo 'payments open: ', $show(), "\n";
$clock->sleep(10.2);
$stock->forceOpen(12.5);
echo 'and stock forced open: ', $show(), "\n";
$clock->sleep(12.6);
echo 'stock back, payments 7.2 s left: ', $show(), "\n";
$clock->sleep(7.4);
echo 'payments half-open: ', $show(), "\n";
echo $payments->getStatus()->state->value, ', counted: ', $payments->getStatus()->calls, "\n";

$broken = new FailFastMiddleware([new CircuitBreaker('ledger', test_configuration(), new Down())], new Psr17Factory());
echo 'storage down: ', $broken->process($request, $route)->getStatusCode(), "\n";
try {
    new FailFastMiddleware([new stdClass()], new Psr17Factory());
} catch (TypeError $e) {
    echo "not a breaker: TypeError\n";
}
?>
--EXPECT--
closed: 200 Retry-After: - (route ran 1)
payments open: 503 Retry-After: 30 (route ran 1)
and stock forced open: 503 Retry-After: 20 (route ran 1)
stock back, payments 7.2 s left: 503 Retry-After: 8 (route ran 1)
payments half-open: 200 Retry-After: - (route ran 2)
half_open, counted: 0
storage down: 200
not a breaker: TypeError
