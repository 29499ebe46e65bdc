--TEST--
A storage host name whose DNS server does not answer: each call still ends within its timeout (fail open, StorageFailed: timed out), the answer awaited in the background, for Redis and Memcached; getaddrinfo alone would wait 12 s (timeout:3, attempts:2, A and AAAA)
--SKIPIF--
<?php
// valgrind --trace-children cannot run mount, a setuid program.
if (getenv('CB_UNDER_VALGRIND')) die('skip mount cannot run under valgrind');
exec('unshare -rnm sh -c "ip link set lo up && mount --bind /etc/hostname /etc/hostname" 2>&1', $output, $status);
if ($status !== 0) die('skip unshare -rnm is not permitted here: ' . implode(' ', $output));
?>
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

// Reruns this test in private network and mount namespaces where the only
// DNS server is 127.0.0.1:53, a socket that reads and never answers.
if (getenv('CB_SILENT_DNS') !== '1') {
    require_once __DIR__ . '/subprocess.inc';
    $dir = sys_get_temp_dir() . '/cb-dns-' . getmypid();
    @mkdir($dir);
    file_put_contents("$dir/resolv.conf", "nameserver 127.0.0.1\noptions timeout:3 attempts:2\n");
    $silent = escapeshellarg(PHP_BINARY) . ' -n -r ' . escapeshellarg(
        '$s = stream_socket_server("udp://127.0.0.1:53", $e, $m, STREAM_SERVER_BIND) or exit(1); touch($argv[1]); sleep(600);'
    ) . ' ' . escapeshellarg("$dir/ready");
    $php = escapeshellarg(PHP_BINARY) . ' -n -d display_errors=1 -d circuit_breaker.log_interval=0 -d extension=' . escapeshellarg(loaded_extension())
        . ' ' . escapeshellarg($_SERVER['SCRIPT_FILENAME']);
    $script = <<<SH
        ip link set lo up && mount --bind $dir/resolv.conf /etc/resolv.conf || exit 97
        $silent &
        server=\$!
        trap 'kill \$server 2>/dev/null; wait \$server 2>/dev/null' EXIT
        for attempt in \$(seq 200); do [ -e $dir/ready ] && break; sleep 0.05; done
        CB_SILENT_DNS=1 $php 2>&1
        SH;
    passthru('unshare -rnm sh -c ' . escapeshellarg($script), $status);
    array_map('unlink', glob("$dir/*"));
    rmdir($dir);
    exit($status);
}

$configuration = new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$storages = [
    'Redis' => new RedisStorage('redis://redis.cb-dns-test.example:6379', '', 0.2),
    'Memcached' => new MemcachedStorage('memcached.cb-dns-test.example:11211', '', 0.2),
];
foreach ($storages as $name => $storage) {
    $listener = new RecordingListener();
    $breaker = new CircuitBreaker('api', $configuration, $storage, $listener);
    $slowest = 0.0;
    for ($call = 0; $call < 3; $call++) {
        $start = microtime(true);
        $permitted = $breaker->acquirePermission();
        $breaker->registerFailure();
        $slowest = max($slowest, microtime(true) - $start);
        // Past the reconnection backoff: the next call tries again.
        usleep(600_000);
    }
    // Two storage calls of at most 0.2 s each: 1 s leaves room for a loaded
    // machine and still tells them from a resolver's 3 s.
    echo "$name: 3 calls, permitted: ", var_export($permitted, true), ', each within 1 s: ', $slowest < 1.0 ? 'yes' : sprintf('no (%.1f s)', $slowest), "\n";
    $messages = array_map(fn ($event) => $event->exception->getMessage(), $listener->events);
    $timeouts = count(array_filter($messages, fn ($message) => str_contains($message, 'timed out after 200 ms')));
    echo "$name: ", count($messages), ' StorageFailed, at least 2 of them timeouts of connecting: ', $timeouts >= 2 ? 'yes' : 'no: ' . implode(' | ', $messages), "\n";
}
?>
--EXPECT--
Redis: 3 calls, permitted: true, each within 1 s: yes
Redis: 6 StorageFailed, at least 2 of them timeouts of connecting: yes
Memcached: 3 calls, permitted: true, each within 1 s: yes
Memcached: 6 StorageFailed, at least 2 of them timeouts of connecting: yes
