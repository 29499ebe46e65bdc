<?php
// The figures of issue 13, then the cost of a protected call
// (acquirePermission() + registerSuccess()) on each storage, next to the
// floor: two calls of the cheapest method of an ext-php-rs class
// (CircuitBreaker::getService()), measured in the same run.
// Usage: php -d extension=build/circuit_breaker.so bench/protected-call.php [iterations]

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Opening\AdaptiveThrottlingRule;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$iterations = (int) ($argv[1] ?? 1_000_000);

/** Waits until $time, if it is still ahead: calls spread at a given rate. */
function pace(float $time): void
{
    $ahead = $time - microtime(true);
    if ($ahead > 0) {
        usleep((int) ($ahead * 1e6));
    }
}

/** Best of five runs of $body, in nanoseconds per iteration. */
function measure(int $iterations, callable $body): float
{
    $best = INF;
    for ($run = 0; $run < 5; $run++) {
        $start = hrtime(true);
        $body($iterations);
        $best = min($best, (hrtime(true) - $start) / $iterations);
    }
    return $best;
}

require __DIR__ . '/scenarios.php';

/**
 * The figures of issue 13, each a ratio to its floor measured in the same
 * run: every scenario runs once per round, rounds interleaved, and each keeps
 * its best round, so that a machine busy with something else slows all of
 * them alike rather than one.
 */
function issue_figures(int $iterations): void
{
    $scenarios = bench_scenarios();
    $rounds = 7;
    $best = [];
    for ($round = 0; $round < $rounds; $round++) {
        foreach ($scenarios as $name => $body) {
            // Constructing per request costs ten calls: fewer iterations.
            $runs = str_starts_with($name, 'per-request') ? intdiv($iterations, 10) : $iterations;
            $start = hrtime(true);
            $body($runs);
            $best[$name] = min($best[$name] ?? INF, (hrtime(true) - $start) / $runs);
        }
    }
    [$alone, $shared, $apart] = two_processes($iterations);
    $rows = [
        ['reused breaker, protected call, 60 s window', 'reused', 'floor', 1.5],
        ['rejected call while open', 'rejected', 'floor', 1.1],
        ['per request: storage, configuration, breaker, call', 'per-request', 'floor', 4.0],
        ['5 000 services round-robin', 'many-services', 'one service', 1.15],
        ['listener set, no event fired', 'listener', 'no listener', 1.03],
        // Issue 21: a permit taken and given back on every call.
        ['bulkhead (maxConcurrentCalls 16)', 'bulkhead', 'no bulkhead', 1.2],
    ];
    if (isset($best['fleet'])) {
        // Issue 12: FleetStorage (Redis) next to SharedMemoryStorage, same run.
        $rows[] = ['FleetStorage protected call (Redis, 0.2 s sync)', 'fleet', 'shm call', 1.3];
    }
    $reference = ['floor' => $best['floor'], 'one service' => $best['one-service'], 'no listener' => $best['reused'], 'shm call' => $best['reused'], 'no bulkhead' => $best['reused']];
    printf("%-52s %9s %9s  %-12s %7s\n", 'issue 13 figure (SharedMemoryStorage)', 'ns', 'ratio', 'to', 'target');
    printf("%-52s %9.1f %9s  %-12s %7s\n", 'floor: 2 calls of getService() (ext-php-rs)', $best['floor'], '', '', '');
    foreach ($rows as [$label, $name, $to, $target]) {
        printf("%-52s %9.1f %8.2fx  %-12s %6.2fx\n", $label, $best[$name], $best[$name] / $reference[$to], $to, $target);
    }
    // Issue 22, row 1: the same request on PHP classes that do nothing.
    printf(
        "%-52s %9.1f %8.2fx  %-12s %7s\n",
        'per request, the same five classes in PHP, empty',
        $best['per-request-userland'],
        $best['per-request'] / $best['per-request-userland'],
        'ours to it',
        '',
    );
    printf(
        "%-52s %9.1f %8.2fx  %-12s %6.2fx\n",
        'two processes on one service, CPU per call',
        $shared,
        $shared / $alone,
        'one process',
        1.15,
    );
    // The machine's own cost of two processes at once: no line shared.
    printf(
        "%-52s %9.1f %8.2fx  %-12s %7s\n",
        'two processes, each its own service (baseline)',
        $apart,
        $apart / $alone,
        'one process',
        '',
    );
    $allocations = getenv('CB_BENCH_MEMCACHED_ALLOCATIONS');
    if ($allocations !== false) {
        printf("%-52s %9s %9s  %-12s %7s\n", 'Memcached rejected call, heap allocations', $allocations, '', 'per call', '0');
    }
}

