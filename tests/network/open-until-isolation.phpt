--TEST--
A network storage: what a worker remembers of open circuits is kept apart by server, prefix and service (prefix "shop" with service "api" is not prefix "shopa" with service "pi"), and an open circuit still costs no round trip
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;

$run = getmypid();
$opened = new CircuitBreaker('api', configuration(openDuration: 60), storage(prefix: "shop$run", timeout: 1.0));
repeat(4, fn () => $opened->registerFailure());
var_dump($opened->acquirePermission());

$other = new CircuitBreaker('pi', configuration(openDuration: 60), storage(prefix: "shop{$run}a", timeout: 1.0));
echo "prefix shop{run}a, service pi: ", $other->acquirePermission() ? 'permitted' : 'rejected', "\n";
$before = store_commands(shared_address());
$rejected = 0;
for ($i = 0; $i < 100; $i++) {
    $rejected += $opened->acquirePermission() ? 0 : 1;
}
echo "$rejected of 100 rejected with ", store_commands(shared_address()) - $before, " requests to the store\n";

$dir = sys_get_temp_dir() . "/cb-open-until-$run";
$port = start_store($dir);
try {
    $elsewhere = new CircuitBreaker('api', configuration(openDuration: 60), storage(target_at("127.0.0.1:$port"), prefix: "shop$run", timeout: 1.0));
    echo "same prefix and service on another server: ", $elsewhere->acquirePermission() ? 'permitted' : 'rejected', "\n";
} finally {
    stop_store($dir, $port);
    exec('rm -rf ' . escapeshellarg($dir));
}
?>
--EXPECT--
bool(false)
prefix shop{run}a, service pi: permitted
100 of 100 rejected with 0 requests to the store
same prefix and service on another server: permitted
