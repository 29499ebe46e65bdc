--TEST--
A Redis DSN that is refused says which part is wrong and what is accepted there, in the user's words: no redis-rs error kind (InvalidClientConfig) nor "Redis URL did not parse"; a cluster's seed node is named in the list
--FILE--
<?php
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

foreach (['localhost:6379', 'http://cache:6379', 'redis://', 'redis://:secret@:6379', 'redis://cache:abc', 'redis://cache:70000',
          'redis://[::1:6379', 'redis://cache:6379/two', 'unix://', 'redis://0.0.0.0:6379', 'rediss://cache#tls', 'redis://cache/0?protocol=4',
          ['redis://cache:7000', 'redis://cache:port']] as $dsn) {
    try {
        new RedisStorage($dsn);
        echo json_encode($dsn), ": accepted\n";
    } catch (InvalidConfigurationException $e) {
        $message = $e->getMessage();
        echo strstr($message, ' given, expected', true), "\n";
        if (str_contains($message, 'InvalidClientConfig') || str_contains($message, 'did not parse')) {
            echo "  (speaks of redis-rs)\n";
        }
    }
}
echo strstr($message, 'expected'), "\n";
?>
--EXPECT--
Invalid dsn: 'localhost:6379' ('localhost:6379' has no scheme: write redis://localhost:6379)
Invalid dsn: 'http://cache:6379' ('http://cache:6379' has the scheme 'http://', not one of redis://, rediss:// (TLS), unix:// or redis-sentinel://)
Invalid dsn: 'redis://' ('redis://' has no host: redis://host[:port][/db])
Invalid dsn: 'redis://:secret@:6379' ('redis://:secret@:6379' has no host: redis://host[:port][/db])
Invalid dsn: 'redis://cache:abc' ('redis://cache:abc' has the port 'abc', not a number from 1 to 65535 (6379 when left out))
Invalid dsn: 'redis://cache:70000' ('redis://cache:70000' has the port '70000', not a number from 1 to 65535 (6379 when left out))
Invalid dsn: 'redis://[::1:6379' ('redis://[::1:6379' has no ']' closing its IPv6 address: redis://[::1]:6379)
Invalid dsn: 'redis://cache:6379/two' ('redis://cache:6379/two' has a database that is not a number from 0 (the /db after the host, or ?db=))
Invalid dsn: 'unix://' ('unix://' has no socket path: unix:///path/to/redis.sock)
Invalid dsn: 'redis://0.0.0.0:6379' ('redis://0.0.0.0:6379' names 0.0.0.0 or ::, addresses a server listens on, not one to connect to: give the server's own)
Invalid dsn: 'rediss://cache#tls' ('rediss://cache#tls' ends with a '#' fragment, which means nothing here (and #insecure, which turns certificate checks off, is refused))
Invalid dsn: 'redis://cache/0?protocol=4' ('redis://cache/0?protocol=4' has a ?protocol= other than 2, resp2, 3 or resp3)
Invalid dsn: array ('redis://cache:port' has the port 'port', not a number from 1 to 65535 (6379 when left out))
expected a redis://, rediss:// or unix:// DSN, a redis-sentinel://[[user:]password@]host[:port][,host[:port]...]/<master name>[/<db>][?sentinel_password=...] DSN, a non-empty array of redis:// or rediss:// DSNs for Redis Cluster, or a connected phpredis \Redis or \RedisCluster without serializer nor compression