/**
 * CPU time per protected call (user + system, from getrusage) of one process
 * alone, then of each of two processes calling at once: the same service,
 * then each a service of its own (what the machine costs two processes that
 * share no line, the baseline of the first); the best of five rounds of each.
 *
 * @return array{float, float, float}
 */
function two_processes(int $iterations): array
{
    $breaker = new CircuitBreaker('two-processes', bench_configuration(), new SharedMemoryStorage('bench:'));
    $own = new CircuitBreaker('two-processes-own', bench_configuration(), new SharedMemoryStorage('bench:'));
    $cpu = function (CircuitBreaker $breaker) use ($iterations): float {
        $before = getrusage();
        for ($i = 0; $i < $iterations; $i++) {
            if ($breaker->acquirePermission()) {
                $breaker->registerSuccess();
            }
        }
        $after = getrusage();
        $micros = fn (array $usage) => $usage['ru_utime.tv_sec'] * 1e6 + $usage['ru_utime.tv_usec']
            + $usage['ru_stime.tv_sec'] * 1e6 + $usage['ru_stime.tv_usec'];
        return ($micros($after) - $micros($before)) * 1000 / $iterations;
    };
    $together = function (CircuitBreaker $child) use ($breaker, $cpu): float {
        [$parentEnd, $childEnd] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
        $pid = pcntl_fork();
        if ($pid === 0) {
            fclose($parentEnd);
            fread($childEnd, 1);
            fwrite($childEnd, (string) $cpu($child));
            exit(0);
        }
        fclose($childEnd);
        fwrite($parentEnd, 'go');
        $mine = $cpu($breaker);
        $theirs = (float) stream_get_contents($parentEnd);
        pcntl_waitpid($pid, $status);
        fclose($parentEnd);
        return ($mine + $theirs) / 2;
    };
    $alone = INF;
    $shared = INF;
    $apart = INF;
    for ($round = 0; $round < 5; $round++) {
        $alone = min($alone, $cpu($breaker));
        $shared = min($shared, $together($breaker));
        $apart = min($apart, $together($own));
    }
    return [$alone, $shared, $apart];
}

issue_figures($iterations);
echo "\n";

$loop = measure($iterations, function (int $n) { for ($i = 0; $i < $n; $i++) {} });
$floorBreaker = new CircuitBreaker('floor', bench_configuration(), new InMemoryStorage());
$floor = measure($iterations, function (int $n) use ($floorBreaker) {
    for ($i = 0; $i < $n; $i++) {
        $floorBreaker->getService();
        $floorBreaker->getService();
    }
}) - $loop;

$configuration = fn (int $window, bool $slow = false) => new Configuration(
    timeWindow: $window,
    openingRules: $slow
        ? [new FailureRateRule(threshold: 50, minimumRequests: 10), new SlowCallRateRule(slowCallDuration: 1.0, threshold: 80, minimumRequests: 10)]
        : [new FailureRateRule(threshold: 50, minimumRequests: 10)],
    openDuration: 10,
    halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
);

$cases = [];
foreach ([10, 30, 60, 90, 600, 3600] as $window) {
    $cases["SharedMemoryStorage, $window s window"] = new CircuitBreaker("bench$window", $configuration($window), new SharedMemoryStorage('bench:'));
}
$cases['SharedMemoryStorage, 60 s, slow call rule'] = new CircuitBreaker('benchslow', $configuration(60, true), new SharedMemoryStorage('bench:'));
$cases['InMemoryStorage, 60 s window'] = new CircuitBreaker('bench', $configuration(60), new InMemoryStorage());
$memcached = getenv('CB_BENCH_MEMCACHED') ?: null;
if ($memcached !== null) {
    foreach ([10, 60, 3600] as $window) {
        $cases["MemcachedStorage (loopback), $window s window"] = new CircuitBreaker("bench$window", $configuration($window), new MemcachedStorage($memcached, 'bench:'));
    }
}
$redis = getenv('CB_BENCH_REDIS') ?: null;
if ($redis !== null) {
    foreach ([10, 60, 3600] as $window) {
        $cases["RedisStorage (loopback), $window s window"] = new CircuitBreaker("bench$window", $configuration($window), new RedisStorage("redis://$redis", 'bench:'));
    }
    if (class_exists(FleetStorage::class)) {
        $cases['FleetStorage (Redis loopback), 60 s'] = new CircuitBreaker('bench60', $configuration(60), new FleetStorage(new RedisStorage("redis://$redis", 'bench-fleet:')));
    }
}

