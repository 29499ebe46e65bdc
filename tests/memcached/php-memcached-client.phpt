--TEST--
MemcachedStorage built from a php-memcached \Memcached with two servers: the circuits of a storage built from the same servers, each service on one server, the client's OPT_PREFIX_KEY before the prefix; a unix socket server or an empty list is refused naming $servers
--EXTENSIONS--
igbinary
msgpack
memcached
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED_PAIR')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$servers = explode(',', memcached_env('CB_MEMCACHED_PAIR'));
$memcached = new \Memcached();
foreach ($servers as $server) {
    [$host, $port] = explode(':', $server);
    $memcached->addServer($host, (int) $port);
}
$prefix = 'mc' . getmypid() . '-';
$listener = new RecordingListener();
for ($i = 0; $i < 12; $i++) {
    $fromClient = new CircuitBreaker("service-$i", configuration(), new MemcachedStorage($memcached, prefix: $prefix, timeout: 1.0), $listener);
    repeat(4, fn () => $fromClient->registerFailure());
    $fromServers = new CircuitBreaker("service-$i", configuration(), new MemcachedStorage($servers, prefix: $prefix, timeout: 1.0));
    $states[$fromClient->getState()->value . ' / ' . $fromServers->getState()->value][] = $i;
}
foreach ($states as $pair => $services) {
    echo "from the client / from the servers: $pair, ", count($services), " services\n";
}
echo count(storage_failures($listener)), " storage failures\n";
$owners = [];
foreach ($servers as $index => $server) {
    foreach (memcached_keys($server) as $key) {
        if (preg_match('/^' . preg_quote($prefix, '/') . 'cb:(service-\d+):/', $key, $match)) {
            $owners[$match[1]][$index] = true;
        }
    }
}
echo "services on one server each: ", count(array_filter($owners, fn ($on) => count($on) === 1)), " of ", count($owners), "\n";
echo "servers used: ", count(array_unique(array_merge(...array_map('array_keys', array_values($owners))))), "\n";

// The client's key prefix comes before the storage's, as libmemcached put it before the library's keys.
$memcached->setOption(\Memcached::OPT_PREFIX_KEY, 'app:');
$prefixed = new CircuitBreaker('prefixed', configuration(), new MemcachedStorage($memcached, prefix: $prefix, timeout: 1.0));
repeat(4, fn () => $prefixed->registerFailure());
echo "prefix app:$prefix from the servers: ", (new CircuitBreaker('prefixed', configuration(), new MemcachedStorage($servers, prefix: "app:$prefix")))->getState()->value, "\n";
echo "prefix $prefix alone: ", (new CircuitBreaker('prefixed', configuration(), new MemcachedStorage($servers, prefix: $prefix)))->getState()->value, "\n";

foreach ([
    'no server' => new \Memcached(),
    'a unix socket' => (function () { $m = new \Memcached(); $m->addServer('/run/memcached/memcached.sock', 0); return $m; })(),
    'another object' => new ArrayObject(),
] as $what => $client) {
    try {
        new MemcachedStorage($client);
        echo "$what: accepted\n";
    } catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
        echo "$what: ", preg_replace('/ given, expected .*/', '', $e->getMessage()), "\n";
    }
}
?>
--EXPECTF--
from the client / from the servers: open / open, 12 services
0 storage failures
services on one server each: 12 of 12
servers used: 2
prefix app:mc%d- from the servers: open
prefix mc%d- alone: closed
no server: Invalid servers: Memcached (no server: call addServer() before, or pass 'host:port')
a unix socket: Invalid servers: Memcached (server /run/memcached/memcached.sock (SOCKET): the storage speaks TCP only, add a host and port)
another object: Invalid servers: ArrayObject (not a \Memcached of the memcached extension)
