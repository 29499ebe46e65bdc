<?php
// The end of the demo: both runs side by side, and a chart of them.
// Usage: php report.php OUTPUT_DIR

$output = $argv[1];
$runs = ['breaker' => 'with breaker', 'bulkhead' => '+ bulkhead', 'zero-code' => 'zero-code', 'no-breaker' => 'without'];
// The zero-code run (the HTTP guard, no breaker code) is made on shared memory only.
$runs = array_filter($runs, fn ($label) => is_file("$output/$label.json"), ARRAY_FILTER_USE_KEY);
// DEMO_STORAGE=fleet: the hosts are A and B, and Redis was down from, to (seconds).
$redisDown = array_filter(explode(',', (string) getenv('DEMO_REDIS_DOWN')), 'strlen');
$summary = [];
$percentile = function (array $values, float $share): float {
    sort($values);
    return $values ? $values[min(count($values) - 1, (int) floor($share * count($values)))] : 0;
};
foreach ($runs as $label => $title) {
    $rows = json_decode(file_get_contents("$output/$label.json"), true);
    $hosts = count($rows[0]['hosts'] ?? [1]);
    $latencies = [];
    $hostLatencies = array_fill(0, $hosts, []);
    $results = ['ok' => 0, 'rejected' => 0, 'failed' => 0];
    foreach (glob("$output/$label-client-*.log") as $log) {
        foreach (file($log, FILE_IGNORE_NEW_LINES) as $line) {
            [, $latency, $result, , $host] = explode(' ', $line) + [4 => 0];
            $latencies[] = (float) $latency;
            $hostLatencies[$host][] = (float) $latency;
            $results[$result] = ($results[$result] ?? 0) + 1;
        }
    }
    $at = fn (float $share) => $percentile($latencies, $share);
    $outage = array_filter($rows, fn ($row) => in_array($row['phase'], ['failing', 'slow'], true));
    $hang = array_slice(array_values(array_filter($rows, fn ($row) => $row['phase'] === 'failing')), 0, 3);
    $answered = $results['ok'] + $results['rejected'] + $results['failed'];
    $summary[$title] = [
        'requests answered' => $results['ok'] + $results['rejected'] + $results['failed'],
        '  with stock data' => $results['ok'],
        '  with a fallback at once' => $results['rejected'],
        '  with an error' => $results['failed'],
        'upstream calls during the outage' => array_sum(array_column($outage, 'upstream')),
        'latency p50 (ms)' => round($at(0.5)),
        'latency p99 (ms)' => round($at(0.99)),
        'answers per second during the outage' => round(array_sum(array_map(fn ($r) => $r['ok'] + $r['rejected'] + $r['failed'], $outage)) / max(1, count($outage))),
        'workers busy during the outage (mean of 8)' => round(array_sum(array_column($outage, 'busy')) / max(1, count($outage)), 1),
        // Before any timeout could open the circuit: what a bulkhead is for.
        'first 3 s of the hang: answers per second' => round(array_sum(array_map(fn ($r) => $r['ok'] + $r['rejected'] + $r['failed'], $hang)) / max(1, count($hang))),
        'first 3 s of the hang: workers busy (of 8)' => round(array_sum(array_column($hang, 'busy')) / max(1, count($hang)), 1),
    ];
    if ($hosts > 1) {
        $names = ['A', 'B', 'C', 'D'];
        // Each host's, below.
        unset($summary[$title]['workers busy during the outage (mean of 8)']);
        // The seconds counted from the start of a run, whose row is the next one.
        $redisOutage = $redisDown ? array_filter($rows, fn ($row) => $row['second'] > $redisDown[0] && $row['second'] <= $redisDown[1]) : [];
        $events = [];
        foreach (is_file("$output/$label-events.log") ? file("$output/$label-events.log", FILE_IGNORE_NEW_LINES) : [] as $line) {
            [, $host, $event] = explode(' ', $line);
            $events[$host][$event] = ($events[$host][$event] ?? 0) + 1;
        }
        for ($host = 0; $host < $hosts; $host++) {
            $name = $names[$host];
            $busy = array_map(fn ($row) => $row['hosts'][$host]['busy'], $outage);
            $summary[$title] += [
                "host $name: requests answered" => count($hostLatencies[$host]),
                "host $name: latency p99 (ms)" => round($percentile($hostLatencies[$host], 0.99)),
                "host $name: workers busy, outage (mean of 8)" => round(array_sum($busy) / max(1, count($busy)), 1),
                // Sampled once a second: a half-open trial shows as a peak.
                "host $name: busy, Redis down (mean, max of 8)" => $redisOutage ? (function (array $busy) {
                    return sprintf('%.1f, %d', array_sum($busy) / count($busy), max($busy));
                })(array_map(fn ($row) => $row['hosts'][$host]['busy'], $redisOutage)) : '-',
                "host $name: CircuitOpened events" => $events[$name]['CircuitOpened'] ?? 0,
                "host $name: StorageFailed events" => $events[$name]['StorageFailed'] ?? 0,
                "host $name: StorageRecovered events" => $events[$name]['StorageRecovered'] ?? 0,
            ];
        }
    }
    // What Redis served during the run, from its own counters: a restarted
    // Redis counts from zero, so the count before it stopped is added, and
    // the load generator's own samples are left out.
    $redisStats = glob("$output/$label-redis-[0-9].json");
    if ($redisStats) {
        $redis = ['round_trips' => 0, 'usec' => 0];
        foreach ($redisStats as $file) {
            foreach (json_decode(file_get_contents($file), true) as $key => $value) {
                $redis[$key] += $value;
            }
        }
        $redis['round_trips'] -= json_decode(file_get_contents("$output/$label-redis-sampler.json"), true)['round_trips'];
        // The seconds no host was half-open: a half-open circuit admits its
        // trials in the store itself, a round trip a call.
        $steady = array_filter($rows, fn ($row) => !str_contains($row['state'], 'half_open') && $row['redis_round_trips'] !== null);
        $steadyAnswers = array_sum(array_map(fn ($r) => $r['ok'] + $r['rejected'] + $r['failed'], $steady));
        $summary[$title] += [
            'Redis round trips per request' => sprintf('%.3f', $redis['round_trips'] / max(1, $answered)),
            'Redis CPU per request (us)' => sprintf('%.2f', $redis['usec'] / max(1, $answered)),
            'Redis round trips/request, none half-open' => sprintf('%.3f', array_sum(array_column($steady, 'redis_round_trips')) / max(1, $steadyAnswers)),
            'Redis CPU/request (us), none half-open' => sprintf('%.2f', array_sum(array_column($steady, 'redis_usec')) / max(1, $steadyAnswers)),
        ];
    }
    $series[$title] = $rows;
}