printf("%-40s %10s %8s\n", 'protected call', 'ns/call', 'x floor');
printf("%-40s %10.1f %8s\n", 'floor: 2 calls of getService()', $floor, '1.0');
foreach ($cases as $name => $breaker) {
    // Round trips cost tens of microseconds: fewer iterations for Redis.
    $runs = str_starts_with($name, 'Redis') || str_starts_with($name, 'Memcached') ? max(1, intdiv($iterations, 100)) : $iterations;
    $cost = measure($runs, function (int $n) use ($breaker) {
        for ($i = 0; $i < $n; $i++) {
            if ($breaker->acquirePermission()) {
                $breaker->registerSuccess();
            }
        }
    }) - $loop;
    printf("%-40s %10.1f %8.1f\n", $name, $cost, $cost / $floor);
}
if ($redis !== null) {
    // Commands per call, from the server's own counters (every command but
    // the benchmark's own INFO; no script runs in these calls).
    $commands = function () use ($redis): int {
        $socket = stream_socket_client("tcp://$redis");
        fwrite($socket, "*2\r\n\$4\r\nINFO\r\n\$12\r\ncommandstats\r\n");
        $length = (int) substr(fgets($socket), 1);
        $info = stream_get_contents($socket, $length);
        fclose($socket);
        preg_match_all('/^cmdstat_(\w+)[^:]*:calls=(\d+)/m', $info, $matches);
        $calls = array_combine($matches[1], array_map('intval', $matches[2]));
        unset($calls['info'], $calls['config']);
        return array_sum($calls);
    };
    $healthy = new CircuitBreaker('commands', $configuration(60), new RedisStorage("redis://$redis", 'bench:'));
    $healthy->acquirePermission();
    $healthy->registerSuccess();
    $before = $commands();
    for ($i = 0; $i < 1000; $i++) {
        $healthy->acquirePermission() && $healthy->registerSuccess();
    }
    printf("\n%-40s %10.2f\n", 'Redis commands per permitted call', ($commands() - $before) / 1000);
    $open = new CircuitBreaker('commands-open', $configuration(60), new RedisStorage("redis://$redis", 'bench:'));
    for ($i = 0; $i < 10; $i++) {
        $open->registerFailure();
    }
    $open->acquirePermission();
    $before = $commands();
    for ($i = 0; $i < 1000; $i++) {
        $open->acquirePermission();
    }
    printf("%-40s %10.2f\n", 'Redis commands per rejected call (open)', ($commands() - $before) / 1000);

    // Redis CPU per protected call: the server's own time (`usec` of INFO
    // commandstats) for every command 10 000 calls cause, next to five plain
    // commands per call of a Ganesha-like storage (GET the status, MGET two
    // windows of counters, INCR and EXPIRE one) on the same server, in the
    // same run. Scripts include the time of the commands they run, which
    // commandstats also lists under their own names: when a script ran, only
    // the commands clients send are summed (scripts never call HGET).
    $socket = stream_socket_client("tcp://$redis");
    $send = function (array ...$commands) use ($socket): array {
        $payload = '';
        foreach ($commands as $words) {
            $payload .= '*' . count($words) . "\r\n";
            foreach ($words as $word) {
                $payload .= '$' . strlen((string) $word) . "\r\n$word\r\n";
            }
        }
        fwrite($socket, $payload);
        $read = function () use ($socket, &$read) {
            $line = rtrim(fgets($socket), "\r\n");
            return match ($line[0]) {
                '$' => $line === '$-1' ? null : substr(stream_get_contents($socket, (int) substr($line, 1) + 2), 0, -2),
                '*' => array_map(fn () => $read(), range(1, max(0, (int) substr($line, 1)))),
                default => substr($line, 1),
            };
        };
        return array_map(fn () => $read(), $commands);
    };
    $usecPerCall = function (int $calls) use ($send): float {
        preg_match_all('/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/m', $send(['INFO', 'commandstats'])[0], $matches);
        $usec = array_combine($matches[1], array_map('intval', $matches[3]));
        unset($usec['info'], $usec['config']);
        $clientsOnly = ['hget', 'evalsha', 'eval', 'script'];
        if (isset($usec['evalsha']) || isset($usec['eval'])) {
            $usec = array_intersect_key($usec, array_flip($clientsOnly));
        }
        return array_sum($usec) / $calls;
    };
    $calls = 10_000;
    $cpu = new CircuitBreaker('redis-cpu', $configuration(60), new RedisStorage("redis://$redis", 'bench:'));
    $cpu->acquirePermission() && $cpu->registerSuccess(); // connects, loads the scripts
    $send(['CONFIG', 'RESETSTAT']);
    for ($i = 0; $i < $calls; $i++) {
        $cpu->acquirePermission() && $cpu->registerSuccess();
    }
    $storageCpu = $usecPerCall($calls);
    $send(['CONFIG', 'RESETSTAT']);
    for ($i = 0; $i < $calls; $i++) {
        $window = intdiv(time(), 10);
        $send(
            ['GET', 'ganesha:status'],
            ['MGET', "ganesha:failure:$window", "ganesha:success:$window", "ganesha:rejection:$window"],
            ['MGET', 'ganesha:failure:' . ($window - 1), 'ganesha:success:' . ($window - 1), 'ganesha:rejection:' . ($window - 1)],
            ['INCR', "ganesha:success:$window"],
            ['EXPIRE', "ganesha:success:$window", 20],
        );
    }
    $ganeshaCpu = $usecPerCall($calls);
    printf("%-40s %10.2f\n", 'Redis CPU per protected call, us', $storageCpu);
    printf("%-40s %10.2f\n", 'Redis CPU, Ganesha-like 5 commands, us', $ganeshaCpu);
    if (class_exists(FleetStorage::class)) {
        // Spread over one second, as an application would, so that the
        // syncs (one per 0.2 s per host) are counted at a realistic rate.
        $fleet = new CircuitBreaker('redis-cpu', $configuration(60), new FleetStorage(new RedisStorage("redis://$redis", 'bench-fleet:')));
        $fleet->acquirePermission() && $fleet->registerSuccess();
        $send(['CONFIG', 'RESETSTAT']);
        $started = microtime(true);
        for ($i = 0; $i < $calls; $i++) {
            $fleet->acquirePermission() && $fleet->registerSuccess();
            pace($started + ($i + 1) / $calls);
        }
        printf("%-40s %10.3f\n", 'Redis CPU per FleetStorage call, us', $usecPerCall($calls));
    }
}

