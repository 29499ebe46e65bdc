--TEST--
HTTP guard: a half-open trial lasts at most the probe timeout whatever the client's timeout (curl and streams), and the client's own timeout is back afterwards
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/fast-breakers.ini
error_log=/dev/null
default_socket_timeout=20
--FILE--
<?php
require __DIR__ . '/upstream.inc';
$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";

function open_circuit(Upstream $upstream): void
{
    for ($i = 0; $i < 3; $i++) {
        curl_exec(handle($upstream->url('/status/500')));
    }
}

// curl: a trial to a server that answers in 3 s, with a 10 s client
// timeout, is cut at the 0.5 s probe timeout.
open_circuit($upstream);
wait_until_half_open($service);
$slow = handle($upstream->url('/delay/3000'));
curl_setopt($slow, CURLOPT_TIMEOUT, 10);
$started = microtime(true);
var_dump(curl_exec($slow), curl_errno($slow) === CURLE_OPERATION_TIMEDOUT);
$took = microtime(true) - $started;
echo $took < 2 ? "cut at the probe timeout\n" : "took $took s\n";
echo counters($service)['state'], "\n";

// A successful trial closes the circuit; then the same handle waits as long
// as its own timeout allows again.
wait_until_half_open($service);
var_dump(curl_exec(handle($upstream->url('/'))) !== false, counters($service)['state']);
curl_setopt($slow, CURLOPT_URL, $upstream->url('/delay/900'));
var_dump(curl_exec($slow));

// Streams: default_socket_timeout (20 s) is capped for the trial only.
open_circuit($upstream);
wait_until_half_open($service);
$started = microtime(true);
var_dump(@file_get_contents($upstream->url('/delay/3000')));
$took = microtime(true) - $started;
echo $took < 2 ? "cut at the probe timeout\n" : "took $took s\n";
echo ini_get('default_socket_timeout'), "\n";
?>
--EXPECT--
bool(false)
bool(true)
cut at the probe timeout
open
bool(true)
string(6) "closed"
string(11) "status 200
"
bool(false)
cut at the probe timeout
20
