--TEST--
A Memcached server given without a port is on 11211, as every Memcached client has it: MemcachedStorage('127.0.0.1'), 'localhost' and a list of one such host reach the memcached of 127.0.0.1:11211 (in a private network namespace) and share its circuits with '127.0.0.1:11211'; a server string that is wrong says which part, and what is accepted
--SKIPIF--
<?php
require __DIR__ . '/../phpt/seed-readme.inc';
if ($why = private_network_unavailable('memcached')) die("skip $why");
?>
--FILE--
<?php
require __DIR__ . '/../phpt/seed-readme.inc';
// Root in the namespace (unshare -r): memcached then wants -u.
in_private_network([], 'memcached -l 127.0.0.1 -p 11211 -U 0 -u root', 11211);
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new ConsecutiveFailuresRule(failures: 1)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$withPort = new MemcachedStorage('127.0.0.1:11211');
foreach (['127.0.0.1', 'localhost', ['127.0.0.1']] as $index => $servers) {
    $listener = new RecordingListener();
    $breaker = new CircuitBreaker("service-$index", $configuration, new MemcachedStorage($servers), $listener);
    $breaker->registerFailure();
    printf(
        "%s: %s, events: %s; seen through 127.0.0.1:11211: %s\n",
        json_encode($servers),
        $breaker->getState()->value,
        implode(' ', $listener->names()),
        (new CircuitBreaker("service-$index", $configuration, $withPort))->getState()->value,
    );
}
foreach (['::1', 'cache:0', 'cache:', '[::1', ['127.0.0.1', 'cache:abc']] as $servers) {
    try {
        new MemcachedStorage($servers);
        echo json_encode($servers), ": accepted\n";
    } catch (Zeusi\CircuitBreaker\Exception\InvalidConfigurationException $e) {
        echo strstr($e->getMessage(), ' given, expected', true), "\n";
    }
}
echo strstr($e->getMessage(), 'expected'), "\n";
?>
--EXPECT--
"127.0.0.1": open, events: CircuitOpened; seen through 127.0.0.1:11211: open
"localhost": open, events: CircuitOpened; seen through 127.0.0.1:11211: open
["127.0.0.1"]: open, events: CircuitOpened; seen through 127.0.0.1:11211: open
Invalid servers: '::1' (is an IPv6 address without brackets: write '[::1]:11211')
Invalid servers: 'cache:0' (has a port that is not a number from 1 to 65535)
Invalid servers: 'cache:' (has a port that is not a number from 1 to 65535)
Invalid servers: '[::1' (has no ']' closing its IPv6 address)
Invalid servers: array ('cache:abc' has a port that is not a number from 1 to 65535)
expected 'host[:port]' (port 1 to 65535, 11211 when left out; an IPv6 address in brackets, '[::1]:11211'), a non-empty array of them, or a \Memcached with TCP servers
