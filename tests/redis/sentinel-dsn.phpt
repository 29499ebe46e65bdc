--TEST--
RedisStorage: a redis-sentinel:// DSN is accepted (sentinels with or without a port, a master name, a database, the sentinels' own password); a bad one is refused with an InvalidConfigurationException naming the dsn and the part at fault
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\Storage\RedisStorage;

foreach ([
    'redis-sentinel://10.0.0.1:26379,10.0.0.2/mymaster',
    'redis-sentinel://app:secret@10.0.0.1:26380/mymaster/3?sentinel_password=other',
    'redis-sentinel://no-master-name:26379',
    'redis-sentinel://127.0.0.1:26379/mymaster/two',
    'redis-sentinel://127.0.0.1:26379,,127.0.0.2/mymaster',
    'redis-sentinel://127.0.0.1:port/mymaster',
    'redis-sentinel://127.0.0.1/mymaster?timeout=1',
    'rediss-sentinel://127.0.0.1/mymaster',
] as $dsn) {
    try {
        new RedisStorage($dsn);
        echo "accepted: $dsn\n";
    } catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $error) {
        preg_match('/^Invalid dsn: .*? \((a Sentinel DSN [^)]*)\) given/', $error->getMessage(), $reason);
        echo 'refused: ', $reason[1] ?? $error->getMessage(), "\n";
    }
}
?>
--EXPECT--
accepted: redis-sentinel://10.0.0.1:26379,10.0.0.2/mymaster
accepted: redis-sentinel://app:secret@10.0.0.1:26380/mymaster/3?sentinel_password=other
refused: a Sentinel DSN names its master after the hosts: /<master name>[/<db>]
refused: a Sentinel DSN has a database that is not a number from 0: 'two'
refused: a Sentinel DSN lists its sentinels as host[:port],host[:port],... with no empty one
refused: a Sentinel DSN has a sentinel that is not host[:port]: '127.0.0.1:port'
refused: a Sentinel DSN takes only sentinel_password and sentinel_username as parameters, not 'timeout'
refused: a Sentinel DSN starts with redis-sentinel://: TLS to sentinels is not supported
