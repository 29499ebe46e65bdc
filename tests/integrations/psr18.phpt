--TEST--
PSR-18 decorator over Guzzle's and Symfony's PSR-18 clients (nyholm PSR-7 messages): 500s open the breaker, a 404 is a success, a refused connection a failure; the refusal is a NetworkExceptionInterface with the request, carrying the CallNotPermittedException, nothing sent
--EXTENSIONS--
curl
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
error_reporting=E_ALL & ~E_DEPRECATED
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

use Nyholm\Psr7\Factory\Psr17Factory;
use Psr\Http\Client\NetworkExceptionInterface;
use Symfony\Component\HttpClient\Psr18Client;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Integration\BreakerFactory;
use Zeusi\CircuitBreaker\Integration\Psr18\CircuitBreakerClient;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$factory = new Psr17Factory();
foreach (['Guzzle' => new GuzzleHttp\Client(), 'Symfony' => new Psr18Client(null, $factory, $factory)] as $name => $inner) {
    echo "== $name\n";
    $upstream = new Upstream();
    $breakers = new BreakerFactory(test_configuration(3), new InMemoryStorage());
    $client = new CircuitBreakerClient($inner, $breakers);
    $breaker = $breakers("127.0.0.1:{$upstream->port}");

    echo $client->sendRequest($factory->createRequest('GET', $upstream->url('/status/404')))->getStatusCode(), "\n";
    for ($i = 0; $i < 3; $i++) {
        echo $client->sendRequest($factory->createRequest('GET', $upstream->url('/status/500')))->getStatusCode(), "\n";
    }
    echo window($breaker), "\n";
    $served = $upstream->served();
    $request = $factory->createRequest('GET', $upstream->url('/'));
    try {
        $client->sendRequest($request);
    } catch (NetworkExceptionInterface $e) {
        echo get_class($e), ' < ', get_class($e->getPrevious()), "\n";
        var_dump($e->getRequest() === $request, $e->getRetryAfter() > 59);
    }
    var_dump($upstream->served() === $served);

    $port = closed_port();
    try {
        $client->sendRequest($factory->createRequest('GET', "http://127.0.0.1:$port/"));
    } catch (NetworkExceptionInterface $e) {
        echo 'refused connection: ', $e instanceof CallNotPermittedException ? 'refusal' : 'network error', "\n";
    }
    echo window($breakers("127.0.0.1:$port")), "\n";
}
?>
--EXPECT--
== Guzzle
404
500
500
500
open calls=0 failures=0 slow=0
Zeusi\CircuitBreaker\Integration\Psr18\CircuitOpenException < Zeusi\CircuitBreaker\Exception\CallNotPermittedException
bool(true)
bool(true)
bool(true)
refused connection: network error
closed calls=1 failures=1 slow=0
== Symfony
404
500
500
500
open calls=0 failures=0 slow=0
Zeusi\CircuitBreaker\Integration\Psr18\CircuitOpenException < Zeusi\CircuitBreaker\Exception\CallNotPermittedException
bool(true)
bool(true)
bool(true)
refused connection: network error
closed calls=1 failures=1 slow=0
