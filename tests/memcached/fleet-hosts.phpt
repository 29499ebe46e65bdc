--TEST--
FleetStorage over Memcached: two hosts (two processes, two workers each) open the fleet circuit on failures split across them, once; counts exact after 4 x 10 000 outcomes
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
require __DIR__ . '/../integration/fleet.inc';

$address = memcached_env('CB_MEMCACHED');
$store = ['memcached' => $address];
$log = tempnam(sys_get_temp_dir(), 'fleet');

// 25 failures per worker, 50 per host, 100 in the fleet; it opens at 70:
// no host can open it alone.
$service = 'fleet-split-' . getmypid();
run_hosts('split', $store, $service, $log, 25);
$opened = log_lines($log, 'CircuitOpened');
echo 'CircuitOpened: ', count($opened), "\n";
$failures = array_map(fn ($line) => (float) explode(' ', $line)[3], log_lines($log, 'failure'));
sort($failures);
$rejections = log_lines($log, 'rejected');
echo 'workers rejected: ', count(array_filter($rejections, fn ($line) => explode(' ', $line)[3] !== 'never')), ' of ', count($rejections), "\n";
// No host reaches 70 failures alone (50 each): the fleet opening shows
// the hosts' counts met through the store. (When, against the failures'
// timestamps, is no assertion: the call that records the 70th outcome may
// have started before others that recorded earlier.)
$perHost = array_count_values(array_map(fn ($line) => explode(' ', $line)[0], log_lines($log, 'failure')));
echo 'no host past 50 failures, at least 70 in the fleet: ', var_export(max($perHost) <= 50 && count($failures) >= 70, true), "\n";

// Counts: 10 000 outcomes per worker, every third a failure.
unlink($log);
$log = tempnam(sys_get_temp_dir(), 'fleet');
$service = 'fleet-count-' . getmypid();
run_hosts('count', $store, $service, $log, 10_000);
// The hosts' windows, as the store keeps them: the list of the hosts of
// generation 0, then each one's window.
$name = "cb:$service";
$get = fn (string $key) => memcached_item($address, $key)[0] ?? null;
$hosts = array_values(array_unique(array_filter(explode(',', (string) $get("$name:l:0")))));
$totals = [0, 0];
foreach ($hosts as $host) {
    foreach (array_slice(explode(';', (string) $get("$name:h:0:$host")), 1) as $bucket) {
        [, $counts] = explode(':', $bucket);
        foreach (explode(',', $counts) as $slot => $count) {
            $totals[$slot] += (int) $count;
        }
    }
}
$windows = array_fill(0, 2 * count($hosts), null);
echo 'hosts: ', count($windows) / 2, ', successes: ', $totals[0], ', failures: ', $totals[1], "\n";
echo 'events: ', count(file($log)), "\n";
unlink($log);
?>
--EXPECT--
CircuitOpened: 1
workers rejected: 4 of 4
no host past 50 failures, at least 70 in the fleet: true
hosts: 2, successes: 26664, failures: 13336
events: 0
