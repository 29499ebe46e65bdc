--TEST--
MemcachedStorage: what a worker remembers of open circuits is kept apart by servers, prefix and service (prefix "shop" with service "api" is not prefix "shopa" with service "pi"), and an open circuit still costs no round trip
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED_PAIR')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$address = memcached_env('CB_MEMCACHED');
[$first, $second] = explode(',', memcached_env('CB_MEMCACHED_PAIR'));
$run = getmypid();
$opened = new CircuitBreaker('api', configuration(openDuration: 60), new MemcachedStorage($address, prefix: "shop$run", timeout: 1.0));
repeat(4, fn () => $opened->registerFailure());
var_dump($opened->acquirePermission());

$other = new CircuitBreaker('pi', configuration(openDuration: 60), new MemcachedStorage($address, prefix: "shop{$run}a", timeout: 1.0));
echo "prefix shop{run}a, service pi: ", $other->acquirePermission() ? 'permitted' : 'rejected', "\n";
$elsewhere = new CircuitBreaker('api', configuration(openDuration: 60), new MemcachedStorage($second, prefix: "shop$run", timeout: 1.0));
echo "same prefix and service on another server: ", $elsewhere->acquirePermission() ? 'permitted' : 'rejected', "\n";

$before = memcached_stats($address)['cmd_get'];
$rejected = 0;
for ($i = 0; $i < 100; $i++) {
    $rejected += $opened->acquirePermission() ? 0 : 1;
}
echo "$rejected of 100 rejected with ", memcached_stats($address)['cmd_get'] - $before, " reads of Memcached\n";
?>
--EXPECT--
bool(false)
prefix shop{run}a, service pi: permitted
same prefix and service on another server: permitted
100 of 100 rejected with 0 reads of Memcached
