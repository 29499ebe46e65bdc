--TEST--
RedisStorage: two round trips per permitted call (counted by a proxy) and no script, none per rejected call while open
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
require __DIR__ . '/../support/proxy.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$address = redis_env('CB_REDIS_ADDRESS');
$password = redis_env('CB_REDIS_PASSWORD');
// The proxy counts a round trip each time the client sends after having
// been answered.
$countFile = tempnam(sys_get_temp_dir(), 'cb-trips');
[$proxy, $port] = start_proxy($address, '--count', $countFile);
// The proxy writes its count when a request arrives, before forwarding it:
// once the reply is back, the count of that round trip is written.
$roundTrips = fn (): int => (int) file_get_contents($countFile);
try {
    $breaker = new CircuitBreaker('round-trips-' . getmypid(), configuration(minimum: 20), new RedisStorage("redis://:$password@127.0.0.1:$port"));
    $breaker->acquirePermission();
    $breaker->registerSuccess(); // connects and authenticates: not counted
    $before = [$roundTrips(), command_counts($address, $password)];
    for ($i = 0; $i < 10; $i++) {
        if ($breaker->acquirePermission()) {
            $breaker->registerSuccess(0.01);
        }
    }
    $after = [$roundTrips(), command_counts($address, $password)];
    echo "round trips for 10 permitted calls: ", $after[0] - $before[0], "\n";
    echo "scripts run: ", ($after[1]['evalsha'] ?? 0) + ($after[1]['eval'] ?? 0) - ($before[1]['evalsha'] ?? 0) - ($before[1]['eval'] ?? 0), "\n";
    repeat(20, fn () => $breaker->registerFailure());
    echo $breaker->getState()->value, "\n";
    $breaker->acquirePermission(); // the first rejection reads the state once
    $before = $roundTrips();
    for ($i = 0; $i < 100; $i++) {
        $breaker->acquirePermission();
    }
    echo "round trips for 100 rejected calls: ", $roundTrips() - $before, "\n";
} finally {
    stop_proxy($proxy);
    unlink($countFile);
}
?>
--EXPECT--
round trips for 10 permitted calls: 20
scripts run: 0
open
round trips for 100 rejected calls: 0
