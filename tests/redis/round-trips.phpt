--TEST--
RedisStorage: two round trips per permitted call, none per rejected call while open (INFO commandstats)
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$address = redis_env('CB_REDIS_ADDRESS');
$password = redis_env('CB_REDIS_PASSWORD');
$breaker = new CircuitBreaker('round-trips-' . getmypid(), configuration(minimum: 20), new RedisStorage(redis_env('CB_REDIS_DSN')));
$breaker->acquirePermission();
$breaker->registerSuccess(); // connects and loads the scripts: not counted
$before = command_counts($address, $password);
for ($i = 0; $i < 10; $i++) {
    if ($breaker->acquirePermission()) {
        $breaker->registerSuccess(0.01);
    }
}
$after = command_counts($address, $password);
echo "commands for 10 permitted calls: ", commands_between($before, $after), "\n";
echo "EVALSHA: ", $after['evalsha'] - ($before['evalsha'] ?? 0), ", HGET: ", $after['hget'] - ($before['hget'] ?? 0), "\n";
repeat(20, fn () => $breaker->registerFailure());
echo $breaker->getState()->value, "\n";
$breaker->acquirePermission(); // the first rejection reads the state once
$before = command_counts($address, $password);
for ($i = 0; $i < 100; $i++) {
    $breaker->acquirePermission();
}
echo "commands for 100 rejected calls: ", commands_between($before, command_counts($address, $password)), "\n";
?>
--EXPECT--
commands for 10 permitted calls: 20
EVALSHA: 10, HGET: 10
open
commands for 100 rejected calls: 0
