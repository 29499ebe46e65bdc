--TEST--
Guzzle middleware, sync: 503s (as responses, and as ServerException with http_errors) open the host's breaker; the refusal is a ConnectException carrying the CallNotPermittedException and its retry-after, and sends nothing; a 404 is a success; the duration comes from the transfer stats, the application's own on_stats still runs
--EXTENSIONS--
curl
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
error_reporting=E_ALL & ~E_DEPRECATED
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

use GuzzleHttp\Client;
use GuzzleHttp\Exception\ConnectException;
use GuzzleHttp\Exception\ServerException;
use GuzzleHttp\HandlerStack;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Integration\BreakerFactory;
use Zeusi\CircuitBreaker\Integration\Guzzle\CircuitBreakerMiddleware;
use Zeusi\CircuitBreaker\Integration\Guzzle\CircuitOpenException;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$upstream = new Upstream();
$breakers = new BreakerFactory(test_configuration(3), new InMemoryStorage());
$stack = HandlerStack::create();
$stack->push(new CircuitBreakerMiddleware($breakers), 'circuit_breaker');
$client = new Client(['handler' => $stack, 'http_errors' => false]);
$breaker = $breakers("127.0.0.1:{$upstream->port}");

// A 404 and a slow 200: successes; the slow one counted slow from its stats.
$seen = 0;
echo $client->get($upstream->url('/status/404'))->getStatusCode(), "\n";
echo $client->get($upstream->url('/delay/120'), ['on_stats' => function () use (&$seen) { $seen++; }])->getStatusCode(), "\n";
echo "their on_stats: $seen\n";
echo window($breaker), "\n";

// Two 503 answers and a ServerException (http_errors): three failures.
echo $client->get($upstream->url('/status/503'))->getStatusCode(), "\n";
echo $client->get($upstream->url('/status/502'))->getStatusCode(), "\n";
try {
    $client->get($upstream->url('/status/503'), ['http_errors' => true]);
} catch (ServerException $e) {
    echo get_class($e), "\n";
}
echo window($breaker), "\n";

// Open: refused, nothing sent.
$served = $upstream->served();
try {
    $client->get($upstream->url('/'));
} catch (ConnectException $e) {
    echo get_class($e), "\n";
    var_dump($e instanceof ConnectException, $e->getPrevious() instanceof CallNotPermittedException);
    echo $e->getService(), ' ', $e->getPrevious()->getService(), "\n";
    var_dump($e->getRetryAfter() > 59 && $e->getRetryAfter() <= 60, $e->getHandlerContext()['retry_after'] === $e->getRetryAfter());
    echo $e->getMessage() === "The circuit breaker '127.0.0.1:{$upstream->port}' refused the request to {$upstream->url('/')}: it is open, retry in " . round($e->getRetryAfter(), 3) . ' s' ? "message ok\n" : $e->getMessage();
}
var_dump($upstream->served() === $served);
echo window($breaker), "\n";

// Another host has its own breaker; forService() puts every host in one.
$other = new Upstream();
echo $client->get($other->url('/'))->getStatusCode(), "\n";
$stack = HandlerStack::create();
$stack->push(CircuitBreakerMiddleware::forService('payments', $breakers));
$payments = new Client(['handler' => $stack, 'http_errors' => false]);
echo $payments->get($other->url('/status/500'))->getStatusCode(), ' ', $payments->get($upstream->url('/status/504'))->getStatusCode(), "\n";
echo window($breakers('payments')), "\n";
echo window($breakers("127.0.0.1:{$other->port}")), "\n";
?>
--EXPECTF--
404
200
their on_stats: 1
closed calls=2 failures=0 slow=1
503
502
GuzzleHttp\Exception\ServerException
open calls=0 failures=0 slow=0
Zeusi\CircuitBreaker\Integration\Guzzle\CircuitOpenException
bool(true)
bool(true)
127.0.0.1:%d 127.0.0.1:%d
bool(true)
bool(true)
message ok
bool(true)
open calls=0 failures=0 slow=0
200
500 504
closed calls=2 failures=2 slow=0
closed calls=1 failures=0 slow=0
