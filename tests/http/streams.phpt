--TEST--
HTTP guard, the http stream wrapper: file_get_contents and fopen counted by status (a 404 is an answer, a 503 a failure, with or without ignore_errors), a refused open warns naming the circuit and sends nothing
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/fast-breakers.ini
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/upstream.inc';
$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";

var_dump(file_get_contents($upstream->url('/')));
var_dump(@file_get_contents($upstream->url('/status/404')));
$ignoring = stream_context_create(['http' => ['ignore_errors' => true]]);
var_dump(file_get_contents($upstream->url('/status/404'), false, $ignoring));
// A redirect is followed: the final status counts.
var_dump(file_get_contents($upstream->url("/redirect/{$upstream->port}")));
$c = counters($service);
echo "successes {$c['successes']}, failures {$c['failures']}\n";

var_dump(@file_get_contents($upstream->url('/status/503')));
var_dump(file_get_contents($upstream->url('/status/500'), false, $ignoring));
var_dump(@fopen($upstream->url('/status/504'), 'r'));
$c = counters($service);
echo "{$c['state']}: successes {$c['successes']}, failures {$c['failures']}\n";
$served = $upstream->served();

var_dump(file_get_contents($upstream->url('/')));
var_dump($upstream->served() === $served);
var_dump(Zeusi\CircuitBreaker\Http\HttpGuard::lastRefusal()?->getService() === $service);

// A port nothing listens on: a transport failure.
$closed = stream_socket_server('tcp://127.0.0.1:0');
$port = explode(':', stream_socket_get_name($closed, false))[1];
fclose($closed);
var_dump(@file_get_contents("http://127.0.0.1:$port/"));
echo counters("127.0.0.1:$port")['failures'], "\n";
?>
--EXPECTF--
string(11) "status 200
"
bool(false)
string(11) "status 404
"
string(11) "status 200
"
successes 4, failures 0
bool(false)
string(11) "status 500
"
bool(false)
open: successes 4, failures 3

Warning: file_get_contents(http://127.0.0.1:%d/): Failed to open stream: the circuit breaker of '127.0.0.1:%d' is open: no request for %s s in %s on line %d
bool(false)
bool(true)
bool(true)
bool(false)
1
