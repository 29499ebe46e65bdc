--TEST--
RedisStorage: data another client wrote at a circuit's keys (a string or an unparsable state without TTL, a counter that holds no number or is a hash) is named in a StorageFailed event and removed: the circuit heals, opens after enough failures, and its keys get a TTL back
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

// Each case corrupts a key and returns it, with what the event must say it held.
// $counter is the success counter of the current bucket (`...:b:<bucket>:<generation>:0`);
// the next failure counts in slot 1 of its own bucket.
$cases = [
    'state key SET to a string' => fn ($state, $counter) => [$redis('SET', $state, 'garbage') ? $state : '', "'garbage'"],
    'state that does not parse' => fn ($state, $counter) => [$redis('HSET', $state, 's', 'not-a-state') ? $state : '', "'not-a-state'"],
    'state that does not parse, found by acquirePermission()' => fn ($state, $counter) => [$redis('HSET', $state, 's', 'not-a-state') ? $state : '', "'not-a-state'"],
    'counter that holds no number' => fn ($state, $counter) => [$redis('SET', $counter, 'junk') ? $counter : '', "'junk'"],
    // The counters the next failure increments, whichever of the next buckets it falls in.
    'counter key that is a hash' => function ($state, $counter) use ($redis) {
        preg_match('/^(.*:b:)(\d+):(\d+):0$/', $counter, $parts);
        foreach ([0, 1, 2] as $later) {
            $failures = $parts[1] . ($parts[2] + $later) . ":{$parts[3]}:1";
            $redis('HSET', $failures, 'junk', 'junk');
        }
        return [$parts[1], 'a hash'];
    },
];
foreach ($cases as $case => $corrupt) {
    $service = "hostile-" . getmypid() . '-' . md5($case);
    $state = "cb:{{$service}}:s";
    $breaker = new CircuitBreaker($service, configuration(), new RedisStorage(redis_env('CB_REDIS_DSN'), timeout: 1.0), $listener = new RecordingListener());
    $breaker->registerSuccess(); // the window exists
    [$counter] = $redis('KEYS', "cb:{{$service}}:b:*");
    [$named, $held] = $corrupt($state, $counter);
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
    // At most one outcome is lost to the repair.
    $keys = $redis('KEYS', "cb:{{$service}}:*");
    // Planted hashes of later buckets no call reached stay as they were.
    $planted = array_filter($keys, fn ($key) => str_contains($key, ':b:') && $redis('TYPE', $key) === 'hash');
    $withoutTtl = array_filter(array_diff($keys, $planted), fn ($key) => $redis('PTTL', $key) <= 0);
    printf("%s: %s within 5 failures: %s; %d StorageFailed naming %s; TTL on every key of the circuit: %s\n",
        $case,
        $breaker->getState()->value,
        $calls <= 5 ? 'yes' : "no ($calls)",
        count($failures),
        $named !== '' && str_contains($message, $named) && str_contains($message, $held) ? 'the key and what it held' : "nothing useful ($message)",
        $withoutTtl === [] ? 'yes' : 'no (' . implode(', ', $withoutTtl) . ')');
    $redis('DEL', ...$keys);
}
?>
--EXPECT--
state key SET to a string: open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL on every key of the circuit: yes
state that does not parse: open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL on every key of the circuit: yes
state that does not parse, found by acquirePermission(): open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL on every key of the circuit: yes
counter that holds no number: open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL on every key of the circuit: yes
counter key that is a hash: open within 5 failures: yes; 1 StorageFailed naming the key and what it held; TTL on every key of the circuit: yes
