--TEST--
FleetStorage over Memcached: a host makes at most one round trip per sync interval (counted by a proxy), not one per call, open or not
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
require __DIR__ . '/../support/proxy.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

$address = memcached_env('CB_MEMCACHED');
// The proxy counts a round trip each time the client sends after having
// been answered.
$countFile = tempnam(sys_get_temp_dir(), 'cb-trips');
[$proxy, $port] = start_proxy($address, '--count', $countFile);
// The proxy writes its count when a request arrives, before forwarding it:
// once the reply is back, the count of that round trip is written.
$roundTrips = fn (): int => (int) file_get_contents($countFile);
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
    // How many sync intervals of 0.2 s the calls spanned: the bound follows it.
    $intervals = (microtime(true) - $start) / 0.2;
    echo "calls made: ", var_export($calls > 100, true), "\n";
    // No round trip per call: one sync per interval (+1 at each edge).
    echo "round trips at most one per sync interval: ", var_export($trips <= $intervals + 2, true), "\n";
    echo "the fleet store was synced with: ", var_export($trips >= 5, true), "\n";
    $hosts = array_values(array_filter(explode(',', memcached_item($address, "cb:$service:l:0")[0] ?? '')));
    $window = count($hosts) === 1 ? memcached_item($address, "cb:$service:h:0:{$hosts[0]}")[0] ?? '' : '';
    echo "the host's window reached it: ", var_export(str_contains($window, ';'), true), "\n";

    // Open: rejected calls cost nothing either, between syncs.
    $breaker = new CircuitBreaker("$service-open", configuration(minimum: 20), $storage);
    repeat(20, fn () => $breaker->registerFailure());
    echo $breaker->getState()->value, "\n";
    $before = $roundTrips();
    $from = microtime(true);
    for ($i = 0; $i < 1_000; $i++) {
        $breaker->acquirePermission();
    }
    $intervals = (microtime(true) - $from) / 0.2;
    echo "round trips for 1 000 rejected calls: at most one per sync interval: ", var_export($roundTrips() - $before <= $intervals + 2, true), "\n";
} finally {
    stop_proxy($proxy);
    unlink($countFile);
}
?>
--EXPECT--
calls made: true
round trips at most one per sync interval: true
the fleet store was synced with: true
the host's window reached it: true
open
round trips for 1 000 rejected calls: at most one per sync interval: true