// Round trips, counted by a proxy in front of each server.
foreach (array_filter(explode(',', getenv('CB_BENCH_PROXIES') ?: '')) as $proxy) {
    [$kind, $address, $countFile] = explode('=', $proxy);
    $storage = fn () => $kind === 'redis' ? new RedisStorage("redis://$address", 'trips:') : new MemcachedStorage($address, 'trips:');
    $count = fn () => (int) file_get_contents($countFile);
    $healthy = new CircuitBreaker('round-trips', $configuration(60), $storage());
    $healthy->acquirePermission();
    $healthy->registerSuccess(); // connects, creates this bucket's counter
    usleep(50_000);
    $before = $count();
    for ($i = 0; $i < 200; $i++) {
        $healthy->acquirePermission() && $healthy->registerSuccess();
    }
    usleep(50_000);
    $healthyTrips = ($count() - $before) / 200;
    $open = new CircuitBreaker('round-trips-open', $configuration(60), $storage());
    for ($i = 0; $i < 10; $i++) {
        $open->registerFailure();
    }
    $open->acquirePermission();
    usleep(50_000);
    $before = $count();
    for ($i = 0; $i < 200; $i++) {
        $open->acquirePermission();
    }
    usleep(50_000);
    $openTrips = ($count() - $before) / 200;
    // Issue 21: adaptive throttling decides from the window the registers
    // read back: one round trip per acquire and per register, as without
    // it (a permitted call is both: 2.00); a refused call is its acquire.
    $throttled = new CircuitBreaker('round-trips-throttled', new Configuration(
        timeWindow: 60,
        openingRules: [new AdaptiveThrottlingRule(k: 1.5, minimumRequests: 10)],
        openDuration: 10,
        halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
    ), $storage());
    for ($i = 0; $i < 20; $i++) {
        $i % 2 ? $throttled->registerSuccess() : $throttled->registerFailure();
    }
    usleep(50_000);
    $before = $count();
    $permitted = 0;
    for ($i = 0; $i < 200; $i++) {
        if ($throttled->acquirePermission()) {
            $permitted++;
            $i % 2 ? $throttled->registerSuccess() : $throttled->registerFailure();
        }
    }
    usleep(50_000);
    $throttledTrips = ($count() - $before) / (200 + $permitted);
    printf("%-44s %6.2f\n", ucfirst($kind) . ' round trips per permitted call', $healthyTrips);
    printf("%-44s %6.2f  (%d of 200 refused)\n", ucfirst($kind) . ' round trips per operation, throttling', $throttledTrips, 200 - $permitted);
    printf("%-44s %6.2f\n", ucfirst($kind) . ' round trips per rejected call (open)', $openTrips);
    if ($kind === 'redis' && class_exists(FleetStorage::class)) {
        // Issue 12: at 1 000 calls a second (one host), for 2 s.
        $fleet = new CircuitBreaker('round-trips', $configuration(60), new FleetStorage($storage()));
        $fleet->acquirePermission() && $fleet->registerSuccess();
        usleep(50_000);
        $before = $count();
        $started = microtime(true);
        for ($i = 0; $i < 2000; $i++) {
            $fleet->acquirePermission() && $fleet->registerSuccess();
            pace($started + ($i + 1) / 1000);
        }
        usleep(50_000);
        printf("%-44s %6.3f\n", 'FleetStorage (Redis) round trips per call', ($count() - $before) / 2000);
    }
}
$open = new CircuitBreaker('bench-open', $configuration(60), new SharedMemoryStorage('bench:'));
for ($i = 0; $i < 10; $i++) {
    $open->registerFailure();
}
$cost = measure($iterations, function (int $n) use ($open) {
    for ($i = 0; $i < $n; $i++) {
        $open->acquirePermission();
    }
}) - $loop;
printf("%-40s %10.1f %8.1f\n", 'SharedMemoryStorage, rejected while open', $cost, $cost / $floor);

