--TEST--
bin/circuit-breaker over Redis (--storage=DSN, --prefix): a circuit a breaker opened is listed and shown, forced closed, forced open and reset by the command line, and the breaker sees each command; a listing with no circuit says so
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

preg_match('#\S*circuit_breaker[^/\s]*\.so#', file_get_contents('/proc/self/maps'), $module);
$dsn = redis_env('CB_REDIS_DSN');
$prefix = 'cli-' . getmypid() . ':';
function cli(string $module, string $dsn, string $prefix, string $arguments): string
{
    $command = escapeshellarg(PHP_BINARY) . ' -n -d extension=' . escapeshellarg($module) . ' '
        . escapeshellarg(__DIR__ . '/../../bin/circuit-breaker') . ' --timeout=1 --storage=' . escapeshellarg($dsn)
        . ' --prefix=' . escapeshellarg($prefix) . " $arguments";
    $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    return 'exit ' . proc_close($process) . "\n" . $out . $err;
}
$breaker = new CircuitBreaker('payments', new Configuration(60, [new ConsecutiveFailuresRule(2)], 600, PermittedCallsPolicy::createSingleTrial(30)),
    new RedisStorage($dsn, $prefix, 1.0));

echo cli($module[0], $dsn, $prefix, 'list');
repeat(2, fn () => $breaker->registerFailure());
echo preg_replace(['/\d+(\.\d)?s/', '/ +/'], ['Ns', ' '], cli($module[0], $dsn, $prefix, 'list'));
echo cli($module[0], $dsn, $prefix, 'force-closed payments 1h');
var_dump($breaker->getState(), $breaker->getStatus()->forced);
echo cli($module[0], $dsn, $prefix, 'force-open payments 2m');
var_dump($breaker->getState(), $breaker->getStatus()->forced, round($breaker->getStatus()->remaining));
echo cli($module[0], $dsn, $prefix, 'reset payments');
var_dump($breaker->getState(), $breaker->getStatus()->forced);
echo preg_replace('/^(since|until): .*$/m', '$1: ...', cli($module[0], $dsn, $prefix, 'status payments'));
echo cli($module[0], $dsn, $prefix, 'status nothing');
?>
--EXPECTF--
exit 0
No circuit in Redis at redis://***@127.0.0.1:%d (prefix 'cli-%d:'): a circuit is stored at its first call.
exit 0
SERVICE STATE FORCED REMAINING BACKOFF
payments open no Ns 0
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
service: payments
state: closed
forced: no
since: ...
until: ...
remaining: -
open duration: -
backoff level: 0
exit 1
circuit-breaker: no circuit 'nothing' in Redis at redis://***@127.0.0.1:%d (prefix 'cli-%d:'): a circuit is stored at its first call; check the name and --prefix
