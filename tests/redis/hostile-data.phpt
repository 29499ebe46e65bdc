--TEST--
RedisStorage: data another client wrote at a circuit's keys (a string or an unparsable state without TTL, a foreign field or a string at the window) is named in a StorageFailed event and removed: the circuit heals, opens after enough failures, and its keys get a TTL back
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
$redis = fn (string ...$command) => resp($address, $command, $password);

$cases = [
    'state key SET to a string' => fn ($state, $window) => $redis('SET', $state, 'garbage'),
    'state that does not parse' => fn ($state, $window) => $redis('HSET', $state, 's', 'not-a-state'),
    'state that does not parse, found by acquirePermission()' => fn ($state, $window) => $redis('HSET', $state, 's', 'not-a-state'),
    'foreign field in the window' => fn ($state, $window) => $redis('HSET', $window, 'junk', 'junk'),
    'window key SET to a string' => fn ($state, $window) => $redis('SET', $window, 'garbage'),
];
foreach ($cases as $case => $corrupt) {
    $service = "hostile-" . getmypid() . '-' . md5($case);
    $state = "cb:{{$service}}:s";
    $window = "cb:{{$service}}:w";
    $breaker = new CircuitBreaker($service, configuration(), new RedisStorage(redis_env('CB_REDIS_DSN'), timeout: 1.0), $listener = new RecordingListener());
    $breaker->registerSuccess(); // the window exists
    $corrupt($state, $window);
    // Failures until the circuit opens, as many as it takes (at most 10).
    $open = function () use ($breaker) {
        try {
            return $breaker->getState()->value === 'open';
        } catch (Zeusi\CircuitBreaker\Exception\StorageException) {
            return false; // what the listener heard, getState() throws
        }
    };
    $calls = 0;
    if (str_contains($case, 'acquirePermission')) {
        $breaker->acquirePermission();
    }
    do {
        $breaker->registerFailure();
    } while (++$calls < 10 && !$open());
    $failures = storage_failures($listener);
    $message = $failures === [] ? '' : $failures[0]->exception->getMessage();
    // At most one outcome is lost to the repair (two when the window goes).
    printf("%s: %s within 5 failures: %s; %d StorageFailed naming %s; TTL: state %s, window %s\n",
        $case,
        $breaker->getState()->value,
        $calls <= 5 ? 'yes' : "no ($calls)",
        count($failures),
        str_contains($message, $case === 'foreign field in the window' || $case === 'window key SET to a string' ? $window : $state)
            && preg_match("/'(garbage|not-a-state|junk)'/", $message) ? 'the key and what it held' : "nothing useful ($message)",
        $redis('PTTL', $state) > 0 ? 'yes' : 'no (' . $redis('PTTL', $state) . ')',
        $redis('PTTL', $window) > 0 ? 'yes' : 'no (' . $redis('PTTL', $window) . ')');
    $redis('DEL', $state, $window);
}
?>
--EXPECT--
state key SET to a string: open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL: state yes, window yes
state that does not parse: open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL: state yes, window yes
state that does not parse, found by acquirePermission(): open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL: state yes, window yes
foreign field in the window: open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL: state yes, window yes
window key SET to a string: open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL: state yes, window yes