$format = '%-44s' . str_repeat(' %14s', count($summary)) . "\n";
printf($format, 'summary', ...array_keys($summary));
foreach (array_keys(reset($summary)) as $metric) {
    printf($format, $metric, ...array_map(fn ($run) => $run[$metric] ?? '-', array_values($summary)));
}

// The chart: answers per second, p99 latency and busy workers, both runs;
// with several hosts, the workers busy of each (host B dashed).
$width = 900;
$panel = 180;
$left = 70;
$hosts = count(reset($series)[0]['hosts'] ?? [1]);
$dashes = ['', '6,4', '2,3', '8,2,2,2'];
$panels = [
    // Solid: answers with the upstream's data; dashed: answered at once
    // without it (a fallback, or the error of a refused call).
    ['answers per second: with data (solid), without: fallback or error (dashed)', [fn ($r) => $r['ok'], fn ($r) => $r['rejected'] + $r['failed']]],
    ['p99 latency (ms)', [fn ($r) => $r['p99']]],
    $hosts > 1
        ? ['PHP-FPM workers busy, per host', array_map(fn ($host) => fn ($r) => max(0, $r['hosts'][$host]['busy']), range(0, $hosts - 1))]
        : ['PHP-FPM workers busy', [fn ($r) => max(0, $r['busy'])]],
];
$colors = array_intersect_key(['with breaker' => '#1b7f3b', '+ bulkhead' => '#8e44ad', 'zero-code' => '#2c6fbb', 'without' => '#c0392b'], $series);
$seconds = count(reset($series));
$x = fn (float $second) => $left + ($second / $seconds) * ($width - $left - 20);
// Room for the label of the Redis outage under the phases', and for the
// strips of the circuit's state.
$shift = ($redisDown ? 16 : 0) + 18;
$svg = sprintf('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">', $width, 56 + $shift + count($panels) * ($panel + 30));
$svg .= '<rect width="100%" height="100%" fill="white"/>';
$svg .= '<text x="10" y="20" font-size="14">circuit_breaker demo: the same outage, with and without the breaker</text>';
foreach ([[10, 25, '#fdecea', 'failing'], [25, 35, '#fff4e0', 'slow']] as [$from, $to, $fill, $name]) {
    $svg .= sprintf('<rect x="%.1f" y="30" width="%.1f" height="%d" fill="%s"/>', $x($from), $x($to) - $x($from), count($panels) * ($panel + 30), $fill);
    $svg .= sprintf('<text x="%.1f" y="42" fill="#888">%s</text>', $x($from) + 4, $name);
}
if ($redisDown) {
    [$from, $to] = $redisDown;
    $svg .= sprintf('<rect x="%.1f" y="46" width="%.1f" height="%d" fill="#5b6bbf" fill-opacity="0.12"/>', $x($from), $x($to) - $x($from), count($panels) * ($panel + 30) - 16);
    $svg .= sprintf('<text x="%.1f" y="58" fill="#5b6bbf">Redis down</text>', $x($from) + 4);
}
foreach ($panels as $index => [$title, $lines]) {
    $top = 50 + $shift + $index * ($panel + 30);
    $max = 1;
    foreach ($series as $rows) {
        foreach ($rows as $row) {
            foreach ($lines as $value) {
                $max = max($max, $value($row));
            }
        }
    }
    $y = fn (float $v) => $top + $panel - ($v / $max) * $panel;
    $svg .= sprintf('<text x="%d" y="%d">%s</text>', $left, $top - 4, $title);
    $svg .= sprintf('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>', $left, $top + $panel, $width - 20, $top + $panel);
    $svg .= sprintf('<text x="%d" y="%d" text-anchor="end">%d</text><text x="%d" y="%d" text-anchor="end">0</text>', $left - 6, $top + 10, $max, $left - 6, $top + $panel);
    foreach ($series as $run => $rows) {
        foreach ($lines as $line => $value) {
            $points = implode(' ', array_map(fn ($row) => sprintf('%.1f,%.1f', $x($row['second'] - 0.5), $y($value($row))), $rows));
            $svg .= sprintf('<polyline fill="none" stroke="%s" stroke-width="2" stroke-dasharray="%s" points="%s"/>', $colors[$run], $dashes[$line], $points);
        }
    }
}
// Seconds under each panel.
foreach ($panels as $index => $unused) {
    $bottom = 50 + $shift + $index * ($panel + 30) + $panel;
    for ($second = 0; $second <= $seconds; $second += 5) {
        $svg .= sprintf('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/><text x="%.1f" y="%d" text-anchor="middle" fill="#666" font-size="10">%d s</text>', $x($second), $bottom, $x($second), $bottom + 4, $x($second), $bottom + 15, $second);
    }
}
// The circuit's state, second by second, of the runs that know it: a strip
// over the top panel (green closed, red open, amber half-open).
$stateColors = ['closed' => '#8fd19e', 'open' => '#e57373', 'half_open' => '#ffcc66'];
$strip = 0;
foreach ($series as $run => $rows) {
    if (!array_filter($rows, fn ($row) => isset($stateColors[$row['state'] ?? '']))) {
        continue;
    }
    $at = 45 + ($redisDown ? 16 : 0) + $strip * 7;
    foreach ($rows as $row) {
        $fill = $stateColors[$row['state'] ?? ''] ?? '#eeeeee';
        $svg .= sprintf('<rect x="%.1f" y="%d" width="%.1f" height="5" fill="%s"><title>%s, %d s: %s</title></rect>', $x($row['second'] - 1), $at, $x(1) - $x(0), $fill, $run, $row['second'], $row['state']);
    }
    $svg .= sprintf('<text x="%d" y="%d" text-anchor="end" font-size="9" fill="#555">%s</text>', $left - 4, $at + 5, $run);
    $strip++;
}
$legend = 56 + $shift + count($panels) * ($panel + 30) - 8;
foreach (array_keys($colors) as $i => $run) {
    $svg .= sprintf('<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>', $left + $i * 150, $legend - 10, $colors[$run], $left + 18 + $i * 150, $legend, $run);
}
if ($strip > 0) {
    $svg .= sprintf('<text x="%d" y="%d" text-anchor="end" fill="#555">strip: the circuit, green closed, red open, amber half-open</text>', $width - 20, $legend);
}
for ($host = 0; $hosts > 1 && $host < $hosts; $host++) {
    $at = $left + (2 + $host) * 150;
    $svg .= sprintf('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333" stroke-width="2" stroke-dasharray="%s"/><text x="%d" y="%d">host %s</text>', $at, $legend - 4, $at + 24, $legend - 4, $dashes[$host], $at + 30, $legend, chr(ord('A') + $host));
}
$svg .= '</svg>';
file_put_contents("$output/demo.svg", $svg);
echo "\nChart: " . realpath("$output/demo.svg") . "\n";
