--TEST--
RedisStorage built from a phpredis \RedisCluster on the 3-master cluster: its masters become the seed nodes, and it shares circuits with a storage built from the seed DSNs
--EXTENSIONS--
igbinary
redis
--SKIPIF--
<?php if (!getenv('CB_REDIS_CLUSTER')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$nodes = explode(',', redis_env('CB_REDIS_CLUSTER'));
// phpredis takes host:port seeds; one is enough for it to find the masters.
$cluster = new \RedisCluster(null, [substr($nodes[0], strlen('redis://'))], 1.0, 1.0);
echo "masters known to the client: ", count($cluster->_masters()), "\n";

$listener = new RecordingListener();
foreach (['payments', 'inventory', 'shipping'] as $service) {
    $service .= '-' . getmypid();
    $fromClient = new CircuitBreaker($service, configuration(), new RedisStorage($cluster, prefix: 'shop:', timeout: 1.0), $listener);
    $fromDsn = new CircuitBreaker($service, configuration(), new RedisStorage($nodes, prefix: 'shop:', timeout: 1.0));
    repeat(4, fn () => $fromClient->registerFailure());
    printf("%s: from the client %s, from the DSNs %s\n", strtok($service, '-'), $fromClient->getState()->value, $fromDsn->getState()->value);
}
echo count($listener->events) - 3, " storage failures\n";

$cluster->setOption(\RedisCluster::OPT_SERIALIZER, \RedisCluster::SERIALIZER_PHP);
try {
    new RedisStorage($cluster);
} catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
    echo preg_replace('/ given, expected .*/', '', $e->getMessage()), "\n";
}
?>
--EXPECT--
masters known to the client: 3
payments: from the client open, from the DSNs open
inventory: from the client open, from the DSNs open
shipping: from the client open, from the DSNs open
0 storage failures
Invalid dsn: RedisCluster (RedisCluster::OPT_SERIALIZER is RedisCluster::SERIALIZER_PHP, not RedisCluster::SERIALIZER_NONE: the storage keeps plain integers, and the circuit breaker library forbids a serializer; remove it or pass a DSN)
