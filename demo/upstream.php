<?php
// The flaky upstream service of the demo, served by PHP's built-in server.
// Its behaviour follows a timeline counted from the start time the demo
// writes in DEMO_START_FILE: healthy, failing (it hangs: callers time out),
// slow, then healthy again. Every request that reaches it is logged, so the
// demo can count the calls the breaker spared it.

const TIMELINE = [
    // [from second, phase, answer delay in seconds]
    [0, 'healthy', 0.02],
    [10, 'failing', 5.0],
    [25, 'slow', 0.7],
    [35, 'recovered', 0.02],
];

$start = (float) file_get_contents(getenv('DEMO_START_FILE'));
$elapsed = microtime(true) - $start;
$phase = TIMELINE[0];
foreach (TIMELINE as $step) {
    if ($elapsed >= $step[0]) {
        $phase = $step;
    }
}
file_put_contents(getenv('DEMO_UPSTREAM_LOG'), sprintf("%.3f\n", microtime(true)), FILE_APPEND | LOCK_EX);
usleep((int) ($phase[2] * 1_000_000));
if ($phase[1] === 'failing') {
    http_response_code(503);
}
header('Content-Type: application/json');
echo json_encode(['stock' => 42, 'phase' => $phase[1]]);
