--TEST--
RedisStorage on Redis Cluster: a slot migrated under traffic (CLUSTER SETSLOT IMPORTING/MIGRATING, its keys moved a few at a time with MIGRATE, SETSLOT NODE) fails no call and counts every outcome once: each command follows its key (ASK with an ASKING before each command sent to the importing node, MOVED, TRYAGAIN), and no key is created on the importing node while the migrating one still holds it (MIGRATE would refuse it: BUSYKEY)
--SKIPIF--
<?php if (!getenv('CB_REDIS_CLUSTER')) die('skip run tests/integration/redis.sh'); ?>
--FILE--
<?php
require __DIR__ . '/redis.inc';
require __DIR__ . '/../phpt/subprocess.inc';

$nodes = explode(',', redis_env('CB_REDIS_CLUSTER'));
$address = substr($nodes[0], strlen('redis://'));
$service = 'migrating-' . getmypid();
$slot = resp($address, ['CLUSTER', 'KEYSLOT', "cb:{{$service}}:s"]);
$masters = [];
foreach (resp($address, ['CLUSTER', 'SLOTS']) as [$first, $last, $master]) {
    $masters["$master[0]:$master[1]"] = $master[2];
    if ($slot >= $first && $slot <= $last) {
        $source = "$master[0]:$master[1]";
    }
}
$target = array_key_first(array_diff_key($masters, [$source => true]));

// The traffic: one process calling the breaker without a pause, saying how
// many outcomes it registered every 5, until its standard input closes.
$child = tempnam(sys_get_temp_dir(), 'cb-migration') . '.php';
$include = realpath(__DIR__ . '/redis.inc');
file_put_contents($child, <<<PHP
<?php
require '$include';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

// A failure every third outcome: the run of failures is written too; the
// circuit never opens.
\$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 90, minimumRequests: 4), new ConsecutiveFailuresRule(100)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
\$breaker = new CircuitBreaker('$service', \$configuration, new RedisStorage(explode(',', redis_env('CB_REDIS_CLUSTER')), timeout: 1.0), \$listener = new RecordingListener());
stream_set_blocking(STDIN, false);
\$registered = 0;
\$failures = 0;
while (true) {
    \$breaker->acquirePermission();
    if (\$registered % 3 === 2) {
        \$breaker->registerFailure();
        \$failures++;
    } else {
        \$breaker->registerSuccess();
    }
    if (++\$registered % 5 === 0) {
        echo "\$registered\\n";
        fgets(STDIN);
        if (feof(STDIN)) {
            break;
        }
    }
}
\$status = \$breaker->getStatus();
\$messages = array_unique(array_map(fn (\$event) => \$event->exception->getMessage(), storage_failures(\$listener)));
printf("%s; counted: %s; %d StorageFailed%s\\n",
    \$status->state->value,
    \$status->calls === \$registered && \$status->failures === \$failures ? 'every outcome, once' : "{\$status->calls} calls and {\$status->failures} failures of \$registered and \$failures",
    count(storage_failures(\$listener)),
    \$messages === [] ? '' : ' (' . implode('; ', \$messages) . ')');
PHP);
$environment = getenv();
$process = proc_open([PHP_BINARY, '-n', '-d', 'extension=' . loaded_extension(), '-d', 'circuit_breaker.log_interval=0', $child], [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes, null, $environment);
$registered = 0;
stream_set_blocking($pipes[1], false);
// Waits until the traffic registered $outcomes more outcomes (20 outcomes
// taking 20 s are calls that hang until their timeout, or longer).
$traffic = function (int $outcomes) use ($pipes, $process, &$registered) {
    static $buffer = '';
    $until = $registered + $outcomes;
    $stalled = microtime(true) + 20;
    while ($registered < $until) {
        [$read, $write, $except] = [[$pipes[1]], null, null];
        $left = $stalled - microtime(true);
        if ($left <= 0 || stream_select($read, $write, $except, (int) $left, (int) (fmod($left, 1) * 1e6)) === 0) {
            echo "the traffic stalled at $registered outcomes\n";
            proc_terminate($process, 9);
            proc_close($process);
            exit;
        }
        $chunk = fread($pipes[1], 8192);
        if ($chunk === '' && feof($pipes[1])) {
            throw new RuntimeException("the traffic stopped: $buffer");
        }
        $buffer .= $chunk;
        while (($end = strpos($buffer, "\n")) !== false) {
            $line = substr($buffer, 0, $end);
            $buffer = substr($buffer, $end + 1);
            if (!preg_match('/^\d+$/', $line)) {
                throw new RuntimeException("the traffic stopped: $line$buffer");
            }
            $registered = (int) $line;
        }
    }
};

$traffic(20);
resp($target, ['CLUSTER', 'SETSLOT', $slot, 'IMPORTING', $masters[$source]]);
$traffic(20);
resp($source, ['CLUSTER', 'SETSLOT', $slot, 'MIGRATING', $masters[$target]]);
$traffic(20);
// The keys a few at a time, with traffic in between; new keys (the next
// buckets) go to the importing node meanwhile.
[$host, $port] = explode(':', $target);
$refusals = [];
$batches = 0;
while (($keys = resp($source, ['CLUSTER', 'GETKEYSINSLOT', $slot, 2])) !== []) {
    try {
        resp($source, ['MIGRATE', $host, $port, '', 0, 5000, 'KEYS', ...$keys]);
    } catch (RuntimeException $refused) {
        $refusals[] = $refused->getMessage();
        resp($source, ['MIGRATE', $host, $port, '', 0, 5000, 'REPLACE', 'KEYS', ...$keys]);
    }
    $batches++;
    $traffic(20);
}
foreach (array_unique([$target, $source, ...array_keys($masters)]) as $node) {
    resp($node, ['CLUSTER', 'SETSLOT', $slot, 'NODE', $masters[$target]]);
}
$traffic(20);
fclose($pipes[0]);
stream_set_blocking($pipes[1], true);
$output = trim(stream_get_contents($pipes[1]));
fclose($pipes[1]);
proc_close($process);
unlink($child);
echo "keys moved in ", $batches > 1 ? 'several batches' : "$batches batch", ", ", $refusals === [] ? 'none refused' : 'refused: ' . implode('; ', array_unique($refusals)), "\n";
echo "the slot's keys: ", count(resp($source, ['CLUSTER', 'GETKEYSINSLOT', $slot, 10])) === 0 && count(resp($target, ['CLUSTER', 'GETKEYSINSLOT', $slot, 10])) > 0 ? 'on the new master only' : 'not where they should be', "\n";
echo "the traffic: ", preg_replace('/\d+\n/', '', $output), "\n";
?>
--EXPECT--
keys moved in several batches, none refused
the slot's keys: on the new master only
the traffic: closed; counted: every outcome, once; 0 StorageFailed
