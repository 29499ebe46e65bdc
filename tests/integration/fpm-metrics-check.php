<?php
// Checks a scrape of examples/metrics.php (on stdin: the FastCGI answer,
// headers then body) against what fpm-metrics.sh made the workers do.
// Prints "ok: ..." or "FAILED: ..." per check.
require __DIR__ . '/../phpt/prometheus-format.inc';

[$head, $body] = explode("\r\n\r\n", stream_get_contents(STDIN), 2) + [1 => ''];
$checks = 0;
$failed = 0;
$check = function (string $what, $got, $expected) use (&$checks, &$failed) {
    $checks++;
    if ($got === $expected) {
        echo "ok: $what\n";
    } else {
        $failed++;
        echo "FAILED: $what: expected ", json_encode($expected), ', got ', json_encode($got), "\n";
    }
};
$check('Content-Type of the scrape', (bool) preg_match('~^Content-type: text/plain; version=0\.0\.4; charset=utf-8\r?$~mi', $head), true);
try {
    $families = parse_exposition($body);
} catch (ExpositionError $e) {
    echo "FAILED: the scrape follows the text format: {$e->getMessage()}\n";
    exit(1);
}
$check('the scrape follows the text format', true, true);
$host = gethostname();
$value = function (string $family, string $service, array $extra = []) use ($families, $host) {
    foreach ($families["circuit_breaker_$family"]['samples'] ?? [] as $sample) {
        $labels = $sample['labels'];
        if ($labels['service'] === $service && $labels['host'] === $host && $labels['prefix'] === 'shop:'
            && array_intersect_assoc($extra, $labels) === $extra) {
            return $sample['value'];
        }
    }
    return null;
};
$expected = [
    // service => [state, forced, permitted, rejected, successes, failures, openings]
    'payments' => ['open', 0.0, 4.0, 3.0, 0.0, 4.0, 1.0],
    'search' => ['closed', 0.0, 10.0, 0.0, 10.0, 0.0, 0.0],
    'inventory "eu"' => ['open', 1.0, 1.0, 2.0, 1.0, 0.0, 0.0],
];
foreach ($expected as $service => [$state, $forced, $permitted, $rejected, $successes, $failures, $openings]) {
    foreach (['closed', 'open', 'half_open'] as $candidate) {
        $check("$service: state $candidate", $value('state', $service, ['state' => $candidate]), (float) ($candidate === $state));
    }
    $check("$service: forced", $value('forced', $service), $forced);
    $check("$service: calls permitted by every worker", $value('calls_permitted_total', $service), $permitted);
    $check("$service: calls rejected", $value('calls_rejected_total', $service), $rejected);
    $check("$service: successes", $value('successes_total', $service), $successes);
    $check("$service: failures", $value('failures_total', $service), $failures);
    $check("$service: openings", $value('openings_total', $service), $openings);
    $remaining = $value('state_remaining_seconds', $service);
    $bound = ['payments' => 600.0, 'inventory "eu"' => 300.0][$service] ?? null;
    // The test takes far less than 60 s: the time left is within a minute of the duration.
    $check("$service: seconds left in the state", $bound === null ? $remaining : ($remaining > $bound - 60 && $remaining <= $bound), $bound === null ? null : true);
}
echo "metrics checks: ", $checks - $failed, " passed, $failed failed\n";
exit($failed === 0 ? 0 : 1);
