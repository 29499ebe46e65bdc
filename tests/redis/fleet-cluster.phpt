--TEST--
FleetStorage over Redis Cluster: two hosts (two processes, two workers each) open the fleet circuit on failures split across them, once; counts exact after 4 x 10 000 outcomes
--SKIPIF--
<?php if (!getenv('CB_REDIS_CLUSTER')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
require __DIR__ . '/../integration/fleet.inc';

$nodes = explode(',', redis_env('CB_REDIS_CLUSTER'));
$store = ['redis' => $nodes];

/** A command on the master of its key's slot: MOVED is followed. */
function on_cluster(array $nodes, array $command): mixed
{
    $address = parse_url($nodes[0], PHP_URL_HOST) . ':' . parse_url($nodes[0], PHP_URL_PORT);
    for ($hop = 0; $hop < 3; $hop++) {
        try {
            return resp($address, $command);
        } catch (RuntimeException $moved) {
            if (!preg_match('/^MOVED \d+ (\S+)$/', $moved->getMessage(), $match)) {
                throw $moved;
            }
            $address = $match[1];
        }
    }
    throw new RuntimeException('MOVED more than twice');
}
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
// The fleet crosses the threshold at its 70th failure; a host sees it at
// its first call after its next sync (50 ms, calls every 20 ms). 1 s is
// 20 sync intervals: a margin for a loaded machine, while a host that
// never synced would never open (50 failures < 70).
$openedAt = (float) explode(' ', $opened[0] ?? 'x x x 0')[3];
echo 'opened within 1 s of the 70th failure: ', var_export($openedAt - $failures[69] < 1.0 && $openedAt >= $failures[69] - 0.001, true), "\n";
$lags = array_map(fn ($line) => (float) explode(' ', $line)[3] - $openedAt, $rejections);
echo 'every worker rejects within 1 s of the opening: ', var_export(max($lags) < 1.0, true), "\n";

// Counts: 10 000 outcomes per worker, every third a failure.
unlink($log);
$log = tempnam(sys_get_temp_dir(), 'fleet');
$service = 'fleet-count-' . getmypid();
run_hosts('count', $store, $service, $log, 10_000);
$windows = on_cluster($nodes, ['HGETALL', "cb:{{$service}}:h:0"]);
$totals = [0, 0];
for ($i = 0; $i < count($windows); $i += 2) {
    foreach (array_slice(explode(';', $windows[$i + 1]), 1) as $bucket) {
        [, $counts] = explode(':', $bucket);
        foreach (explode(',', $counts) as $slot => $count) {
            $totals[$slot] += (int) $count;
        }
    }
}
echo 'hosts: ', count($windows) / 2, ', successes: ', $totals[0], ', failures: ', $totals[1], "\n";
echo 'events: ', count(file($log)), "\n";
unlink($log);
?>
--EXPECT--
CircuitOpened: 1
workers rejected: 4 of 4
opened within 1 s of the 70th failure: true
every worker rejects within 1 s of the opening: true
hosts: 2, successes: 26664, failures: 13336
events: 0
