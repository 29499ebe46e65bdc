--TEST--
A server that answers and turns the command down gives a StorageException of code REFUSED: a Redis that refuses the password, a Memcached that answers SERVER_ERROR
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

// A server in a child process that answers every line it reads with $answer.
function refusing_server(string $answer): array
{
    $code = <<<'PHP'
        $server = stream_socket_server('tcp://127.0.0.1:0');
        echo parse_url('tcp://' . stream_socket_get_name($server, false), PHP_URL_PORT), "\n";
        $clients = [];
        while (true) {
            $read = array_merge([$server], $clients);
            $write = $except = null;
            if (stream_select($read, $write, $except, 10) === 0) exit;
            foreach ($read as $socket) {
                if ($socket === $server) {
                    $clients[] = stream_socket_accept($server);
                } elseif (($line = fgets($socket)) === false) {
                    unset($clients[array_search($socket, $clients, true)]);
                    fclose($socket);
                } else {
                    fwrite($socket, $argv[1] . "\r\n");
                }
            }
        }
        PHP;
    $process = proc_open([PHP_BINARY, '-n', '-r', $code, '--', $answer], [1 => ['pipe', 'w']], $pipes);
    return [$process, (int) fgets($pipes[1])];
}

$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$names = array_flip((new ReflectionClass(StorageException::class))->getConstants());
[$redis, $redisPort] = refusing_server('-WRONGPASS invalid username-password pair or user is disabled.');
[$memcached, $memcachedPort] = refusing_server('SERVER_ERROR out of memory storing object');
foreach ([
    'Redis' => new RedisStorage("redis://:secret@127.0.0.1:$redisPort", '', 1.0),
    'Memcached' => new MemcachedStorage("127.0.0.1:$memcachedPort", '', 1.0),
] as $what => $storage) {
    $breaker = new CircuitBreaker('payments', $configuration, $storage);
    try {
        $breaker->getState();
        echo "$what: nothing thrown\n";
    } catch (StorageException $e) {
        echo "$what: ", $names[$e->getCode()] ?? 'code ' . $e->getCode(), "\n";
    }
}
foreach ([$redis, $memcached] as $process) {
    proc_terminate($process);
    proc_close($process);
}
?>
--EXPECT--
Redis: REFUSED
Memcached: REFUSED
