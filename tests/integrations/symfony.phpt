--TEST--
Symfony HttpClient decorator (CurlHttpClient and NativeHttpClient): request() returns at once, lazy (nothing counted, nothing waited for); concurrent responses each register their outcome when they complete; 503s open the breaker; the refusal is a TransportExceptionInterface carrying the CallNotPermittedException, thrown when the response is read, nothing sent; stream() yields an error chunk for it; a 404 is a success, a refused connection a failure
--EXTENSIONS--
curl
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
error_reporting=E_ALL & ~E_DEPRECATED
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

use Symfony\Component\HttpClient\CurlHttpClient;
use Symfony\Component\HttpClient\NativeHttpClient;
use Symfony\Contracts\HttpClient\Exception\TransportExceptionInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Integration\BreakerFactory;
use Zeusi\CircuitBreaker\Integration\Symfony\CircuitBreakerHttpClient;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

foreach ([new CurlHttpClient(), new NativeHttpClient()] as $inner) {
    echo '== ', (new ReflectionClass($inner))->getShortName(), "\n";
    $upstream = new Upstream();
    $breakers = new BreakerFactory(test_configuration(3), new InMemoryStorage());
    $client = new CircuitBreakerHttpClient($inner, $breakers);
    $breaker = $breakers("127.0.0.1:{$upstream->port}");

    // Three requests of 300 ms each: request() waits for none of them.
    $started = microtime(true);
    $responses = [];
    for ($i = 0; $i < 3; $i++) {
        $responses[] = $client->request('GET', $upstream->url('/status/503/300'));
    }
    $requested = microtime(true) - $started;
    echo $requested < 0.15 ? 'lazy' : "request() waited $requested s", ': ', window($breaker), "\n";
    $done = [];
    foreach ($client->stream($responses) as $response => $chunk) {
        if ($chunk->isFirst()) {
            $response->getStatusCode(); // checked: no ServerException
        } elseif ($chunk->isLast()) {
            $status = $breaker->getStatus();
            $done[] = $response->getStatusCode() . ': ' . ($status->state->value === 'open' ? 'open' : "{$status->failures} counted");
        }
    }
    $elapsed = microtime(true) - $started;
    echo implode("\n", $done), "\n";
    // NativeHttpClient's fopen() waits for each response's headers: only
    // CurlHttpClient overlaps these three.
    if ($inner instanceof CurlHttpClient) {
        echo $elapsed < 0.85 ? "concurrent\n" : "sequential: $elapsed s\n";
    }

    // Open: request() returns, reading the response throws the refusal.
    $served = $upstream->served();
    $refused = $client->request('GET', $upstream->url('/'));
    try {
        $refused->getStatusCode();
    } catch (TransportExceptionInterface $e) {
        echo get_class($e), ' < ', get_class($e->getPrevious()), "\n";
        var_dump($e->getPrevious() instanceof CallNotPermittedException, $e->getRetryAfter() > 59, $e->getService() === "127.0.0.1:{$upstream->port}");
    }
    // stream(): one error chunk, which throws the refusal as a transport error.
    foreach ($client->stream([$client->request('GET', $upstream->url('/'))]) as $chunk) {
        try {
            $chunk->isFirst();
        } catch (TransportExceptionInterface $e) {
            echo 'chunk: ', get_class($e), "\n";
        }
    }
    var_dump($upstream->served() === $served);

    // A 404 is a success, a refused connection a failure (another breaker).
    $other = new Upstream();
    echo $client->request('GET', $other->url('/status/404'))->getStatusCode(), "\n";
    $port = closed_port();
    try {
        $client->request('GET', "http://127.0.0.1:$port/")->getContent();
    } catch (TransportExceptionInterface $e) {
        echo 'refused connection: ', get_class($e), "\n";
    }
    echo window($breakers("127.0.0.1:{$other->port}")), ' / ', window($breakers("127.0.0.1:$port")), "\n";

    // A response dropped after its headers counts by its status; a slow one
    // counts slow (its total_time).
    $response = $client->request('GET', $other->url('/status/500'));
    $response->getHeaders(false);
    unset($response);
    $client->request('GET', $other->url('/delay/100'))->getContent();
    echo window($breakers("127.0.0.1:{$other->port}")), "\n";
}

// Relative URLs: named by the base_uri option; with a base URI only the
// decorated client knows, by forService().
echo '== base URIs', "\n";
$breakers = new BreakerFactory(test_configuration(3), new InMemoryStorage());
$client = new CircuitBreakerHttpClient(new CurlHttpClient(), $breakers);
echo $client->request('GET', '/status/500', ['base_uri' => $other->url('/')])->getStatusCode(), "\n";
echo window($breakers("127.0.0.1:{$other->port}")), "\n";
$client = CircuitBreakerHttpClient::forService(Symfony\Component\HttpClient\HttpClient::createForBaseUri($other->url('/')), 'api', $breakers);
echo $client->request('GET', '/status/502')->getStatusCode(), "\n";
echo window($breakers('api')), "\n";
?>
--EXPECT--
== CurlHttpClient
lazy: closed calls=0 failures=0 slow=0
503: 1 counted
503: 2 counted
503: open
concurrent
Zeusi\CircuitBreaker\Integration\Symfony\CircuitOpenException < Zeusi\CircuitBreaker\Exception\CallNotPermittedException
bool(true)
bool(true)
bool(true)
chunk: Zeusi\CircuitBreaker\Integration\Symfony\CircuitOpenException
bool(true)
404
refused connection: Symfony\Component\HttpClient\Exception\TransportException
closed calls=1 failures=0 slow=0 / closed calls=1 failures=1 slow=0
closed calls=3 failures=1 slow=1
== NativeHttpClient
lazy: closed calls=0 failures=0 slow=0
503: 1 counted
503: 2 counted
503: open
Zeusi\CircuitBreaker\Integration\Symfony\CircuitOpenException < Zeusi\CircuitBreaker\Exception\CallNotPermittedException
bool(true)
bool(true)
bool(true)
chunk: Zeusi\CircuitBreaker\Integration\Symfony\CircuitOpenException
bool(true)
404
refused connection: Symfony\Component\HttpClient\Exception\TransportException
closed calls=1 failures=0 slow=0 / closed calls=1 failures=1 slow=0
closed calls=3 failures=1 slow=1
== base URIs
500
closed calls=1 failures=1 slow=0
502
closed calls=1 failures=1 slow=0
