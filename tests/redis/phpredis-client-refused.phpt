--TEST--
RedisStorage refuses, naming $dsn and the setting, a phpredis client it cannot honour: not connected, a serializer, compression, a key prefix with braces, another object
--EXTENSIONS--
igbinary
redis
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\Storage\RedisStorage;

function attempt(string $what, Closure $build): void
{
    try {
        $build();
        echo "$what: accepted\n";
    } catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
        // The limits are the same for every refusal: show what differs.
        echo "$what: ", preg_replace('/ given, expected .*/', '', $e->getMessage()), "\n";
    }
}

[$host, $port] = explode(':', redis_env('CB_REDIS_ADDRESS'));
$connected = function () use ($host, $port): \Redis {
    $redis = new \Redis();
    $redis->connect($host, (int) $port);
    $redis->auth(redis_env('CB_REDIS_PASSWORD'));
    return $redis;
};

attempt('not connected', fn () => new RedisStorage(new \Redis()));
$redis = $connected();
$redis->setOption(\Redis::OPT_SERIALIZER, \Redis::SERIALIZER_PHP);
attempt('PHP serializer', fn () => new RedisStorage($redis, prefix: 'shop:'));
$redis = $connected();
$redis->setOption(\Redis::OPT_SERIALIZER, \Redis::SERIALIZER_IGBINARY);
attempt('igbinary serializer', fn () => new RedisStorage($redis));
$redis = $connected();
$redis->setOption(\Redis::OPT_COMPRESSION, \Redis::COMPRESSION_LZF);
attempt('compression', fn () => new RedisStorage($redis));
$redis = $connected();
$redis->setOption(\Redis::OPT_PREFIX, 'app{1}:');
attempt('prefix with braces', fn () => new RedisStorage($redis));
attempt('another object', fn () => new RedisStorage(new ArrayObject()));
// A getter that throws: the refusal says which, and chains the exception.
final class RedisWithoutHost extends \Redis
{
    #[\ReturnTypeWillChange]
    public function getHost()
    {
        throw new LogicException('no host today');
    }
}
$redis = new RedisWithoutHost();
$redis->connect($host, (int) $port);
try {
    new RedisStorage($redis);
} catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
    echo 'a getter that throws: ', preg_replace('/ given, expected .*/', '', $e->getMessage()), ', previous: ', get_class($e->getPrevious()), ' ', $e->getPrevious()->getMessage(), "\n";
}
$redis = $connected();
$redis->setOption(\Redis::OPT_SERIALIZER, \Redis::SERIALIZER_NONE);
attempt('serializer set back to none', fn () => new RedisStorage($redis));
?>
--EXPECT--
not connected: Invalid dsn: Redis (not connected: call connect() or pconnect() before, or pass a DSN)
PHP serializer: Invalid dsn: Redis (Redis::OPT_SERIALIZER is Redis::SERIALIZER_PHP, not Redis::SERIALIZER_NONE: the storage keeps plain integers, and the circuit breaker library forbids a serializer; remove it or pass a DSN)
igbinary serializer: Invalid dsn: Redis (Redis::OPT_SERIALIZER is Redis::SERIALIZER_IGBINARY, not Redis::SERIALIZER_NONE: the storage keeps plain integers, and the circuit breaker library forbids a serializer; remove it or pass a DSN)
compression: Invalid dsn: Redis (Redis::OPT_COMPRESSION is Redis::COMPRESSION_LZF, not Redis::COMPRESSION_NONE: the storage keeps plain integers, and the circuit breaker library forbids compression; remove it or pass a DSN)
prefix with braces: Invalid dsn: Redis (Redis::OPT_PREFIX 'app{1}:' has braces, which would break the hash tag of Redis Cluster)
another object: Invalid dsn: ArrayObject (not a \Redis or \RedisCluster of the redis extension (phpredis))
a getter that throws: Invalid dsn: RedisWithoutHost (getHost() threw LogicException), previous: LogicException no host today
serializer set back to none: accepted
