--TEST--
With the native HTTP hooks guarding the same host, each transfer made through the middlewares counts once, on the middleware's breaker: Guzzle sync, over streams, async through a Pool, async with a delay (added to curl_multi after the middleware returned), Symfony's CurlHttpClient (completed later, in stream()) and PSR-18; the hooks neither count nor refuse them, and still count a transfer made without a middleware
--EXTENSIONS--
curl
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/../http/fast-breakers.ini
error_log=/dev/null
error_reporting=E_ALL & ~E_DEPRECATED
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

use GuzzleHttp\Client;
use GuzzleHttp\Handler\CurlMultiHandler;
use GuzzleHttp\HandlerStack;
use GuzzleHttp\Pool;
use GuzzleHttp\Psr7\Request;
use Symfony\Component\HttpClient\CurlHttpClient;
use Zeusi\CircuitBreaker\Http\HttpGuard;
use Zeusi\CircuitBreaker\Integration\BreakerFactory;
use Zeusi\CircuitBreaker\Integration\Guzzle\CircuitBreakerMiddleware;
use Zeusi\CircuitBreaker\Integration\Psr18\CircuitBreakerClient;
use Zeusi\CircuitBreaker\Integration\Symfony\CircuitBreakerHttpClient;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$upstream = new Upstream();
$host = "127.0.0.1:{$upstream->port}";
echo 'the hooks guard it: ', HttpGuard::circuitOf($upstream->url('/')), "\n";
// Each middleware has its own breaker (never opening): what it counted.
$breakers = new BreakerFactory(test_configuration(100), new InMemoryStorage());
$url = $upstream->url('/status/503');
$report = function (string $what, string $breaker) use ($breakers, $host) {
    $status = $breakers($breaker)->getStatus();
    echo str_pad($what, 24), "middleware: {$status->calls} calls, {$status->failures} failures; hooks: ", json_encode(counters($host)), "\n";
};

// Guzzle, sync (CurlHandler).
$stack = HandlerStack::create();
$stack->push(CircuitBreakerMiddleware::forService('guzzle-sync', $breakers));
$client = new Client(['handler' => $stack, 'http_errors' => false]);
for ($i = 0; $i < 4; $i++) {
    $client->get($url);
}
$report('guzzle sync', 'guzzle-sync');

// Guzzle over the http:// stream wrapper (StreamHandler).
$stack = HandlerStack::create(new GuzzleHttp\Handler\StreamHandler());
$stack->push(CircuitBreakerMiddleware::forService('guzzle-stream', $breakers));
$client = new Client(['handler' => $stack, 'http_errors' => false]);
for ($i = 0; $i < 4; $i++) {
    $client->get($url);
}
$report('guzzle stream', 'guzzle-stream');

// Guzzle, async (CurlMultiHandler): a Pool, and requests delayed by Guzzle,
// whose handles are added to curl_multi later, in its tick.
$stack = HandlerStack::create(new CurlMultiHandler());
$stack->push(CircuitBreakerMiddleware::forService('guzzle-async', $breakers));
$client = new Client(['handler' => $stack, 'http_errors' => false]);
$requests = (function () use ($url) {
    for ($i = 0; $i < 4; $i++) {
        yield new Request('GET', $url);
    }
})();
(new Pool($client, $requests, ['concurrency' => 4]))->promise()->wait();
GuzzleHttp\Promise\Utils::all([$client->getAsync($url, ['delay' => 30]), $client->getAsync($url, ['delay' => 60])])->wait();
$report('guzzle pool and delayed', 'guzzle-async');

// Symfony's CurlHttpClient: started in request(), completed in stream().
$client = CircuitBreakerHttpClient::forService(new CurlHttpClient(), 'symfony', $breakers);
$responses = [];
for ($i = 0; $i < 4; $i++) {
    $responses[] = $client->request('GET', $url);
}
foreach ($client->stream($responses) as $response => $chunk) {
    if ($chunk->isFirst()) {
        $response->getStatusCode();
    }
}
$report('symfony curl', 'symfony');

// PSR-18 over Guzzle.
$client = CircuitBreakerClient::forService(new Client(), 'psr-18', $breakers);
for ($i = 0; $i < 4; $i++) {
    $client->sendRequest(new Request('GET', $url));
}
$report('psr-18', 'psr-18');

// One client, its middleware guarding one host only: its pooled curl handles
// go from one host to the other, and the other host's transfers are the
// hooks' to count (a handle the middleware used is not the caller's for good).
$other = new Upstream();
$stack = HandlerStack::create();
$stack->push(new CircuitBreakerMiddleware($breakers, fn ($request) => $request->getUri()->getPort() === $upstream->port ? 'mixed' : null));
$client = new Client(['handler' => $stack, 'http_errors' => false]);
foreach ([$url, $other->url('/status/503'), $url, $other->url('/status/503')] as $target) {
    $client->get($target);
}
$report('one host of two', 'mixed');
echo 'the other host, by the hooks: ', json_encode(counters("127.0.0.1:{$other->port}")), "\n";

// The middleware on the hooks' own circuits (HttpGuard::breaker): each
// transfer counted once on the host's circuit; a host the hooks do not
// guard has no breaker there, and goes through unguarded.
$shared = new Upstream();
$stack = HandlerStack::create();
$stack->push(new CircuitBreakerMiddleware(fn (string $name) => HttpGuard::breaker($name)));
$client = new Client(['handler' => $stack, 'http_errors' => false]);
$client->get($shared->url('/status/503'));
$client->get($shared->url('/status/503'));
echo 'on the hooks\' circuit: ', json_encode(counters("127.0.0.1:{$shared->port}")), "\n";
var_dump(HttpGuard::breaker("localhost:{$shared->port}"));
echo 'unguarded host: ', $client->get("http://localhost:{$shared->port}/")->getStatusCode(), ', ', json_encode(counters("localhost:{$shared->port}")), "\n";

// Without a middleware, the hooks count (and open after 3 failures).
$client = new Client(['http_errors' => false]);
for ($i = 0; $i < 3; $i++) {
    $client->get($url);
}
echo 'without a middleware: ', json_encode(counters($host)), "\n";
echo 'served: ', $upstream->served(), "\n";
?>
--EXPECTF--
the hooks guard it: 127.0.0.1:%d
guzzle sync             middleware: 4 calls, 4 failures; hooks: null
guzzle stream           middleware: 4 calls, 4 failures; hooks: null
guzzle pool and delayed middleware: 6 calls, 6 failures; hooks: null
symfony curl            middleware: 4 calls, 4 failures; hooks: null
psr-18                  middleware: 4 calls, 4 failures; hooks: null
one host of two         middleware: 2 calls, 2 failures; hooks: null
the other host, by the hooks: {"state":"closed","callsPermitted":2,"callsRejected":0,"successes":0,"failures":2,"slowCalls":0,"openings":0}
on the hooks' circuit: {"state":"closed","callsPermitted":2,"callsRejected":0,"successes":0,"failures":2,"slowCalls":0,"openings":0}
NULL
unguarded host: 200, null
without a middleware: {"state":"open","callsPermitted":3,"callsRejected":0,"successes":0,"failures":3,"slowCalls":0,"openings":1}
served: 27
