--TEST--
RedisStorage built from a connected phpredis \Redis (password, database, key prefix): the circuits of a storage built from the equivalent DSN, over a connection of our own
--EXTENSIONS--
igbinary
redis
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

[$host, $port] = explode(':', redis_env('CB_REDIS_ADDRESS'));
$password = redis_env('CB_REDIS_PASSWORD');
$service = 'phpredis-' . getmypid();

$redis = new \Redis();
$redis->connect($host, (int) $port);
$redis->auth($password);
$redis->select(3);

$fromClient = new CircuitBreaker($service, configuration(), new RedisStorage($redis, prefix: 'shop:', timeout: 1.0), $listener = new RecordingListener());
$fromDsn = new CircuitBreaker($service, configuration(), new RedisStorage("redis://:$password@$host:$port/3", prefix: 'shop:', timeout: 1.0));
$otherDatabase = new CircuitBreaker($service, configuration(), new RedisStorage("redis://:$password@$host:$port/0", prefix: 'shop:', timeout: 1.0));

repeat(4, fn () => $fromClient->registerFailure());
echo "built from the client: ", $fromClient->getState()->value, ", ", count($listener->events) - 1, " storage failures\n";
echo "built from the DSN: ", $fromDsn->getState()->value, "\n";
echo "database 0: ", $otherDatabase->getState()->value, "\n";
echo "state key in database 3: ", resp("$host:$port", ['EXISTS', "shop:cb:{{$service}}:s"], $password, 3), "\n";

// The storage speaks to Redis itself: the application's client can close.
$redis->close();
repeat(2, fn () => $fromClient->registerFailure());
echo "after the client closed: ", $fromClient->getState()->value, ", ", count($listener->events) - 1, " storage failures\n";
$fromDsn = new CircuitBreaker("$service-b", configuration(), new RedisStorage("redis://:$password@$host:$port/3", prefix: 'shop:', timeout: 1.0));
$fromClient = new CircuitBreaker("$service-b", configuration(), new RedisStorage(
    (function () use ($host, $port, $password) {
        $redis = new \Redis();
        $redis->connect($host, (int) $port);
        $redis->auth(['default', $password]); // ACL form: [user, password]
        $redis->select(3);
        return $redis;
    })(),
    prefix: 'shop:',
    timeout: 1.0,
));
repeat(4, fn () => $fromDsn->registerFailure());
echo "ACL credentials, seen from the client: ", $fromClient->getState()->value, "\n";

// The client's own key prefix (Redis::OPT_PREFIX) comes before the storage's, as it came before the library's keys.
$redis = new \Redis();
$redis->connect($host, (int) $port);
$redis->auth($password);
$redis->setOption(\Redis::OPT_PREFIX, 'app:');
$prefixed = new CircuitBreaker("$service-c", configuration(), new RedisStorage($redis, prefix: 'shop:', timeout: 1.0));
repeat(4, fn () => $prefixed->registerFailure());
echo "prefix app:shop: from the DSN: ", (new CircuitBreaker("$service-c", configuration(), new RedisStorage("redis://:$password@$host:$port", prefix: 'app:shop:', timeout: 1.0)))->getState()->value, "\n";
echo "prefix shop: alone: ", (new CircuitBreaker("$service-c", configuration(), new RedisStorage("redis://:$password@$host:$port", prefix: 'shop:', timeout: 1.0)))->getState()->value, "\n";
?>
--EXPECT--
built from the client: open, 0 storage failures
built from the DSN: open
database 0: closed
state key in database 3: 1
after the client closed: open, 0 storage failures
ACL credentials, seen from the client: open
prefix app:shop: from the DSN: open
prefix shop: alone: closed
