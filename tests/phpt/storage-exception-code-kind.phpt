--TEST--
A StorageException's code is the kind of the failure: a full shared memory segment (FULL) is told from a Redis or Memcached port that accepts and never answers (TIMEOUT), from a dead port (UNAVAILABLE), from a storage written in PHP that threw (USERLAND) and from what a storage cannot do (UNSUPPORTED)
--INI--
circuit_breaker.shm_size=20K
circuit_breaker.shm_max_share=1
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$names = array_flip((new ReflectionClass(StorageException::class))->getConstants());
function kind(StorageException $e, array $names): string
{
    return ($names[$e->getCode()] ?? 'code ' . $e->getCode()) . ($e->getPrevious() ? ', previous ' . get_class($e->getPrevious()) : '');
}
function thrown(callable $call, array $names): string
{
    try {
        $call();
        return 'nothing thrown';
    } catch (StorageException $e) {
        return kind($e, $names);
    }
}

// Full: the StorageFailed event's exception, as getState() reads unknown circuits as closed.
$storage = new SharedMemoryStorage();
$listener = new RecordingListener();
for ($i = 1; !$listener->events; $i++) {
    (new CircuitBreaker("service-$i", $configuration, $storage, $listener))->registerSuccess();
}
echo 'full segment: ', kind($listener->events[0]->exception, $names), "\n";

// A port that accepts (the kernel completes the handshake) and never answers.
$silent = stream_socket_server('tcp://127.0.0.1:0');
$port = parse_url('tcp://' . stream_socket_get_name($silent, false), PHP_URL_PORT);
// A port nothing listens on.
$closed = stream_socket_server('tcp://127.0.0.1:0');
$dead = parse_url('tcp://' . stream_socket_get_name($closed, false), PHP_URL_PORT);
fclose($closed);
foreach ([
    'Redis, silent port' => new RedisStorage("redis://127.0.0.1:$port", '', 0.2),
    'Memcached, silent port' => new MemcachedStorage("127.0.0.1:$port", '', 0.2),
    'Redis, dead port' => new RedisStorage("redis://127.0.0.1:$dead", '', 0.2),
    'Memcached, dead port' => new MemcachedStorage("127.0.0.1:$dead", '', 0.2),
] as $what => $network) {
    $breaker = new CircuitBreaker('payments', $configuration, $network);
    echo "$what: ", thrown(fn () => $breaker->getState(), $names), "\n";
}

final class Broken implements KeyValueStoreInterface
{
    public function increment(string $key, int $ttl): int { throw new DomainException('down'); }
    public function getMultiple(array $keys): array { throw new DomainException('down'); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { throw new DomainException('down'); }
}
$breaker = new CircuitBreaker('payments', $configuration, new Broken());
echo 'storage written in PHP: ', thrown(fn () => $breaker->getState(), $names), "\n";
echo 'Memcached listing: ', thrown(fn () => (new MemcachedStorage('127.0.0.1:11211'))->listCircuits(), $names), "\n";
?>
--EXPECT--
full segment: FULL
Redis, silent port: TIMEOUT
Memcached, silent port: TIMEOUT
Redis, dead port: UNAVAILABLE
Memcached, dead port: UNAVAILABLE
storage written in PHP: USERLAND, previous DomainException
Memcached listing: UNSUPPORTED
