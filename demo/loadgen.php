<?php
// The load generator of the demo: CLIENTS processes send requests to the
// PHP-FPM pool in a loop, each logging every answer; the parent prints one
// line per second (circuit state, answers, upstream calls, latencies,
// workers busy) and leaves a summary in JSON for the report.
// Usage: php loadgen.php LABEL FPM_ADDRESS STATUS_ADDRESS BREAKER(0|1) SECONDS OUTPUT_DIR

require __DIR__ . '/fastcgi.php';

[, $label, $fpm, $status, $breaker, $seconds, $output] = $argv;
$seconds = (int) $seconds;
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
];

$clients = [];
for ($client = 0; $client < CLIENTS; $client++) {
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
            fwrite($file, sprintf("%.3f %.1f %s %s\n", microtime(true) - $start, $latency, $result, $state));
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
$seconds_seen = [];
$rows = [];
printf("%-9s %4s %-10s %-9s %6s %8s %6s %8s %8s %8s %5s\n", $label, 's', 'phase', 'circuit', 'ok', 'fallback', 'failed', 'upstream', 'p50 ms', 'p99 ms', 'busy');
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
    $counts = ['ok' => 0, 'rejected' => 0, 'failed' => 0];
    $latencies = [];
    $state = '-';
    foreach ($current as [, $latency, $result, $circuit]) {
        $counts[$result] = ($counts[$result] ?? 0) + 1;
        $latencies[] = (float) $latency;
        $state = $circuit === 'none' ? '-' : $circuit;
    }
    $calls = 0;
    foreach (file($upstreamLog, FILE_IGNORE_NEW_LINES) ?: [] as $call) {
        $calls += (int) floor((float) $call - $start) === $second - 1 ? 1 : 0;
    }
    $fpmStatus = json_decode(fcgi_request($status, ['SCRIPT_NAME' => '/status', 'SCRIPT_FILENAME' => '/status', 'QUERY_STRING' => 'json', 'REQUEST_METHOD' => 'GET'], 2.0) ?? '{}', true);
    $busy = $fpmStatus['active processes'] ?? -1;
    $row = [
        'second' => $second, 'phase' => phase_at($second - 1), 'state' => $state, 'ok' => $counts['ok'],
        'rejected' => $counts['rejected'], 'failed' => $counts['failed'], 'upstream' => $calls,
        'p50' => percentile($latencies, 0.5), 'p99' => percentile($latencies, 0.99), 'busy' => $busy,
    ];
    $rows[] = $row;
    printf("%-9s %4d %-10s %-9s %6d %8d %6d %8d %8.0f %8.0f %5d\n", '', $second, $row['phase'], $state, $row['ok'], $row['rejected'], $row['failed'], $calls, $row['p50'], $row['p99'], $busy);
}
foreach ($clients as $client) {
    pcntl_waitpid($client['pid'], $status_code);
}
file_put_contents("$output/$label.json", json_encode($rows));
