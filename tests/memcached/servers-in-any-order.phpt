--TEST--
MemcachedStorage over two servers: a storage listing them in the other order (another web server during a rolling deploy) sees every circuit of the first, placed by the servers' addresses, not their positions
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED_PAIR')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$servers = explode(',', memcached_env('CB_MEMCACHED_PAIR'));
$prefix = 'order' . getmypid();
$listed = new MemcachedStorage($servers, $prefix);
$reversed = new MemcachedStorage(array_reverse($servers), $prefix);
$shared = 0;
for ($i = 0; $i < 20; $i++) {
    (new CircuitBreaker("service-$i", configuration(), $listed))->forceOpen(60);
    $shared += (new CircuitBreaker("service-$i", configuration(), $reversed))->getState()->value === 'open' ? 1 : 0;
}
echo "circuits seen open in the other order: $shared of 20\n";
$used = [];
foreach ($servers as $index => $server) {
    foreach (memcached_keys($server) as $key) {
        if (str_starts_with($key, "{$prefix}cb:")) {
            $used[$index] = true;
        }
    }
}
echo "servers used: ", count($used), "\n";
?>
--EXPECT--
circuits seen open in the other order: 20 of 20
servers used: 2
