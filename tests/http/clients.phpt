--TEST--
HTTP guard with the real clients and no breaker code: Guzzle (sync, and async through a Pool) throws its ConnectException, Symfony's CurlHttpClient and NativeHttpClient their TransportException, while the host's circuit is open
--EXTENSIONS--
curl
--SKIPIF--
<?php
if (!is_file('/usr/share/php/GuzzleHttp/autoload.php') || !is_dir('/usr/share/php/Symfony/Component/HttpClient')) die('skip Guzzle and Symfony HttpClient (php-guzzlehttp-guzzle, php-symfony-http-client) are not installed');
?>
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/fast-breakers.ini
error_log=/dev/null
error_reporting=E_ALL & ~E_DEPRECATED
--FILE--
<?php
require __DIR__ . '/upstream.inc';
require '/usr/share/php/GuzzleHttp/autoload.php';
require '/usr/share/php/Symfony/Component/HttpClient/autoload.php';

use GuzzleHttp\Exception\ConnectException;
use Symfony\Contracts\HttpClient\Exception\TransportExceptionInterface;

$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";
$guzzle = new GuzzleHttp\Client(['http_errors' => false]);

// Guzzle sync: three 503s open the circuit; then a ConnectException.
for ($i = 0; $i < 3; $i++) {
    echo $guzzle->get($upstream->url('/status/503'))->getStatusCode(), "\n";
}
$served = $upstream->served();
try {
    $guzzle->get($upstream->url('/'));
} catch (ConnectException $e) {
    echo get_class($e), ': ', $e->getHandlerContext()['errno'], "\n";
}

// Guzzle async through a Pool.
$requests = function () use ($upstream) {
    for ($i = 0; $i < 3; $i++) {
        yield new GuzzleHttp\Psr7\Request('GET', $upstream->url('/'));
    }
};
$rejected = 0;
(new GuzzleHttp\Pool($guzzle, $requests(), ['concurrency' => 3, 'rejected' => function ($reason) use (&$rejected) {
    $rejected += $reason instanceof ConnectException ? 1 : 0;
}]))->promise()->wait();
echo "pool: $rejected rejected as ConnectException\n";

// Symfony HttpClient, both transports.
foreach ([new Symfony\Component\HttpClient\CurlHttpClient(), new Symfony\Component\HttpClient\NativeHttpClient()] as $client) {
    try {
        $client->request('GET', $upstream->url('/'))->getStatusCode();
    } catch (TransportExceptionInterface $e) {
        echo (new ReflectionClass($client))->getShortName(), ': ', get_class($e), "\n";
    }
}
var_dump($upstream->served() === $served);

// Once the circuit may be tried, a successful trial closes it for all.
wait_until_half_open($service);
echo $guzzle->get($upstream->url('/'))->getStatusCode(), "\n";
echo (new Symfony\Component\HttpClient\NativeHttpClient())->request('GET', $upstream->url('/'))->getStatusCode(), "\n";
echo counters($service)['state'], "\n";
?>
--EXPECT--
503
503
503
GuzzleHttp\Exception\ConnectException: 7
pool: 3 rejected as ConnectException
CurlHttpClient: Symfony\Component\HttpClient\Exception\TransportException
NativeHttpClient: Symfony\Component\HttpClient\Exception\TransportException
bool(true)
200
200
closed
