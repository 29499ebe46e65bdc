--TEST--
Guzzle middleware, async: a Pool of concurrent 503s (the transfers overlap) registers each outcome when its promise settles and opens the breaker; then a Pool and requestAsync() are rejected with the ConnectException carrying the CallNotPermittedException, nothing sent; Guzzle's retry middleware above it sees a connection failure
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
use GuzzleHttp\Handler\CurlMultiHandler;
use GuzzleHttp\HandlerStack;
use GuzzleHttp\Middleware;
use GuzzleHttp\Pool;
use GuzzleHttp\Psr7\Request;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Integration\BreakerFactory;
use Zeusi\CircuitBreaker\Integration\Guzzle\CircuitBreakerMiddleware;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$upstream = new Upstream();
$breakers = new BreakerFactory(test_configuration(4), new InMemoryStorage());
$stack = HandlerStack::create(new CurlMultiHandler());
$stack->push(new CircuitBreakerMiddleware($breakers));
$client = new Client(['handler' => $stack, 'http_errors' => false]);
$breaker = $breakers("127.0.0.1:{$upstream->port}");

// Four requests that each take 300 ms, four at a time.
$requests = function (int $count, string $path) use ($upstream) {
    for ($i = 0; $i < $count; $i++) {
        yield new Request('GET', $upstream->url($path));
    }
};
$statuses = [];
$started = microtime(true);
$promise = (new Pool($client, $requests(4, '/status/503/300'), [
    'concurrency' => 4,
    'fulfilled' => function ($response) use (&$statuses, $breaker) {
        // Registered before the application's callback runs.
        $status = $breaker->getStatus();
        $statuses[] = $response->getStatusCode() . ': ' . ($status->state->value === 'open' || $status->failures > 0 ? 'counted' : 'not counted');
    },
]))->promise();
echo 'before wait: ', window($breaker), "\n";
$promise->wait();
$elapsed = microtime(true) - $started;
echo implode("\n", $statuses), "\n";
echo $elapsed < 1.0 ? "concurrent\n" : "sequential: $elapsed s\n";
echo window($breaker), "\n";

// Open: every request of a Pool rejected, nothing sent.
$served = $upstream->served();
$reasons = [];
(new Pool($client, $requests(3, '/'), [
    'concurrency' => 3,
    'rejected' => function ($reason) use (&$reasons) {
        $reasons[] = get_class($reason) . ' < ' . get_class($reason->getPrevious()) . ' retry after ' . ($reason->getRetryAfter() > 0 ? '> 0' : '?');
    },
]))->promise()->wait();
echo implode("\n", $reasons), "\n";
$async = $client->getAsync($upstream->url('/'))->then(null, fn ($reason) => $reason instanceof ConnectException && $reason->getPrevious() instanceof CallNotPermittedException ? 'rejected as ConnectException' : 'other');
echo $async->wait(), "\n";

// Guzzle's retry middleware, above it (pushed before it): it retries the
// refusal as a connection failure.
$retries = 0;
$stack = HandlerStack::create(new CurlMultiHandler());
$stack->push(Middleware::retry(function (int $retry, $request, $response, $reason) use (&$retries) {
    if ($retry < 2 && $reason instanceof ConnectException) {
        $retries++;
        return true;
    }
    return false;
}, fn () => 1));
$stack->push(new CircuitBreakerMiddleware($breakers));
try {
    (new Client(['handler' => $stack]))->get($upstream->url('/'));
} catch (ConnectException $e) {
    echo "retried $retries times, then ", get_class($e), "\n";
}
var_dump($upstream->served() === $served);
?>
--EXPECT--
before wait: closed calls=0 failures=0 slow=0
503: counted
503: counted
503: counted
503: counted
concurrent
open calls=0 failures=0 slow=0
Zeusi\CircuitBreaker\Integration\Guzzle\CircuitOpenException < Zeusi\CircuitBreaker\Exception\CallNotPermittedException retry after > 0
Zeusi\CircuitBreaker\Integration\Guzzle\CircuitOpenException < Zeusi\CircuitBreaker\Exception\CallNotPermittedException retry after > 0
Zeusi\CircuitBreaker\Integration\Guzzle\CircuitOpenException < Zeusi\CircuitBreaker\Exception\CallNotPermittedException retry after > 0
rejected as ConnectException
retried 2 times, then Zeusi\CircuitBreaker\Integration\Guzzle\CircuitOpenException
bool(true)
