--TEST--
HTTP guard, curl_exec: failures open the host's circuit; a refused transfer sends nothing and fails as a refused connection (errno 7); the handle keeps working after it
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/fast-breakers.ini
error_log={PWD}/curl-exec.log
--FILE--
<?php
require __DIR__ . '/upstream.inc';
@unlink(__DIR__ . '/curl-exec.log');
$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";
var_dump(Zeusi\CircuitBreaker\Http\HttpGuard::circuitOf($upstream->url('/x')) === $service);

$failing = handle($upstream->url('/status/503'));
for ($i = 0; $i < 3; $i++) {
    curl_exec($failing);
}
echo 'served: ', $upstream->served(), "\n";
print_r(counters($service));

// Refused: nothing reaches the server, libcurl fails as for a refused connection.
$refused = handle($upstream->url('/status/200'));
var_dump(curl_exec($refused), curl_errno($refused) === CURLE_COULDNT_CONNECT, curl_getinfo($refused, CURLINFO_RESPONSE_CODE));
echo 'served: ', $upstream->served(), "\n";
$refusal = Zeusi\CircuitBreaker\Http\HttpGuard::lastRefusal();
var_dump($refusal instanceof Zeusi\CircuitBreaker\Exception\CallNotPermittedException, $refusal->getService() === $service, $refusal->getState(), $refusal->getRetryAfter() > 0 && $refusal->getRetryAfter() <= 1);

// Another host is not guarded by this circuit.
$other = handle("http://localhost:{$upstream->port}/status/200");
var_dump(curl_exec($other), Zeusi\CircuitBreaker\Http\HttpGuard::circuitOf("http://localhost:{$upstream->port}/"));

// Once the circuit may be tried, the same handle reaches the server: what
// made libcurl refuse was put back.
wait_until_half_open($service);
var_dump(curl_exec($refused), curl_errno($refused));
echo 'served: ', $upstream->served(), "\n";
print_r(counters($service));
foreach (log_lines(__DIR__ . '/curl-exec.log', 'HTTP circuit') as $line) {
    echo preg_replace('~^\[[^]]+\] ~', '', $line), "\n";
}
?>
--CLEAN--
<?php @unlink(__DIR__ . '/curl-exec.log'); ?>
--EXPECTF--
bool(true)
served: 3
Array
(
    [state] => open
    [callsPermitted] => 3
    [callsRejected] => 0
    [successes] => 0
    [failures] => 3
    [slowCalls] => 0
    [openings] => 1
)
bool(false)
bool(true)
int(0)
served: 3
bool(true)
bool(true)
enum(Zeusi\CircuitBreaker\State::Open)
bool(true)
string(11) "status 200
"
NULL
string(11) "status 200
"
int(0)
served: 5
Array
(
    [state] => closed
    [callsPermitted] => 4
    [callsRejected] => 1
    [successes] => 1
    [failures] => 3
    [slowCalls] => 0
    [openings] => 1
)
circuit_breaker: HTTP circuit '127.0.0.1:%d' opened: 3 of 3 calls matched rule #2 of its breaker; open for 1 s
circuit_breaker: HTTP circuit '127.0.0.1:%d' is half-open: trial requests go through
circuit_breaker: HTTP circuit '127.0.0.1:%d' closed
