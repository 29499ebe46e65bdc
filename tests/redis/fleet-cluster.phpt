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
run_fleet_hosts($store, fn (string $service) => hash_of(on_cluster($nodes, ['HGETALL', "cb:{{$service}}:h:0"])));
?>
--EXPECT--
CircuitOpened: 1
workers rejected: 4 of 4
no host past 50 failures, at least 70 in the fleet: true
hosts: 2, successes: 26664, failures: 13336
events: 0
