--TEST--
HTTP guard: a transfer made inside a CallExecutor is counted once, by the breaker of the code (the hooks stand aside); outside it, by its host's circuit
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/fast-breakers.ini
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/upstream.inc';
use Zeusi\CircuitBreaker\{CircuitBreaker, Configuration};
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Execution\{CallExecutor, CallbackOutcomeClassifier};
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";
$mine = new CircuitBreaker('mine', new Configuration(10, [new ConsecutiveFailuresRule(5)], 60, new PermittedCallsPolicy(10, 1)), new InMemoryStorage());
$executor = new CallExecutor($mine, new CallbackOutcomeClassifier(
    fn (Throwable $e) => Zeusi\CircuitBreaker\Outcome::Failure,
    fn ($status) => $status >= 500 ? Zeusi\CircuitBreaker\Outcome::Failure : Zeusi\CircuitBreaker\Outcome::Success,
));
$call = function () use ($upstream) {
    $handle = handle($upstream->url('/status/503'));
    curl_exec($handle);
    return curl_getinfo($handle, CURLINFO_RESPONSE_CODE);
};
for ($i = 0; $i < 5; $i++) {
    $executor->execute($call);
}
echo 'mine: ', $mine->getState()->value, "\n";
var_dump(counters($service));
try {
    $executor->execute($call);
} catch (CallNotPermittedException $e) {
    echo 'refused by mine: ', $e->getService(), "\n";
}
// Outside the executor, the host's circuit counts.
for ($i = 0; $i < 3; $i++) {
    $call();
}
echo counters($service)['state'], ' ', counters($service)['failures'], "\n";
echo 'served: ', $upstream->served(), "\n";
?>
--EXPECT--
mine: open
NULL
refused by mine: mine
open 3
served: 8
