--TEST--
HTTP guard with fibers: while a CallExecutor call awaits in one fiber, the transfers of other fibers are their host's to count; the transfer of the executor's own fiber is left to it
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
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";
$mine = new CircuitBreaker('mine', new Configuration(10, [new ConsecutiveFailuresRule(5)], 60, new PermittedCallsPolicy(10, 1)), new InMemoryStorage());
$executor = new CallExecutor($mine, new CallbackOutcomeClassifier(
    fn (Throwable $e) => Zeusi\CircuitBreaker\Outcome::Failure,
    fn ($status) => $status >= 500 ? Zeusi\CircuitBreaker\Outcome::Failure : Zeusi\CircuitBreaker\Outcome::Success,
));
$fetch = function () use ($upstream) {
    $handle = handle($upstream->url('/status/503'));
    curl_exec($handle);
    return curl_getinfo($handle, CURLINFO_RESPONSE_CODE);
};
// The executor's call awaits (suspends its fiber) before its transfer.
$inExecutor = new Fiber(fn () => $executor->execute(function () use ($fetch) {
    Fiber::suspend();
    return $fetch();
}));
$inExecutor->start();
// Meanwhile another fiber's transfers go to the same host, outside any breaker of the code.
$other = new Fiber(function () use ($fetch) {
    for ($i = 0; $i < 3; $i++) {
        $fetch();
    }
});
$other->start();
echo 'host after the other fiber: ', counters($service)['failures'], "\n";
$inExecutor->resume();
echo 'executor: ', $inExecutor->getReturn(), ', mine: ', $mine->getStatus()->failures, "\n";
echo 'host after the executor: ', counters($service)['failures'], "\n";
?>
--EXPECT--
host after the other fiber: 3
executor: 503, mine: 1
host after the executor: 3
