--TEST--
Symfony decorator with RetryableHttpClient: retries above it go through the breaker one by one (the 503s open it, the next retry is refused as a transport error, nothing more sent); retries below it count once per request, by its last answer
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
use Symfony\Component\HttpClient\Retry\GenericRetryStrategy;
use Symfony\Component\HttpClient\RetryableHttpClient;
use Symfony\Contracts\HttpClient\Exception\TransportExceptionInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Integration\BreakerFactory;
use Zeusi\CircuitBreaker\Integration\Symfony\CircuitBreakerHttpClient;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$upstream = new Upstream();
$retries = fn ($client, int $max) => new RetryableHttpClient($client, new GenericRetryStrategy([503], 1, 1.0), $max);

// Retries above the breaker: 3 attempts answered 503 open it; the 4th and
// 5th attempts are refused, as transport errors, without reaching the upstream.
$breakers = new BreakerFactory(test_configuration(3), new InMemoryStorage());
$client = $retries(new CircuitBreakerHttpClient(new CurlHttpClient(), $breakers), 4);
try {
    $client->request('GET', $upstream->url('/status/503'))->getStatusCode();
} catch (TransportExceptionInterface $e) {
    $chain = [];
    for ($previous = $e; $previous; $previous = $previous->getPrevious()) {
        $chain[] = (new ReflectionClass($previous))->getShortName();
    }
    echo implode(' < ', $chain), "\n";
}
echo window($breakers("127.0.0.1:{$upstream->port}")), ', served: ', $upstream->served(), "\n";

// Retries below the breaker: one request, three attempts, one outcome.
$breakers = new BreakerFactory(test_configuration(3), new InMemoryStorage());
$client = new CircuitBreakerHttpClient($retries(new CurlHttpClient(), 2), $breakers);
echo $client->request('GET', $upstream->url('/status/503'))->getStatusCode(), "\n";
echo window($breakers("127.0.0.1:{$upstream->port}")), ', served: ', $upstream->served(), "\n";
?>
--EXPECT--
TransportException < CircuitOpenException < CallNotPermittedException
open calls=0 failures=0 slow=0, served: 3
503
closed calls=1 failures=1 slow=0, served: 6
