--TEST--
bin/circuit-breaker over Memcached (--storage=memcached://...): force-open, force-closed (30 days, past Memcached's relative TTLs) and reset reach a breaker of the circuit; list, status and metrics fail with exit 1, saying Memcached cannot enumerate its keys
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

preg_match('#\S*circuit_breaker[^/\s]*\.so#', file_get_contents('/proc/self/maps'), $module);
$address = memcached_env('CB_MEMCACHED');
$prefix = 'cli-' . getmypid() . ':';
function cli(string $module, string $address, string $prefix, string $arguments): string
{
    $command = escapeshellarg(PHP_BINARY) . ' -n -d extension=' . escapeshellarg($module) . ' '
        . escapeshellarg(__DIR__ . '/../../bin/circuit-breaker') . ' --timeout=1 --storage=memcached://' . escapeshellarg($address)
        . ' --prefix=' . escapeshellarg($prefix) . " $arguments";
    $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    return 'exit ' . proc_close($process) . "\n" . $out . $err;
}
$breaker = new CircuitBreaker('payments', new Configuration(60, [new ConsecutiveFailuresRule(2)], 600, PermittedCallsPolicy::createSingleTrial(30)),
    new MemcachedStorage($address, $prefix, 1.0));

echo cli($module[0], $address, $prefix, 'force-open payments 30d');
var_dump($breaker->getState(), $breaker->getStatus()->forced, round($breaker->getStatus()->remaining));
echo cli($module[0], $address, $prefix, 'force-closed payments 30d');
$breaker->registerFailure();
$breaker->registerFailure();
var_dump($breaker->getState(), $breaker->getStatus()->forced);
echo cli($module[0], $address, $prefix, 'reset payments');
var_dump($breaker->getState(), $breaker->getStatus()->forced);
foreach (['list', 'status payments', 'metrics'] as $command) {
    echo cli($module[0], $address, $prefix, $command);
}
?>
--EXPECT--
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
exit 1
circuit-breaker: MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers
exit 1
circuit-breaker: MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers
exit 1
circuit-breaker: MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers
