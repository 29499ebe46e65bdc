<?php
// The end of the demo: both runs side by side, and a chart of them.
// Usage: php report.php OUTPUT_DIR

$output = $argv[1];
$runs = ['breaker' => 'with breaker', 'no-breaker' => 'without'];
$summary = [];
foreach ($runs as $label => $title) {
    $rows = json_decode(file_get_contents("$output/$label.json"), true);
    $latencies = [];
    $results = ['ok' => 0, 'rejected' => 0, 'failed' => 0];
    foreach (glob("$output/$label-client-*.log") as $log) {
        foreach (file($log, FILE_IGNORE_NEW_LINES) as $line) {
            [, $latency, $result] = explode(' ', $line);
            $latencies[] = (float) $latency;
            $results[$result] = ($results[$result] ?? 0) + 1;
        }
    }
    sort($latencies);
    $at = fn (float $share) => $latencies ? $latencies[min(count($latencies) - 1, (int) floor($share * count($latencies)))] : 0;
    $outage = array_filter($rows, fn ($row) => in_array($row['phase'], ['failing', 'slow'], true));
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
    ];
    $series[$title] = $rows;
}

printf("%-44s %14s %14s\n", 'summary', ...array_keys($summary));
foreach (array_keys(reset($summary)) as $metric) {
    printf("%-44s %14s %14s\n", $metric, ...array_map(fn ($run) => $run[$metric], array_values($summary)));
}

// The chart: answers per second, p99 latency and busy workers, both runs.
$width = 900;
$panel = 180;
$left = 70;
$panels = [
    ['answers per second', fn ($r) => $r['ok'] + $r['rejected'] + $r['failed']],
    ['p99 latency (ms)', fn ($r) => $r['p99']],
    ['PHP-FPM workers busy', fn ($r) => max(0, $r['busy'])],
];
$colors = ['with breaker' => '#1b7f3b', 'without' => '#c0392b'];
$seconds = count(reset($series));
$x = fn (float $second) => $left + ($second / $seconds) * ($width - $left - 20);
$svg = sprintf('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">', $width, 40 + count($panels) * ($panel + 30));
$svg .= '<rect width="100%" height="100%" fill="white"/>';
$svg .= '<text x="10" y="20" font-size="14">circuit_breaker demo: the same outage, with and without the breaker</text>';
foreach ([[10, 25, '#fdecea', 'failing'], [25, 35, '#fff4e0', 'slow']] as [$from, $to, $fill, $name]) {
    $svg .= sprintf('<rect x="%.1f" y="30" width="%.1f" height="%d" fill="%s"/>', $x($from), $x($to) - $x($from), count($panels) * ($panel + 30), $fill);
    $svg .= sprintf('<text x="%.1f" y="42" fill="#888">%s</text>', $x($from) + 4, $name);
}
foreach ($panels as $index => [$title, $value]) {
    $top = 50 + $index * ($panel + 30);
    $max = 1;
    foreach ($series as $rows) {
        foreach ($rows as $row) {
            $max = max($max, $value($row));
        }
    }
    $y = fn (float $v) => $top + $panel - ($v / $max) * $panel;
    $svg .= sprintf('<text x="%d" y="%d">%s</text>', $left, $top - 4, $title);
    $svg .= sprintf('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>', $left, $top + $panel, $width - 20, $top + $panel);
    $svg .= sprintf('<text x="%d" y="%d" text-anchor="end">%d</text><text x="%d" y="%d" text-anchor="end">0</text>', $left - 6, $top + 10, $max, $left - 6, $top + $panel);
    foreach ($series as $run => $rows) {
        $points = implode(' ', array_map(fn ($row) => sprintf('%.1f,%.1f', $x($row['second'] - 0.5), $y($value($row))), $rows));
        $svg .= sprintf('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>', $colors[$run], $points);
    }
}
$legend = 40 + count($panels) * ($panel + 30) - 8;
foreach (array_keys($colors) as $i => $run) {
    $svg .= sprintf('<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>', $left + $i * 150, $legend - 10, $colors[$run], $left + 18 + $i * 150, $legend, $run);
}
$svg .= '</svg>';
file_put_contents("$output/demo.svg", $svg);
echo "\nChart: " . realpath("$output/demo.svg") . "\n";
