--TEST--
The seed README's Memcached example runs unchanged on a real php-memcached \Memcached (127.0.0.1:11211 in a private network namespace): its storage opens a circuit that a storage of the same server and prefix sees, and no other prefix does
--EXTENSIONS--
igbinary
msgpack
memcached
--SKIPIF--
<?php
require __DIR__ . '/../phpt/seed-readme.inc';
if ($why = private_network_unavailable('memcached')) die("skip $why");
?>
--FILE--
<?php
require __DIR__ . '/../phpt/seed-readme.inc';
// Root in the namespace (unshare -r): memcached then wants -u.
in_private_network(['igbinary', 'msgpack', 'memcached'], 'memcached -l 127.0.0.1 -p 11211 -U 0 -u root', 11211);

// Seed README, Memcached (lines 294-297), unchanged.
$memcachedExample = <<<'EXAMPLE'
$memcached = new \Memcached();
$memcached->addServer('127.0.0.1', 11211);

$storage = new MemcachedStorage($memcached, prefix: 'shop:');
EXAMPLE;
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

[, $scope] = run_example(example_file($memcachedExample, 'use Zeusi\CircuitBreaker\Storage\MemcachedStorage;'));
echo 'the Memcached example: ', get_class($scope['storage']), "\n";

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 10)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = new CircuitBreaker('payments', $configuration, $scope['storage'], $listener = new RecordingListener());
repeat(10, fn () => $breaker->registerFailure());
echo "after 10 failures: ", $breaker->getState()->value, ", events: ", implode(' ', $listener->names()), "\n";
echo "the same server and prefix: ", (new CircuitBreaker('payments', $configuration, new MemcachedStorage('127.0.0.1:11211', prefix: 'shop:')))->getState()->value, "\n";
echo "no prefix: ", (new CircuitBreaker('payments', $configuration, new MemcachedStorage('127.0.0.1:11211')))->getState()->value, "\n";
?>
--EXPECT--
the Memcached example: Zeusi\CircuitBreaker\Storage\MemcachedStorage
after 10 failures: open, events: CircuitOpened
the same server and prefix: open
no prefix: closed
