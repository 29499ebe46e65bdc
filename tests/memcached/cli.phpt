--TEST--
bin/circuit-breaker over Memcached (--storage=memcached://...): list, status and metrics fail with exit 1, saying Memcached cannot enumerate its keys (the commands that change a circuit: tests/network/cli-control.phpt)
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
require __DIR__ . '/../phpt/subprocess.inc';

$storage = 'memcached://' . memcached_env('CB_MEMCACHED');
$prefix = 'cli-' . getmypid() . ':';
foreach (['list', 'status payments', 'metrics'] as $command) {
    echo run_cli($storage, $prefix, $command);
}
?>
--EXPECT--
exit 1
circuit-breaker: MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers
exit 1
circuit-breaker: MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers
exit 1
circuit-breaker: MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers
