--TEST--
RedisStorage through Redis Sentinel (redis-sentinel:// DSN, passwords of the master and of the sentinels, database 2): a circuit opened through it survives SENTINEL FAILOVER on the new master, calls follow the new master within the confirmation interval with no StorageFailed, and a fresh process finds the circuit open there; then that master dies: calls fail open until the sentinels promote the old one, and go to it at once
--SKIPIF--
<?php if (!getenv('CB_REDIS_SENTINEL_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$dsn = redis_env('CB_REDIS_SENTINEL_DSN');
$password = redis_env('CB_REDIS_PASSWORD');
$servers = array_map(fn ($port) => "127.0.0.1:$port", explode(',', redis_env('CB_REDIS_SENTINEL_DATA_PORTS')));
$sentinels = array_map(fn ($port) => "127.0.0.1:$port", explode(',', redis_env('CB_REDIS_SENTINEL_PORTS')));
$sentinelPassword = redis_env('CB_REDIS_SENTINEL_PASSWORD');
$prefix = 'sentinel-' . getmypid() . ':';

// What the test starts from, whatever came before it (a loaded machine can
// stall the master past the sentinels' second and make them fail over on
// their own): the master is the server every sentinel names, the other is
// its replica, linked and in sync.
$named = fn () => array_unique(array_map(fn ($sentinel) => '127.0.0.1:' . resp($sentinel, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster'], $sentinelPassword)[1], $sentinels));
$inSync = function (string $master, string $replica) use ($password): bool {
    $info = resp($replica, ['INFO', 'replication'], $password);
    return str_contains($info, "role:slave\r\n") && str_contains($info, "master_port:" . explode(':', $master)[1] . "\r\n")
        && str_contains($info, "master_link_status:up\r\n") && str_contains($info, "master_sync_in_progress:0\r\n")
        && caught_up($master, $replica, $password);
};
$why = '';
$ready = function () use ($named, $servers, $inSync, &$why): ?array {
    try {
        $master = $named();
        if (count($master) !== 1 || !in_array($master[0], $servers, true)) {
            $why = 'the sentinels name ' . implode(', ', $master);
            return null;
        }
        $pair = [$master[0], current(array_diff($servers, $master))];
        $why = "{$pair[1]} is not a replica of {$pair[0]} in sync";
        return $inSync(...$pair) ? $pair : null;
    } catch (RuntimeException $error) {
        // A server down: this test shuts one down at its end, so a second
        // attempt of it (run-tests retries tests that use usleep) cannot run.
        $why = $error->getMessage() . ' (a server this test shut down in an earlier attempt?)';
        return null;
    }
};
for ($end = microtime(true) + 30; ($pair = $ready()) === null && microtime(true) < $end;) {
    usleep(50_000);
}
if ($pair === null) {
    throw new RuntimeException("the Sentinel servers are not a master with its replica in sync: $why");
}
[$oldMaster, $newMaster] = $pair;

/** Waits up to $seconds for $condition, calling $meanwhile in between; returns whether it held. */
function wait_until(callable $condition, float $seconds, ?callable $meanwhile = null): bool
{
    $end = microtime(true) + $seconds;
    while (!($held = $condition()) && microtime(true) < $end) {
        $meanwhile ? $meanwhile() : usleep(20_000);
    }
    return $held;
}

/** Whether $replica has processed every write $master had made when asked. */
function caught_up(string $master, string $replica, string $password): bool
{
    $offset = fn (string $server, string $field) => preg_match("/^$field:(\\d+)/m", resp($server, ['INFO', 'replication'], $password), $match) ? (int) $match[1] : -1;
    $written = $offset($master, 'master_repl_offset');
    return $written >= 0 && $offset($replica, 'slave_repl_offset') >= $written;
}

$listener = new RecordingListener();
// A generous timeout: on a loaded machine a stall must not look like a lost master.
$storage = new RedisStorage($dsn, $prefix, 0.5);
$opened = new CircuitBreaker('opened', configuration(minimum: 4), $storage, $listener);
repeat(4, fn () => $opened->registerFailure());
echo 'opened through the sentinels: ', $opened->getState()->value, "\n";
$stateKey = "{$prefix}cb:{opened}:s";
$stored = resp($oldMaster, ['HGET', $stateKey, 's'], $password, 2);
echo 'stored on the master, database 2: ', $stored !== null ? 'yes' : 'no', "\n";
echo 'replicated: ', wait_until(fn () => caught_up($oldMaster, $newMaster, $password) && resp($newMaster, ['HGET', $stateKey, 's'], $password, 2) === $stored, 5) ? 'yes' : 'no', "\n";

$traffic = new CircuitBreaker('traffic', configuration(minimum: 1000), $storage, $listener);
$call = function () use ($traffic) {
    if ($traffic->acquirePermission()) {
        $traffic->registerSuccess();
    }
    usleep(2_000);
};
repeat(20, $call);
echo 'StorageFailed before the failover: ', count(storage_failures($listener)), "\n";

echo 'SENTINEL FAILOVER: ', resp($sentinels[0], ['SENTINEL', 'FAILOVER', 'mymaster'], $sentinelPassword), "\n";
$namedBy = fn () => count(array_filter($sentinels, fn ($sentinel) => resp($sentinel, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster'], $sentinelPassword)[1] === explode(':', $newMaster)[1]));
// Calls go on while the sentinels switch.
echo 'every sentinel names the former replica: ', wait_until(fn () => $namedBy() === count($sentinels), 20, $call) ? 'yes' : 'no', "\n";
// A process asks the sentinels again once its answer is a second old (the
// old master stays a master until the sentinels demote it, up to 10 s).
wait_until(fn () => false, 1.5, $call);
$before = [command_counts($oldMaster, $password), command_counts($newMaster, $password)];
repeat(20, $call);
$after = [command_counts($oldMaster, $password), command_counts($newMaster, $password)];
// Each call is an HGET and a script (loaded on the new master once).
echo 'the next 20 calls reached the new master: ', commands_between($before[1], $after[1]) >= 40 ? 'yes' : 'no',
    ', the old one none: ', commands_between($before[0], $after[0]) === 0 ? 'yes' : 'no', "\n";
echo 'StorageFailed during the switch: ', count(storage_failures($listener)), "\n";
echo 'the state on the new master is the one stored before: ', resp($newMaster, ['HGET', $stateKey, 's'], $password, 2) === $stored ? 'yes' : 'no', "\n";

// A fresh process asks the sentinels and reads the circuit on the new master.
$child = sprintf(
    'require %s; echo (new Zeusi\CircuitBreaker\CircuitBreaker("opened", configuration(minimum: 4), new Zeusi\CircuitBreaker\Storage\RedisStorage(getenv("CB_REDIS_SENTINEL_DSN"), %s, 0.5)))->getState()->value;',
    var_export(__DIR__ . '/redis.inc', true),
    var_export($prefix, true)
);
echo 'a fresh process finds it: ', shell_exec(PHP_BINARY . ' -n -d extension=' . escapeshellarg(redis_env('CB_EXTENSION')) . ' -r ' . escapeshellarg($child)), "\n";

// The new master dies. The old one is made its replica first (what the
// sentinels would do within 10 s), so that they can promote it back.
resp($oldMaster, ['REPLICAOF', '127.0.0.1', explode(':', $newMaster)[1]], $password);
echo 'the old master replicates the new one: ', wait_until(fn () => str_contains(resp($oldMaster, ['INFO', 'replication'], $password), 'master_link_status:up'), 10) ? 'yes' : 'no', "\n";
$listener->events = [];
resp($newMaster, ['SHUTDOWN', 'NOSAVE'], $password);
// Calls go on: they fail open until the sentinels agree it is down
// (1 s) and promote the old master.
$namedOld = fn () => count(array_filter($sentinels, fn ($sentinel) => resp($sentinel, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster'], $sentinelPassword)[1] === explode(':', $oldMaster)[1]));
echo 'every sentinel names the old master again: ', wait_until(fn () => $namedOld() === count($sentinels), 30, $call) ? 'yes' : 'no', "\n";
echo 'calls failed open while there was no master: ', count(storage_failures($listener)) > 0 ? 'yes' : 'no', "\n";
// The process follows once its own answer from the sentinels names the
// promoted master: a call asks them again when the dead master is in
// backoff, or when its answer is a second old (it may have asked a sentinel
// that had not switched yet). Calls go on until one works.
$works = function () use ($call, $listener): bool {
    $listener->events = [];
    $call();
    return storage_failures($listener) === [];
};
wait_until($works, 10);
$listener->events = [];
$before = command_counts($oldMaster, $password);
repeat(20, $call);
echo 'then 20 calls reached the promoted master: ', commands_between($before, command_counts($oldMaster, $password)) >= 40 ? 'yes' : 'no',
    ', StorageFailed: ', count(storage_failures($listener)), "\n";
echo 'the circuit opened at the start is still open there: ', resp($oldMaster, ['HGET', $stateKey, 's'], $password, 2) === $stored ? 'yes' : 'no', "\n";
?>
--EXPECT--
opened through the sentinels: open
stored on the master, database 2: yes
replicated: yes
StorageFailed before the failover: 0
SENTINEL FAILOVER: OK
every sentinel names the former replica: yes
the next 20 calls reached the new master: yes, the old one none: yes
StorageFailed during the switch: 0
the state on the new master is the one stored before: yes
a fresh process finds it: open
the old master replicates the new one: yes
every sentinel names the old master again: yes
calls failed open while there was no master: yes
then 20 calls reached the promoted master: yes, StorageFailed: 0
the circuit opened at the start is still open there: yes
