--TEST--
RedisStorage built from a phpredis \Redis connected with tls://: the storage connects over TLS too (certificates checked against SSL_CERT_FILE), and shares the circuits of the rediss:// DSN
--EXTENSIONS--
igbinary
redis
--SKIPIF--
<?php if (!getenv('CB_REDIS_TLS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$dsn = redis_env('CB_REDIS_TLS_DSN');
[$host, $port] = explode(':', substr($dsn, strlen('rediss://')));
$redis = new \Redis();
$redis->connect("tls://$host", (int) $port, 2.0, null, 0, 2.0, ['stream' => ['cafile' => getenv('SSL_CERT_FILE'), 'peer_name' => '127.0.0.1']]);
echo "phpredis over TLS: ", $redis->ping() === true || $redis->ping() === '+PONG' ? 'answers' : 'no answer', "\n";

$service = 'tls-client-' . getmypid();
$fromClient = new CircuitBreaker($service, configuration(), new RedisStorage($redis, timeout: 1.0), $listener = new RecordingListener());
repeat(4, fn () => $fromClient->registerFailure());
echo "built from the client: ", $fromClient->getState()->value, ", ", count($listener->events) - 1, " storage failures\n";
echo "built from the rediss:// DSN: ", (new CircuitBreaker($service, configuration(), new RedisStorage($dsn, timeout: 1.0)))->getState()->value, "\n";
?>
--EXPECT--
phpredis over TLS: answers
built from the client: open, 0 storage failures
built from the rediss:// DSN: open
