--TEST--
HTTP guard with throttling_k: after 10 answers of 200 and 10 of 503, a share of the next requests is refused as refused connections (result 7, nothing sent), HttpGuard::lastRefusal() saying Throttled, the share falling as the successes let through are counted; the circuit never opens
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/throttling-breakers.ini
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/upstream.inc';
use Zeusi\CircuitBreaker\Http\HttpGuard;

$upstream = new Upstream();
$get = function (string $path) use ($upstream): int {
    $handle = handle($upstream->url($path));
    curl_exec($handle);
    return curl_errno($handle);
};
for ($i = 0; $i < 10; $i++) {
    $get('/status/200');
    $get('/status/503');
}
$breaker = HttpGuard::breaker($upstream->url('/'));
printf("rejection rate %.4f\n", $breaker->getStatus()->rejectionRate);
$served = $upstream->served();
$results = [];
for ($i = 0; $i < 100; $i++) {
    $results[] = $get('/status/200');
}
$counted = array_count_values($results);
ksort($counted);
echo json_encode($counted), ', sent upstream: ', $upstream->served() - $served, "\n";
echo HttpGuard::lastRefusal()->getMessage(), "\n";
var_dump(HttpGuard::lastRefusal()->getReason());
printf("%s, rejection rate %.4f\n", $breaker->getState()->name, $breaker->getStatus()->rejectionRate);
?>
--EXPECTF--
rejection rate 0.3158
{"0":98,"7":2}, sent upstream: 98
Circuit '127.0.0.1:%d' refuses 12% of its calls while its service fails too often (adaptive throttling): this call was not permitted
enum(Zeusi\CircuitBreaker\RejectionReason::Throttled)
Closed, rejection rate 0.0000