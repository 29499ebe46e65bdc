--TEST--
FleetStorage over Memcached, many hosts (host segments of their own, in one process): after 150 hosts died (their windows expired), the 200 live ones each count every live host, the list of hosts holds each live one once and no dead one; past 256 hosts, the bound, each host says so once (StorageFailed) and the list still holds each host once
--SKIPIF--
<?php if (!getenv('CB_MEMCACHED')) die('skip run tests/integration/memcached.sh'); ?>
--FILE--
<?php
require __DIR__ . '/memcached.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$address = memcached_env('CB_MEMCACHED');
$prefix = 'many' . getmypid();
$store = new MemcachedStorage($address, $prefix, timeout: 1.0);
// Never opens: the counts are what is looked at.
$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 100, minimumRequests: 1_000_000)],
    openDuration: 30,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);

/** Hosts $from to $to - 1: a breaker of 'payments' each, on a host segment of its own. */
function hosts(int $from, int $to): array
{
    global $store, $configuration;
    $hosts = [];
    for ($i = $from; $i < $to; $i++) {
        $listener = new RecordingListener();
        $breaker = new CircuitBreaker('payments', $configuration, new FleetStorage($store, host: new SharedMemoryStorage("host$i:"), syncInterval: 0.01), $listener);
        $hosts[$i] = ['breaker' => $breaker, 'listener' => $listener, 'last' => 0];
    }
    return $hosts;
}

/** One call per host, each at least one sync interval (10 ms) after its last: each syncs. */
function round_of(array &$hosts, callable $call): void
{
    foreach ($hosts as &$host) {
        while (hrtime(true) - $host['last'] < 10_500_000) {
            usleep(500);
        }
        $host['last'] = hrtime(true);
        $call($host['breaker']);
    }
}

/** The ids the store lists for the generation 0 of 'payments', in order. */
function listed(): array
{
    global $address, $prefix;
    return array_values(array_filter(explode(',', (string) (memcached_item($address, "{$prefix}cb:payments:l:0")[0] ?? ''))));
}

function describe_list(array $hosts): string
{
    $listed = listed();
    return count($listed) . ' entries, ' . count(array_unique($listed)) . ' distinct';
}

// 150 hosts count a failure each, then die: their windows expire (deleted
// here, as their time to live would).
$dead = hosts(0, 150);
round_of($dead, fn ($breaker) => $breaker->registerFailure());
round_of($dead, fn ($breaker) => $breaker->acquirePermission());
$deadIds = listed();
echo 'dead hosts listed: ', count($deadIds), "\n";
foreach ($deadIds as $id) {
    memcached_raw($address, "delete {$prefix}cb:payments:h:0:$id\r\n");
}
unset($dead);

// 200 live hosts, 4 failures each: 800 in the fleet. Two calls more each,
// so that every host has sent its last failure and read everyone's.
$live = hosts(150, 350);
for ($i = 0; $i < 4; $i++) {
    round_of($live, fn ($breaker) => $breaker->registerFailure());
}
round_of($live, fn ($breaker) => $breaker->acquirePermission());
round_of($live, fn ($breaker) => $breaker->acquirePermission());
$counts = array_count_values(array_map(fn ($host) => $host['breaker']->getStatus()->failures, $live));
ksort($counts);
echo 'failures each live host counts: ', json_encode($counts), "\n";
echo 'list: ', describe_list($live), ', dead ones in it: ', count(array_intersect(listed(), $deadIds)), "\n";
echo 'StorageFailed: ', array_sum(array_map(fn ($host) => count(storage_failures($host['listener'])), $live)), "\n";

// 60 hosts more: 260, past the 256 whose windows a host reads.
$more = hosts(350, 410);
round_of($more, fn ($breaker) => $breaker->registerFailure());
$live += $more;
for ($i = 0; $i < 3; $i++) {
    round_of($live, fn ($breaker) => $breaker->acquirePermission());
}
echo 'list: ', describe_list($live), "\n";
$said = array_merge(...array_map(fn ($host) => storage_failures($host['listener']), array_values($live)));
echo 'StorageFailed: ', count($said), ', one per host: ', var_export(count($said) === count($live), true), "\n";
echo preg_replace('/\d{5,}/', 'N', $said[0] ?? 'none'), "\n";
?>
--EXPECT--
dead hosts listed: 150
failures each live host counts: {"800":200}
list: 200 entries, 200 distinct, dead ones in it: 0
StorageFailed: 0
list: 260 entries, 260 distinct
StorageFailed: 260, one per host: true
the fleet store lists 260 hosts for circuit 'payments', more than the 256 a host reads the windows of: this host counts the outcomes of 256 of them, itself included
