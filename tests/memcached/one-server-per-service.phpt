--TEST--
MemcachedStorage over two servers: every key of a service lives on one server, and services spread over both
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED_PAIR')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$servers = explode(',', memcached_env('CB_MEMCACHED_PAIR'));
$prefix = 'spread' . getmypid();
for ($i = 0; $i < 20; $i++) {
    $breaker = new CircuitBreaker("service-$i", configuration(), new MemcachedStorage($servers, $prefix));
    repeat(4, fn () => $breaker->registerFailure());
    $breaker->acquirePermission();
}
$owners = [];
foreach ($servers as $index => $server) {
    foreach (memcached_keys($server) as $key) {
        if (preg_match("/^{$prefix}cb:(service-\\d+):/", $key, $match)) {
            $owners[$match[1]][$index] = true;
        }
    }
}
echo count($owners), " services\n";
echo "on one server each: ", count(array_filter($owners, fn ($servers) => count($servers) === 1)) === count($owners) ? 'yes' : 'no', "\n";
$used = array_unique(array_merge(...array_map('array_keys', array_values($owners))));
echo "servers used: ", count($used), "\n";
?>
--EXPECT--
20 services
on one server each: yes
servers used: 2
