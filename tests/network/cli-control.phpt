--TEST--
bin/circuit-breaker over a network store (--storage=DSN, --prefix): force-closed, force-open (30 days too, past Memcached's relative TTLs) and reset reach a breaker of the circuit
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
require __DIR__ . '/../phpt/subprocess.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;

$cliStorage = match (store()) {
    'redis' => shared_target(),
    'memcached' => 'memcached://' . shared_target(),
};
$prefix = 'cli-' . getmypid() . ':';
$breaker = new CircuitBreaker('payments', new Configuration(60, [new ConsecutiveFailuresRule(2)], 600, PermittedCallsPolicy::createSingleTrial(30)),
    storage(prefix: $prefix, timeout: 1.0));

repeat(2, fn () => $breaker->registerFailure());
echo $breaker->getState()->value, "\n";
echo run_cli($cliStorage, $prefix, 'force-closed payments 1h');
var_dump($breaker->getState(), $breaker->getStatus()->forced);
echo run_cli($cliStorage, $prefix, 'force-open payments 2m');
var_dump($breaker->getState(), $breaker->getStatus()->forced, round($breaker->getStatus()->remaining));
echo run_cli($cliStorage, $prefix, 'reset payments');
var_dump($breaker->getState(), $breaker->getStatus()->forced);

echo run_cli($cliStorage, $prefix, 'force-open payments 30d');
var_dump($breaker->getState(), $breaker->getStatus()->forced, round($breaker->getStatus()->remaining));
echo run_cli($cliStorage, $prefix, 'force-closed payments 30d');
repeat(2, fn () => $breaker->registerFailure());
var_dump($breaker->getState(), $breaker->getStatus()->forced);
echo run_cli($cliStorage, $prefix, 'reset payments');
var_dump($breaker->getState(), $breaker->getStatus()->forced);
?>
--EXPECT--
open
exit 0
payments: forced closed for 3600s
enum(Zeusi\CircuitBreaker\State::Closed)
bool(true)
exit 0
payments: forced open for 120s
enum(Zeusi\CircuitBreaker\State::Open)
bool(true)
float(120)
exit 0
payments: reset (closed)
enum(Zeusi\CircuitBreaker\State::Closed)
bool(false)
exit 0
payments: forced open for 2592000s
enum(Zeusi\CircuitBreaker\State::Open)
bool(true)
float(2592000)
exit 0
payments: forced closed for 2592000s
enum(Zeusi\CircuitBreaker\State::Closed)
bool(true)
exit 0
payments: reset (closed)
enum(Zeusi\CircuitBreaker\State::Closed)
bool(false)
