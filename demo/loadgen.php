<?php
// The load generator of the demo: CLIENTS processes per host send requests
// to its PHP-FPM pool in a loop, each logging every answer; the parent prints
// one line per second (circuit state, answers, upstream calls, latencies,
// workers busy; with several hosts, the state and the workers busy of each;
// with Redis, the round trips it served) and leaves a summary in JSON for the
// report.
// Usage: php loadgen.php LABEL FPM_ADDRESS[,...] STATUS_ADDRESS[,...] BREAKER(0|1) SECONDS OUTPUT_DIR
// (one FPM and one status address per host, in the same order).

require __DIR__ . '/fastcgi.php';
require __DIR__ . '/redis-stats.php';

[, $label, $fpms, $statuses, $breaker, $seconds, $output] = $argv;
$seconds = (int) $seconds;
$fpms = explode(',', $fpms);
$statuses = explode(',', $statuses);
$hosts = count($fpms);
const CLIENTS = 12;
const THINK_SECONDS = 0.05;
const PHASES = [[0, 'healthy'], [10, 'failing'], [25, 'slow'], [35, 'recovered']];

$start = (float) file_get_contents(getenv('DEMO_START_FILE'));
$params = [
    'SCRIPT_FILENAME' => __DIR__ . '/app.php',
    'SCRIPT_NAME' => '/app.php',
    'REQUEST_METHOD' => 'GET',
    'DEMO_BREAKER' => $breaker,
    'DEMO_UPSTREAM' => getenv('DEMO_UPSTREAM'),
    'DEMO_REDIS' => (string) getenv('DEMO_REDIS'),
    'DEMO_STORAGE' => (string) getenv('DEMO_STORAGE'),
    'DEMO_EVENT_LOG' => (string) getenv('DEMO_EVENT_LOG'),
    'DEMO_START_FILE' => getenv('DEMO_START_FILE'),
];

$redisUrl = (string) getenv('DEMO_REDIS');
$redis = $redisUrl === '' ? null : new RedisSampler(parse_url($redisUrl, PHP_URL_HOST) . ':' . parse_url($redisUrl, PHP_URL_PORT));
$redis?->sample();

$clients = [];
for ($client = 0; $client < CLIENTS * $hosts; $client++) {
    $host = $client % $hosts;
    $fpm = $fpms[$host];
    $log = "$output/$label-client-$client.log";
    touch($log);
    $pid = pcntl_fork();
    if ($pid === 0) {
        $file = fopen($log, 'a');
        while (microtime(true) - $start < $seconds) {
            $sent = microtime(true);
            $answer = fcgi_request($fpm, $params) ?? 'failed none 0';
            $latency = (microtime(true) - $sent) * 1000;
            [$result, $state] = explode(' ', trim($answer)) + ['failed', 'none'];
            // Counted in the second it was answered.
            fwrite($file, sprintf("%.3f %.1f %s %s %d\n", microtime(true) - $start, $latency, $result, $state, $host));
            fflush($file);
            usleep((int) (THINK_SECONDS * 1e6));
        }
        exit(0);
    }
    $clients[] = ['pid' => $pid, 'log' => $log, 'offset' => 0];
}

function percentile(array $values, float $share): float
{
    if (!$values) {
        return 0.0;
    }
    sort($values);
    return $values[min(count($values) - 1, (int) floor($share * count($values)))];
}

function phase_at(float $second): string
{
    $name = PHASES[0][1];
    foreach (PHASES as [$from, $phase]) {
        if ($second >= $from) {
            $name = $phase;
        }
    }
    return $name;
}

