--TEST--
HttpOutcomeClassifier with CallExecutor, against a real upstream through Symfony HttpClient, Guzzle and PSR-7: 5xx answers and transport errors are failures (and open the circuit), 4xx successes; an exception of a request never sent, and a refusal, count nothing; a configurable list of statuses
--EXTENSIONS--
curl
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
error_reporting=E_ALL & ~E_DEPRECATED
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

use Symfony\Component\HttpClient\HttpClient;
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\Integration\Classifier\HttpOutcomeClassifier;
use Zeusi\CircuitBreaker\Outcome;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$upstream = new Upstream();
$classifier = new HttpOutcomeClassifier();
$storage = new InMemoryStorage();
$run = function (string $name, callable $call) use ($classifier, $storage): string {
    $breaker = new CircuitBreaker($name, test_configuration(100), $storage);
    try {
        (new CallExecutor($breaker, $classifier))->execute($call);
        $how = 'returned';
    } catch (Throwable $e) {
        $how = (new ReflectionClass($e))->getShortName();
    }
    $status = $breaker->getStatus();
    return sprintf('%-12s %-28s %s', $name, $how, $status->calls === 0 ? 'nothing' : ($status->failures === 1 ? 'failure' : 'success'));
};
$symfony = HttpClient::create();
$guzzle = new GuzzleHttp\Client();
$closed = 'http://127.0.0.1:' . closed_port() . '/';

echo $run('sf-500', fn () => $symfony->request('GET', $upstream->url('/status/500'))->toArray()), "\n";
echo $run('sf-503', fn () => $symfony->request('GET', $upstream->url('/status/503'))), "\n";
echo $run('sf-404', fn () => $symfony->request('GET', $upstream->url('/status/404'))->getContent()), "\n";
echo $run('sf-302', fn () => $symfony->request('GET', $upstream->url('/status/302'), ['max_redirects' => 0])->getContent()), "\n";
echo $run('sf-200', fn () => $symfony->request('GET', $upstream->url('/'))->getContent()), "\n";
echo $run('sf-json', fn () => $symfony->request('GET', $upstream->url('/'))->toArray()), "\n";
echo $run('sf-refused', fn () => $symfony->request('GET', $closed)->getContent()), "\n";
echo $run('sf-invalid', fn () => $symfony->request('GET', $upstream->url('/'), ['no such option' => 1])), "\n";
echo $run('gz-503', fn () => $guzzle->get($upstream->url('/status/503'))), "\n";
echo $run('gz-404', fn () => $guzzle->get($upstream->url('/status/404'))), "\n";
echo $run('gz-refused', fn () => $guzzle->get($closed)), "\n";
echo $run('gz-invalid', fn () => $guzzle->get($upstream->url('/'), ['headers' => 'not an array'])), "\n";
echo $run('psr7-502', fn () => $guzzle->get($upstream->url('/status/502'), ['http_errors' => false])), "\n";
echo $run('psr7-429', fn () => $guzzle->get($upstream->url('/status/429'), ['http_errors' => false])), "\n";
echo $run('other', fn () => throw new LogicException('a bug')), "\n";
echo $run('refusal', function () {
    $inner = new CircuitBreaker('inner', test_configuration(), new InMemoryStorage());
    $inner->forceOpen(60);
    return (new CallExecutor($inner))->execute(fn () => 1);
}), "\n";

// The statuses are a list; a classifier that lets other exceptions count nothing.
$strict = new HttpOutcomeClassifier([500, 429], null);
foreach ([429, 503, 500] as $status) {
    echo $status, ': ', $strict->classifyResult(new Nyholm\Psr7\Response($status))->value, "\n";
}
var_dump($strict->classifyException(new LogicException()));

// Five 5xx through CallExecutor open the circuit: the sixth call is refused.
$breaker = new CircuitBreaker('payments', test_configuration(5), new InMemoryStorage());
$executor = new CallExecutor($breaker, $classifier);
$served = $upstream->served();
for ($i = 0; $i < 6; $i++) {
    try {
        $executor->execute(fn () => $symfony->request('GET', $upstream->url('/status/500'))->getContent());
    } catch (CallNotPermittedException $e) {
        echo "refused after ", $upstream->served() - $served, " calls\n";
    } catch (Throwable) {
    }
}
?>
--EXPECT--
sf-500       ServerException              failure
sf-503       returned                     failure
sf-404       ClientException              success
sf-302       RedirectionException         success
sf-200       returned                     success
sf-json      JsonException                success
sf-refused   TransportException           failure
sf-invalid   InvalidArgumentException     nothing
gz-503       ServerException              failure
gz-404       ClientException              success
gz-refused   ConnectException             failure
gz-invalid   InvalidArgumentException     nothing
psr7-502     returned                     failure
psr7-429     returned                     success
other        LogicException               failure
refusal      CallNotPermittedException    nothing
429: failure
503: success
500: failure
NULL
refused after 5 calls
