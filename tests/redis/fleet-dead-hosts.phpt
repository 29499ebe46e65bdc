--TEST--
FleetStorage over Redis: the windows of hosts that are gone are pruned at each sync, a bounded number at a time: 100 000 dead host fields (as a fleet of hosts that came and went leaves them) neither time a sync out (the host stays on the fleet, no StorageFailed) nor stay, and a host listed but not heard of within its window's life is removed
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--INI--
memory_limit=512M
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$address = redis_env('CB_REDIS_ADDRESS');
$password = redis_env('CB_REDIS_PASSWORD');
$redis = fn (string ...$command) => resp($address, $command, $password);
$service = 'fleet-dead-' . getmypid();
$windows = "cb:{{$service}}:h:0";

// 100 000 hosts gone, each with the window it sent last (a few buckets).
$fields = [];
for ($host = 1; $host <= 100_000; $host++) {
    array_push($fields, (string) (PHP_INT_MAX - $host), '0;29400001:3,1;29400002:5,0');
}
foreach (array_chunk($fields, 20_000) as $chunk) {
    $redis('HSET', $windows, ...$chunk);
}
$redis('PEXPIRE', $windows, '600000');
echo 'dead host fields: ', $redis('HLEN', $windows), "\n";

// One live host, with the storage's default timeout (50 ms), syncing
// every 10 ms; its calls go on until the hash holds its own field only.
$fleet = new FleetStorage(new RedisStorage(redis_env('CB_REDIS_DSN')), new SharedMemoryStorage("dead-hosts-" . getmypid() . ':'), syncInterval: 0.01);
$breaker = new CircuitBreaker($service, configuration(minimum: 1_000_000), $fleet, $listener = new RecordingListener());
$calls = 0;
$deadline = microtime(true) + 30;
do {
    $breaker->registerSuccess();
    $calls++;
    if ($calls % 20 === 0) {
        $left = $redis('HLEN', $windows);
    }
} while (($left ?? 2) > 1 && microtime(true) < $deadline);
$failures = storage_failures($listener);
echo 'host fields left: ', $left, "\n";
echo 'StorageFailed: ', count($failures), $failures === [] ? '' : ' (' . $failures[0]->exception->getMessage() . ')', "\n";
echo 'the live host indexed: ', $redis('ZCARD', "cb:{{$service}}:hi:0") === 1 ? 'yes' : 'no', "\n";

// A host in the index not heard of for longer than its window lives
// (written as a host that stopped an hour ago would have left it) is removed.
$redis('ZADD', "cb:{{$service}}:hi:0", (string) (floor(microtime(true) * 1000) - 3_600_000), '42');
$redis('HSET', $windows, '42', '0;29400001:7,7');
$before = $redis('ZCARD', "cb:{{$service}}:hi:0");
$deadline = microtime(true) + 30;
do {
    $breaker->registerSuccess();
} while ($redis('HEXISTS', $windows, '42') === 1 && microtime(true) < $deadline);
echo 'a host gone for an hour: ', $before === 2 && $redis('HEXISTS', $windows, '42') === 0 && $redis('ZSCORE', "cb:{{$service}}:hi:0", '42') === null ? 'removed' : 'still there', "\n";
foreach ($redis('KEYS', "cb:{{$service}}:*") as $key) {
    $redis('DEL', $key);
}
?>
--EXPECT--
dead host fields: 100000
host fields left: 1
StorageFailed: 0
the live host indexed: yes
a host gone for an hour: removed