$upstreamLog = getenv('DEMO_UPSTREAM_LOG');
$rows = [];
// One host: a state and a count of busy workers; several: one of each per
// host, joined by '/'.
$circuitWidth = $hosts > 1 ? 10 * $hosts : 9;
printf("%-9s %4s %-10s %-{$circuitWidth}s %6s %8s %6s %8s %8s %8s %5s%s\n", $label, 's', 'phase', 'circuit', 'ok', 'fallback', 'failed', 'upstream', 'p50 ms', 'p99 ms', 'busy', $redis ? '  redis rt' : '');
$lines = [];
for ($second = 1; $second <= $seconds; $second++) {
    time_sleep_until($start + $second + 0.2);
    foreach ($clients as &$client) {
        $content = file_get_contents($client['log'], false, null, $client['offset']);
        $client['offset'] += strlen($content);
        foreach (explode("\n", trim($content)) as $line) {
            if ($line !== '') {
                $lines[] = explode(' ', $line);
            }
        }
    }
    unset($client);
    $current = array_filter($lines, fn ($line) => (int) floor((float) $line[0]) === $second - 1);
    $lines = array_filter($lines, fn ($line) => (int) floor((float) $line[0]) >= $second);
    $perHost = array_fill(0, $hosts, ['state' => '-', 'ok' => 0, 'rejected' => 0, 'failed' => 0, 'latencies' => []]);
    foreach ($current as [, $latency, $result, $circuit, $host]) {
        $perHost[$host][$result] = ($perHost[$host][$result] ?? 0) + 1;
        $perHost[$host]['latencies'][] = (float) $latency;
        $perHost[$host]['state'] = $circuit === 'none' ? '-' : $circuit;
    }
    $calls = 0;
    foreach (file($upstreamLog, FILE_IGNORE_NEW_LINES) ?: [] as $call) {
        $calls += (int) floor((float) $call - $start) === $second - 1 ? 1 : 0;
    }
    foreach ($statuses as $host => $status) {
        $fpmStatus = json_decode(fcgi_request($status, ['SCRIPT_NAME' => '/status', 'SCRIPT_FILENAME' => '/status', 'QUERY_STRING' => 'json', 'REQUEST_METHOD' => 'GET'], 2.0) ?? '{}', true);
        $perHost[$host]['busy'] = $fpmStatus['active processes'] ?? -1;
    }
    $redisSecond = $redis?->sample();
    $latencies = array_merge(...array_column($perHost, 'latencies'));
    $row = [
        'second' => $second, 'phase' => phase_at($second - 1), 'state' => implode('/', array_column($perHost, 'state')),
        'ok' => array_sum(array_column($perHost, 'ok')), 'rejected' => array_sum(array_column($perHost, 'rejected')),
        'failed' => array_sum(array_column($perHost, 'failed')), 'upstream' => $calls,
        'p50' => percentile($latencies, 0.5), 'p99' => percentile($latencies, 0.99),
        'busy' => array_sum(array_column($perHost, 'busy')),
        'redis_round_trips' => $redisSecond['round_trips'] ?? null, 'redis_usec' => $redisSecond['usec'] ?? null,
        'hosts' => array_map(fn ($host) => [
            'state' => $host['state'], 'answers' => $host['ok'] + $host['rejected'] + $host['failed'],
            'p99' => percentile($host['latencies'], 0.99), 'busy' => $host['busy'],
        ], $perHost),
    ];
    $rows[] = $row;
    printf("%-9s %4d %-10s %-{$circuitWidth}s %6d %8d %6d %8d %8.0f %8.0f %5s%s\n", '', $second, $row['phase'], $row['state'], $row['ok'], $row['rejected'], $row['failed'], $calls, $row['p50'], $row['p99'], implode('/', array_column($perHost, 'busy')), $redis ? sprintf('%10s', $redisSecond['round_trips'] ?? 'down') : '');
}
foreach ($clients as $client) {
    pcntl_waitpid($client['pid'], $status_code);
}
file_put_contents("$output/$label.json", json_encode($rows));
if ($redis !== null) {
    $redis->close();
    file_put_contents("$output/$label-redis-sampler.json", json_encode(['round_trips' => $redis->ownRoundTrips]));
}
