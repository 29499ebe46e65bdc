--TEST--
FleetStorage over a network store killed mid-traffic: each host opens on its own failures; one StorageFailed and one StorageRecovered per host
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
require __DIR__ . '/../integration/fleet.inc';

$dir = sys_get_temp_dir() . '/cb-fleet-outage-' . getmypid();
$port = start_store($dir);
$store = [store() => target_at("127.0.0.1:$port")];
$service = 'fleet-outage-' . getmypid();
try {
    // Traffic; the store killed; the workers fail once every host knows;
    // the store started again once every host opened on its own failures.
    [$events, $refused] = run_outage($store, $service, fn () => kill_store($dir), fn () => start_store($dir, $port));
} finally {
    stop_store($dir, $port);
    exec('rm -rf ' . escapeshellarg($dir));
}
foreach ($events as $host => $list) {
    echo "host $host: ", implode(', ', $list), "\n";
}
foreach ($refused as $host => $count) {
    echo "host $host refused calls while failing: ", var_export($count > 10, true), "\n";
}
?>
--EXPECT--
host A: StorageFailed, CircuitOpened, StorageRecovered
host B: StorageFailed, CircuitOpened, StorageRecovered
host A refused calls while failing: true
host B refused calls while failing: true
