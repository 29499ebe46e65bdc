--TEST--
RedisStorage: a value far larger than any a breaker writes (a 48 MB state, a 48 MB counter) is never read whole: the worker's peak memory grows by a few MB, not by hundreds; the call fails open with one StorageFailed that does not echo the value, the value is removed, and the next call works
--SKIPIF--
<?php if (!getenv('CB_REDIS_DSN')) die('skip run tests/integration/redis.sh'); ?>
--INI--
memory_limit=512M
--FILE--
<?php
require __DIR__ . '/redis.inc';
require __DIR__ . '/../phpt/subprocess.inc';

$address = redis_env('CB_REDIS_ADDRESS');
$password = redis_env('CB_REDIS_PASSWORD');
$redis = fn (string ...$command) => resp($address, $command, $password);
$large = str_repeat('x', 48 << 20);

$child = tempnam(sys_get_temp_dir(), 'cb-large') . '.php';
$bootstrap = realpath(__DIR__ . '/redis.inc');
file_put_contents($child, <<<PHP
<?php
require '$bootstrap';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

[, \$service, \$call] = \$argv;
\$storage = new RedisStorage(redis_env('CB_REDIS_DSN'), timeout: 1.0);
// The connection open and the code paged in before the peak is read.
\$warm = new CircuitBreaker("\$service-warm", configuration(), \$storage);
\$warm->acquirePermission();
\$warm->registerFailure();
\$before = getrusage()['ru_maxrss'];
\$breaker = new CircuitBreaker(\$service, configuration(), \$storage, \$listener = new RecordingListener());
\$permitted = \$call === 'acquirePermission' ? \$breaker->acquirePermission() : (\$breaker->registerFailure() ?? true);
\$grown = (getrusage()['ru_maxrss'] - \$before) / 1024;
\$failures = storage_failures(\$listener);
\$message = \$failures === [] ? '' : \$failures[0]->exception->getMessage();
\$listener->events = [];
\$breaker->registerFailure();
printf("%s; peak memory grew by %s; %d StorageFailed, %s; the next call: %s\\n",
    \$permitted ? 'permitted' : 'refused',
    \$grown < 16 ? 'less than 16 MB' : sprintf('%.0f MB', \$grown),
    count(\$failures),
    strlen(\$message) < 1000 && !str_contains(\$message, 'xxxxxxxx') ? 'its message short and without the value' : 'its message of ' . strlen(\$message) . ' bytes',
    storage_failures(\$listener) === [] ? 'works' : 'fails (' . storage_failures(\$listener)[0]->exception->getMessage() . ')');
PHP);

$cases = [
    'a 48 MB state, read by acquirePermission()' => ['acquirePermission', fn ($service) => $redis('HSET', "cb:{{$service}}:s", 's', $large)],
    'a 48 MB counter, read by registerFailure()' => ['registerFailure', function ($service) use ($redis, $large) {
        // The success counter of this bucket: a call in it or in the next two reads it.
        $breaker = new Zeusi\CircuitBreaker\CircuitBreaker($service, configuration(), new Zeusi\CircuitBreaker\Storage\RedisStorage(redis_env('CB_REDIS_DSN'), timeout: 1.0));
        $breaker->registerSuccess();
        [$counter] = $redis('KEYS', "cb:{{$service}}:b:*");
        $redis('SET', $counter, $large, 'PX', '120000');
    }],
];
foreach ($cases as $case => [$call, $write]) {
    $service = 'large-' . getmypid() . '-' . md5($case);
    $write($service);
    [$status, $output] = run_php($child, $service, $call);
    $left = array_filter($redis('KEYS', "cb:{{$service}}:*"), fn ($key) => $redis('TYPE', $key) === 'string' ? $redis('STRLEN', $key) > 1000 : $redis('HSTRLEN', $key, 's') > 1000);
    echo "$case: ", trim($output) ?: "the child ended with status $status, without a word", '; ', $left === [] ? 'removed' : 'still there', "\n";
    foreach ($redis('KEYS', "cb:{{$service}}*") as $key) {
        $redis('DEL', $key);
    }
}
unlink($child);
?>
--EXPECT--
a 48 MB state, read by acquirePermission(): permitted; peak memory grew by less than 16 MB; 1 StorageFailed, its message short and without the value; the next call: works; removed
a 48 MB counter, read by registerFailure(): permitted; peak memory grew by less than 16 MB; 1 StorageFailed, its message short and without the value; the next call: works; removed
