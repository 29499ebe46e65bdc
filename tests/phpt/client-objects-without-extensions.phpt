--TEST--
Without phpredis and php-memcached loaded: DSNs work, and a PHP class that merely shares the name \Redis, \RedisCluster or \Memcached is refused as not the extension's client, without any autoloader being asked for a class
--SKIPIF--
<?php if (extension_loaded('redis') || extension_loaded('memcached')) die('skip the client extensions are loaded'); ?>
--FILE--
<?php
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

spl_autoload_register(function (string $class) {
    echo "autoloader asked for $class\n";
});

// Polyfills of the same names, as a library without the extensions might declare.
class Redis
{
    public function isConnected(): bool { return true; }
    public function getHost(): string { return '127.0.0.1'; }
}
class RedisCluster
{
    public function _masters(): array { return [['127.0.0.1', 7000]]; }
}
class Memcached
{
    public function getServerList(): array { return [['host' => '127.0.0.1', 'port' => 11211, 'type' => 'TCP']]; }
}

echo get_class(new RedisStorage('redis://127.0.0.1:6379', prefix: 'shop:')), "\n";
echo get_class(new MemcachedStorage('127.0.0.1:11211', prefix: 'shop:')), "\n";
foreach ([
    'Redis' => fn () => new RedisStorage(new Redis()),
    'RedisCluster' => fn () => new RedisStorage(new RedisCluster()),
    'Memcached' => fn () => new MemcachedStorage(new Memcached()),
    'stdClass as servers' => fn () => new MemcachedStorage(new stdClass()),
] as $what => $build) {
    try {
        $build();
        echo "$what: accepted\n";
    } catch (InvalidConfigurationException $e) {
        echo "$what: ", preg_replace('/ given, expected .*/', '', $e->getMessage()), "\n";
    }
}
?>
--EXPECT--
Zeusi\CircuitBreaker\Storage\RedisStorage
Zeusi\CircuitBreaker\Storage\MemcachedStorage
Redis: Invalid dsn: Redis (not a \Redis or \RedisCluster of the redis extension (phpredis))
RedisCluster: Invalid dsn: RedisCluster (not a \Redis or \RedisCluster of the redis extension (phpredis))
Memcached: Invalid servers: Memcached (not a \Memcached of the memcached extension)
stdClass as servers: Invalid servers: stdClass (not a \Memcached of the memcached extension)