// Memory per service: records claimed in the segment (phpinfo's counters).
function segment_info(): array
{
    ob_start();
    phpinfo(INFO_MODULES);
    preg_match_all('/^(shared memory size|circuits in use|circuit capacity) => (\d+)/m', ob_get_clean(), $matches);
    return array_combine($matches[1], array_map('intval', $matches[2]));
}
echo "\n";
printf("%-40s %10s %14s\n", 'memory', 'services', 'bytes/service');
$before = segment_info()['circuits in use'];
$storage = new SharedMemoryStorage('memory:');
$created = 0;
foreach ([1, 100, 10_000] as $services) {
    for (; $created < $services; $created++) {
        (new CircuitBreaker("service-$created", $configuration(60), $storage))->registerSuccess();
    }
    $info = segment_info();
    $bytesPerRecord = $info['shared memory size'] / max(1, $info['circuit capacity']);
    printf("%-40s %10d %14.0f\n", 'SharedMemoryStorage (fixed record)', $info['circuits in use'] - $before, $bytesPerRecord);
}

if ($redis !== null) {
    $info = function (string $section) use ($redis): string {
        $socket = stream_socket_client("tcp://$redis");
        fwrite($socket, "*2\r\n\$4\r\nINFO\r\n\$" . strlen($section) . "\r\n$section\r\n");
        $length = (int) substr(fgets($socket), 1);
        $text = stream_get_contents($socket, $length);
        fclose($socket);
        return $text;
    };
    $field = fn (string $text, string $name) => (int) (preg_match("/^$name:(\\d+)/m", $text, $m) ? $m[1] : 0);
    $keys = fn () => $field($info('keyspace'), 'db0:keys=') ?: (preg_match('/keys=(\d+)/', $info('keyspace'), $m) ? (int) $m[1] : 0);
    $storage = new RedisStorage("redis://$redis", 'memory:');
    $created = 0;
    $baseKeys = $keys();
    $baseBytes = $field($info('memory'), 'used_memory');
    foreach ([1, 100, 10_000] as $services) {
        for (; $created < $services; $created++) {
            $breaker = new CircuitBreaker("service-$created", $configuration(60), $storage);
            for ($i = 0; $i < 3; $i++) {
                $breaker->registerSuccess();
            }
            $breaker->registerFailure();
        }
        $memory = $field($info('memory'), 'used_memory') - $baseBytes;
        printf("%-40s %10d %14.0f %8.1f keys\n", 'RedisStorage (used_memory delta)', $services, $memory / $services, ($keys() - $baseKeys) / $services);
    }
}
