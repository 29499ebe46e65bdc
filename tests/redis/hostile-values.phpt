--TEST--
RedisStorage: a value no breaker writes, at a key of the right type, is repaired like a counter that holds no number (named in one StorageFailed event, removed, at most one outcome lost): an empty state, a negative run of failures, a counter at the largest integer (INCR overflows) or beyond any count (2^60); the circuit then opens as it should, every key has a TTL, and getStatus() shows counts a breaker made
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$address = redis_env('CB_REDIS_ADDRESS');
$password = redis_env('CB_REDIS_PASSWORD');
$redis = fn (string ...$command) => resp($address, $command, $password);

// Opens after 4 failures of at least 4 calls, or, for the run of failures,
// after 4 failures in a row.
$configuration = fn (bool $runs) => new Configuration(
    timeWindow: 60,
    openingRules: [$runs ? new ConsecutiveFailuresRule(4) : new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
// The counters of $slot (0: successes, 1: failures) in the bucket of
// $counter (the success counter the first call made) and the two after it
// (the calls may cross into them), with a TTL (counters left in buckets no
// call reaches expire).
$plant = function (string $counter, int $slot, string $value) use ($redis) {
    preg_match('/^(.*:b:)(\d+):(\d+):0$/', $counter, $parts);
    foreach ([0, 1, 2] as $bucket) {
        $redis('SET', $parts[1] . ($parts[2] + $bucket) . ":{$parts[3]}:$slot", $value, 'PX', '120000');
    }
    return $parts[1] . $parts[2] . ":{$parts[3]}:$slot";
};

// Each case writes a value at keys of the circuit (after one success: the
// window exists) and returns [anything, the key a call finds first].
$cases = [
    'an empty state' => fn ($service, $counter) => [$redis('HSET', "cb:{{$service}}:s", 's', ''), "cb:{{$service}}:s"],
    'a negative run of failures' => fn ($service, $counter) => [$redis('SET', "cb:{{$service}}:c:0", '-5'), "cb:{{$service}}:c:0"],
    'a failure counter at the largest integer (INCR overflows)' => fn ($service, $counter) => [0, $plant($counter, 1, (string) PHP_INT_MAX)],
    'a success counter beyond any count (2^60)' => fn ($service, $counter) => [0, $plant($counter, 0, (string) (1 << 60))],
];
foreach ($cases as $case => $write) {
    $service = 'hostile-value-' . getmypid() . '-' . md5($case);
    $runs = in_array($case, ['a negative run of failures'], true);
    $breaker = new CircuitBreaker($service, $configuration($runs), new RedisStorage(redis_env('CB_REDIS_DSN'), timeout: 1.0), $listener = new RecordingListener());
    $breaker->registerSuccess();
    [$counter] = $redis('KEYS', "cb:{{$service}}:b:*");
    [, $key] = $write($service, $counter);
    $phase = function () use ($breaker) {
        try {
            return $breaker->getState()->value;
        } catch (Zeusi\CircuitBreaker\Exception\StorageException) {
            return 'unreadable';
        }
    };
    $calls = 0;
    do {
        $breaker->registerFailure();
    } while (++$calls < 10 && $phase() !== 'open');
    $failures = storage_failures($listener);
    $message = $failures === [] ? '' : $failures[0]->exception->getMessage();
    $keys = $redis('KEYS', "cb:{{$service}}:*");
    $withoutTtl = array_filter($keys, fn ($key) => $redis('PTTL', $key) <= 0);
    try {
        $status = $breaker->getStatus();
        $shown = $status->calls >= 0 && $status->calls <= 11 && $status->failures >= 0 && $status->failures <= $status->calls
            ? 'counts a breaker made' : "calls={$status->calls} failures={$status->failures}";
    } catch (Zeusi\CircuitBreaker\Exception\StorageException $error) {
        $shown = 'an exception: ' . $error->getMessage();
    }
    // A call that crosses into the next bucket finds its planted counter
    // too: one more repair, one more outcome lost.
    printf("%s: %s within 6 failures: %s; %s naming %s; TTL on every key: %s; getStatus() shows %s\n",
        $case,
        $phase(),
        $calls <= 6 ? 'yes' : "no ($calls)",
        count($failures) >= 1 && count($failures) <= 2 ? 'StorageFailed' : count($failures) . ' StorageFailed',
        str_contains($message, $key) ? 'the key' : "something else ($message)",
        $withoutTtl === [] ? 'yes' : 'no (' . implode(', ', $withoutTtl) . ')',
        $shown);
    $redis('DEL', ...$keys);
}
?>
--EXPECT--
an empty state: open within 6 failures: yes; StorageFailed naming the key; TTL on every key: yes; getStatus() shows counts a breaker made
a negative run of failures: open within 6 failures: yes; StorageFailed naming the key; TTL on every key: yes; getStatus() shows counts a breaker made
a failure counter at the largest integer (INCR overflows): open within 6 failures: yes; StorageFailed naming the key; TTL on every key: yes; getStatus() shows counts a breaker made
a success counter beyond any count (2^60): open within 6 failures: yes; StorageFailed naming the key; TTL on every key: yes; getStatus() shows counts a breaker made
