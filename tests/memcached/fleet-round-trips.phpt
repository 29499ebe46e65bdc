--TEST--
FleetStorage over Memcached: at most 0.02 round trips per protected call at 1 000 calls a second on a host (counted by a proxy), none while open
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$address = memcached_env('CB_MEMCACHED');
// The benchmark's proxy counts a round trip each time the client sends
// after having been answered.
$server = stream_socket_server('tcp://127.0.0.1:0');
$port = (int) explode(':', stream_socket_get_name($server, false))[1];
fclose($server);
$countFile = tempnam(sys_get_temp_dir(), 'cb-trips');
$proxy = proc_open([PHP_BINARY, '-n', __DIR__ . '/../../bench/round-trip-proxy.php', $port, $address, $countFile], [], $pipes);
for ($i = 0; $i < 250 && @stream_socket_client("tcp://127.0.0.1:$port") === false; $i++) {
    usleep(20_000);
}
$roundTrips = function () use ($countFile): int {
    usleep(50_000); // the proxy writes its count after forwarding
    return (int) file_get_contents($countFile);
};
$service = 'fleet-round-trips-' . getmypid();
try {
    // The default sync interval, 0.2 s.
    $storage = new FleetStorage(new MemcachedStorage("127.0.0.1:$port"));
    $breaker = new CircuitBreaker($service, configuration(minimum: 20), $storage);
    $breaker->acquirePermission();
    $breaker->registerSuccess(); // connects: not counted
    $before = $roundTrips();
    // 2 s at 1 000 calls a second: call i at $start + i ms.
    $start = microtime(true);
    $calls = 0;
    while (($elapsed = microtime(true) - $start) < 2.0) {
        if ($breaker->acquirePermission()) {
            $breaker->registerSuccess(0.001);
        }
        $calls++;
        $next = $start + $calls / 1000;
        if ($next > microtime(true)) {
            time_sleep_until($next);
        }
    }
    $trips = $roundTrips() - $before;
    echo "calls at least 500 a second: ", var_export($calls >= 1_000, true), "\n";
    // About 10 syncs in 2 s; a loaded machine makes fewer calls, not more syncs.
    echo "round trips per call at most 0.02: ", var_export($trips / $calls <= 0.02, true), "\n";
    echo "the fleet store was synced with: ", var_export($trips >= 5, true), "\n";
    $hosts = array_values(array_filter(explode(',', memcached_item($address, "cb:$service:l:0")[0] ?? '')));
    $window = count($hosts) === 1 ? memcached_item($address, "cb:$service:h:0:{$hosts[0]}")[0] ?? '' : '';
    echo "the host's window reached it: ", var_export(str_contains($window, ';'), true), "\n";

    // Open: rejected calls cost nothing either, between syncs.
    $breaker = new CircuitBreaker("$service-open", configuration(minimum: 20), $storage);
    repeat(20, fn () => $breaker->registerFailure());
    echo $breaker->getState()->value, "\n";
    $before = $roundTrips();
    for ($i = 0; $i < 1_000; $i++) {
        $breaker->acquirePermission();
    }
    echo "round trips for 1 000 rejected calls: at most one per sync interval: ", var_export($roundTrips() - $before <= 2, true), "\n";
} finally {
    proc_terminate($proxy);
    proc_close($proxy);
    unlink($countFile);
}
?>
--EXPECT--
calls at least 500 a second: true
round trips per call at most 0.02: true
the fleet store was synced with: true
the host's window reached it: true
open
round trips for 1 000 rejected calls: at most one per sync interval: true
