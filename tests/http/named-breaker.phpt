--TEST--
HTTP guard: a breaker of the file reached by its name (HttpGuard::breaker()) is a CircuitBreakerInterface and ManualControlInterface on the circuit the hooks use: forceOpen() refuses the transfers, getStatus() shows it, a CallExecutor runs on it
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_config={PWD}/observe-breakers.ini
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/upstream.inc';
use Zeusi\CircuitBreaker\Http\HttpGuard;
$upstream = new Upstream();
$breaker = HttpGuard::breaker('loopback');
var_dump($breaker instanceof Zeusi\CircuitBreaker\CircuitBreakerInterface, $breaker instanceof Zeusi\CircuitBreaker\ManualControlInterface);
var_dump($breaker->getService(), $breaker->getState());
var_dump(HttpGuard::breaker('nowhere'), HttpGuard::breaker("127.0.0.1:{$upstream->port}")?->getService());

// Forced open: the transfers to its hosts are refused, nothing is sent.
$breaker->forceOpen(60);
$status = $breaker->getStatus();
var_dump($status->state, $status->forced, $breaker->acquirePermission());
$served = $upstream->served();
$handle = handle($upstream->url('/'));
var_dump(curl_exec($handle), curl_errno($handle), $upstream->served() === $served);
$breaker->reset();
var_dump($breaker->getState());

// A CallExecutor on it counts its calls (the hooks stand aside inside it).
$executor = new Zeusi\CircuitBreaker\Execution\CallExecutor($breaker);
for ($i = 0; $i < 3; $i++) {
    try {
        $executor->execute(fn () => throw new RuntimeException('down'));
    } catch (RuntimeException) {
    }
}
echo $breaker->getState()->value, ' ', $breaker->getStatus()->counters['failures'], "\n";
?>
--EXPECT--
bool(true)
bool(true)
string(8) "loopback"
enum(Zeusi\CircuitBreaker\State::Closed)
NULL
string(8) "loopback"
enum(Zeusi\CircuitBreaker\State::Open)
bool(true)
bool(false)
bool(false)
int(7)
bool(true)
enum(Zeusi\CircuitBreaker\State::Closed)
open 3
