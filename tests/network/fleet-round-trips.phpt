--TEST--
FleetStorage over a network store: a host of one worker, then of two, makes at most one round trip per sync interval (counted by a proxy), for the host, not per worker nor per call, open or not
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
require __DIR__ . '/../support/proxy.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\FleetStorage;

// The proxy counts a round trip each time the client sends after having
// been answered, and writes its count when a request arrives, before
// forwarding it: once the reply is back, the count of that round trip is
// written.
$countFile = tempnam(sys_get_temp_dir(), 'cb-trips');
[$proxy, $port] = start_proxy(shared_address(), '--count', $countFile);
$roundTrips = fn (): int => (int) file_get_contents($countFile);
try {
    foreach ([1, 2] as $workerCount) {
        echo "== $workerCount worker(s)\n";
        $service = "fleet-round-trips-$workerCount-" . getmypid();
        // The default sync interval, 0.2 s; a host of its own (a segment
        // of its own) for each case.
        $storage = new FleetStorage(storage(target_at("127.0.0.1:$port", shared_password())));
        // The host's workers (forks sharing its segment), 1 000 calls a
        // second on the host from $start. Each connects and calls once
        // first, before $before is read.
        $start = microtime(true) + 1.0;
        $callsFile = tempnam(sys_get_temp_dir(), 'cb-calls');
        $workers = [];
        for ($worker = 0; $worker < $workerCount; $worker++) {
            $pid = pcntl_fork();
            if ($pid === 0) {
                $breaker = new CircuitBreaker($service, configuration(minimum: 20), $storage);
                $breaker->acquirePermission();
                $breaker->registerSuccess(); // connects (and authenticates): not counted
                time_sleep_until($start);
                $calls = 0;
                while (microtime(true) - $start < 2.0) {
                    if ($breaker->acquirePermission()) {
                        $breaker->registerSuccess(0.001);
                    }
                    $calls++;
                    $next = $start + $calls / (1000 / $workerCount);
                    if ($next > microtime(true)) {
                        time_sleep_until($next);
                    }
                }
                file_put_contents($callsFile, "$calls\n", FILE_APPEND | LOCK_EX);
                exit(0);
            }
            $workers[] = $pid;
        }
        time_sleep_until($start - 0.2);
        $before = $roundTrips();
        $from = microtime(true);
        foreach ($workers as $pid) {
            pcntl_waitpid($pid, $status);
        }
        // How many sync intervals of 0.2 s the calls spanned (more than 10
        // on a loaded machine, whose workers finish late): the bounds follow it.
        $intervals = (microtime(true) - $from) / 0.2;
        $calls = array_sum(array_map('intval', file($callsFile)));
        unlink($callsFile);
        $trips = $roundTrips() - $before;
        echo "calls made: ", var_export($calls > 100, true), "\n";
        // No round trip per call: one sync per interval for the host,
        // whichever worker (+1 at each edge per worker); a sync per worker
        // would be twice that.
        echo "one sync per interval for the host, not per worker: ", var_export($trips <= $intervals + 2 * $workerCount, true), "\n";
        echo "the fleet store was synced with: ", var_export($trips >= 5, true), "\n";
        $windows = fleet_windows(shared_address(), $service);
        echo "the host's window reached it: ", var_export(count($windows) === 1 && str_contains(reset($windows), ';'), true), "\n";
    }

    // Open: rejected calls cost nothing either, between syncs.
    $breaker = new CircuitBreaker("$service-open", configuration(minimum: 20), $storage);
    $breaker->acquirePermission(); // this process connects: not counted
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
== 1 worker(s)
calls made: true
one sync per interval for the host, not per worker: true
the fleet store was synced with: true
the host's window reached it: true
== 2 worker(s)
calls made: true
one sync per interval for the host, not per worker: true
the fleet store was synced with: true
the host's window reached it: true
open
round trips for 1 000 rejected calls: at most one per sync interval: true
