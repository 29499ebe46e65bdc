--TEST--
RedisStorage: connections are not shared across databases or credentials: databases 1 and 2 of one server keep separate circuits, a wrong or missing password fails open while the right one keeps working, never put in backoff by the other
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
// A timeout of 1 s: a loaded machine must not make these calls time out.
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$address = redis_env('CB_REDIS_ADDRESS');
$password = redis_env('CB_REDIS_PASSWORD');
$service = 'isolation-' . getmypid();

// Same server, same prefix and service, databases 1 and 2.
$one = new CircuitBreaker($service, configuration(), new RedisStorage("redis://:$password@$address/1", timeout: 1.0), $listenerOne = new RecordingListener());
$two = new CircuitBreaker($service, configuration(), new RedisStorage("redis://:$password@$address/2", timeout: 1.0), $listenerTwo = new RecordingListener());
repeat(4, fn () => $one->registerFailure());
echo "database 1: ", $one->getState()->value, ", database 2: ", $two->getState()->value, "\n";
foreach ([0, 1, 2] as $db) {
    echo "state key in database $db: ", resp($address, ['EXISTS', "cb:{{$service}}:s"], $password, $db) ? 'yes' : 'no', "\n";
}
echo count(storage_failures($listenerOne)) + count(storage_failures($listenerTwo)), " storage failures\n";

// The right password has connected; a wrong one and none on the same server.
$right = new CircuitBreaker("$service-auth", configuration(), new RedisStorage("redis://:$password@$address", timeout: 1.0), $rightListener = new RecordingListener());
$right->acquirePermission();
foreach (['wrong password' => "redis://:wrong@$address", 'no password' => "redis://$address"] as $case => $dsn) {
    $other = new CircuitBreaker("$service-auth", configuration(), new RedisStorage($dsn, timeout: 1.0), $listener = new RecordingListener());
    $permitted = $other->acquirePermission();
    $failures = storage_failures($listener);
    printf("%s: %s, %s\n", $case, $permitted ? 'permitted' : 'rejected', $failures === [] ? 'no StorageFailed' : 'StorageFailed: ' . (preg_match('/authentication failed|NOAUTH/', $failures[0]->exception->getMessage()) ? 'refused by Redis' : $failures[0]->exception->getMessage()));
    // The right storage is not in the other's backoff.
    $right->acquirePermission();
    $right->registerSuccess();
    echo "  right password after it: ", count(storage_failures($rightListener)), " StorageFailed\n";
}

// A wrong password first: the right one, next, is not put into its backoff.
$service2 = "$service-first";
$wrongFirst = new CircuitBreaker($service2, configuration(), new RedisStorage("redis://:wrong@$address/3", timeout: 1.0), $listener = new RecordingListener());
$wrongFirst->acquirePermission();
echo "wrong password first: ", count(storage_failures($listener)), " StorageFailed\n";
$rightNext = new CircuitBreaker($service2, configuration(), new RedisStorage("redis://:$password@$address/3", timeout: 1.0), $listener = new RecordingListener());
$rightNext->acquirePermission();
$rightNext->registerFailure();
echo "right password next: ", count(storage_failures($listener)), " StorageFailed\n";
foreach ([1, 2, 3] as $db) {
    resp($address, ['DEL', "cb:{{$service}}:s", "cb:{{$service}}:w", "cb:{{$service2}}:s", "cb:{{$service2}}:w"], $password, $db);
}
resp($address, ['DEL', "cb:{{$service}-auth}:s", "cb:{{$service}-auth}:w"], $password);
?>
--EXPECT--
database 1: open, database 2: closed
state key in database 0: no
state key in database 1: yes
state key in database 2: no
0 storage failures
wrong password: permitted, StorageFailed: refused by Redis
  right password after it: 0 StorageFailed
no password: permitted, StorageFailed: refused by Redis
  right password after it: 0 StorageFailed
wrong password first: 1 StorageFailed
right password next: 0 StorageFailed
