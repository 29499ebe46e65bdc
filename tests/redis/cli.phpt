--TEST--
bin/circuit-breaker over Redis (--storage=DSN, --prefix): a circuit a breaker opened is listed and shown; a listing with no circuit says so, and so does the status of an unknown circuit (the commands that change a circuit: tests/network/cli-control.phpt)
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
require __DIR__ . '/../phpt/subprocess.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$dsn = redis_env('CB_REDIS_DSN');
$prefix = 'cli-' . getmypid() . ':';
$breaker = new CircuitBreaker('payments', new Configuration(60, [new ConsecutiveFailuresRule(2)], 600, PermittedCallsPolicy::createSingleTrial(30)),
    new RedisStorage($dsn, $prefix, 1.0));

echo run_cli($dsn, $prefix, 'list');
repeat(2, fn () => $breaker->registerFailure());
echo preg_replace(['/\d+(\.\d)?s/', '/ +/'], ['Ns', ' '], run_cli($dsn, $prefix, 'list'));
$breaker->reset();
echo preg_replace('/^(since|until): .*$/m', '$1: ...', run_cli($dsn, $prefix, 'status payments'));
echo run_cli($dsn, $prefix, 'status nothing');
?>
--EXPECTF--
exit 0
No circuit in Redis at redis://***@127.0.0.1:%d (prefix 'cli-%d:'): a circuit is stored at its first call.
exit 0
SERVICE STATE FORCED REMAINING BACKOFF
payments open no Ns 0
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
