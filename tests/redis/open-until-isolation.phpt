--TEST--
RedisStorage: what a worker remembers of open circuits is kept apart by prefix and service (prefix "shop" with service "api" is not prefix "shopa" with service "pi"), and an open circuit still costs no round trip
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$dsn = redis_env('CB_REDIS_DSN');
$address = redis_env('CB_REDIS_ADDRESS');
$password = redis_env('CB_REDIS_PASSWORD');
$run = getmypid();
$opened = new CircuitBreaker('api', configuration(openDuration: 60), new RedisStorage($dsn, prefix: "shop$run", timeout: 1.0));
repeat(4, fn () => $opened->registerFailure());
var_dump($opened->acquirePermission());

$other = new CircuitBreaker('pi', configuration(openDuration: 60), new RedisStorage($dsn, prefix: "shop{$run}a", timeout: 1.0));
echo "prefix shop{run}a, service pi: ", $other->acquirePermission() ? 'permitted' : 'rejected', "\n";

$before = command_counts($address, $password);
$rejected = 0;
for ($i = 0; $i < 100; $i++) {
    $rejected += $opened->acquirePermission() ? 0 : 1;
}
echo "$rejected of 100 rejected with ", commands_between($before, command_counts($address, $password)), " commands\n";
?>
--EXPECT--
bool(false)
prefix shop{run}a, service pi: permitted
100 of 100 rejected with 0 commands
