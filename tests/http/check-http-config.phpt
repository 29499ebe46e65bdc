--TEST--
HTTP guard: `circuit-breaker check-http-config` checks a breakers file for a deploy pipeline (the breakers that guard, each mistake, exit 1 on any), and `php --ri circuit_breaker` says which breakers guard and which were left out and why
--FILE--
<?php
require __DIR__ . '/../phpt/subprocess.inc';
$extension = loaded_extension();
$copied = tempnam(sys_get_temp_dir(), 'breakers');
file_put_contents($copied, "[defaults]\nopen_duration = 20\n[fx-feed]\nfailure_rate = 20\n[rates]\nhosts = rates.example\nthreshold = 5\n[upstream]\nhosts = 127.0.0.1\n");
function run(array $arguments): void
{
    global $extension, $copied;
    $command = array_merge([PHP_BINARY, '-n', '-d', "extension=$extension", '-d', 'display_startup_errors=0', '-d', 'log_errors=0'], $arguments);
    $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    $status = proc_close($process);
    $show = fn (string $text) => str_replace([$copied, dirname(__DIR__, 2)], ['COPIED', 'ROOT'], trim($text));
    echo "exit $status\n", $show($out), "\n", $err === '' ? '' : 'stderr: ' . $show($err) . "\n";
}
$cli = __DIR__ . '/../../bin/circuit-breaker';
run([$cli, 'check-http-config', $copied]);
run([$cli, 'check-http-config', __DIR__ . '/../../ext/http-breakers.ini']);
run(['-d', "circuit_breaker.http_config=$copied", $cli, 'check-http-config']);
run([$cli, 'check-http-config', '/dev/zero']);
run([$cli, 'check-http-config']);
// php --ri: what guards and what was left out (the startup warnings aside).
$command = [PHP_BINARY, '-n', '-d', "extension=$extension", '-d', "circuit_breaker.http_config=$copied", '-d', 'circuit_breaker.http_hosts=a.example, *.b.example:8443', '-d', 'display_startup_errors=0', '--ri', 'circuit_breaker'];
$process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
foreach (explode("\n", stream_get_contents($pipes[1])) as $line) {
    if (str_starts_with($line, 'HTTP ')) {
        echo substr(str_replace($copied, 'COPIED', $line), 0, 90), "\n";
    }
}
proc_close($process);
unlink($copied);
?>
--EXPECT--
exit 1
COPIED: 1 breaker guards: upstream
stderr: COPIED:3: [fx-feed] has no hosts: a comma-separated list of host patterns (host, host:port, *.domain, *.domain:port): breaker [fx-feed] is left out
COPIED:7: 'threshold' is not a key of a breaker (keys: hosts, time_window, failure_rate, minimum_requests, consecutive_failures, slow_call_duration, slow_call_rate, open_duration, max_open_duration, half_open, half_open_calls, half_open_max_duration, ramp_duration, ramp_curve, ramp_initial_ratio, ramp_exponent, failure_statuses, probe_timeout, max_concurrent_calls, throttling_k, mode, storage): breaker [rates] is left out
exit 0
ROOT/tests/http/../../ext/http-breakers.ini: 2 breakers guard: payments, opa
exit 1
COPIED: 1 breaker guards: upstream
stderr: PHP Warning:  PHP Startup: circuit_breaker.http_config: COPIED:3: [fx-feed] has no hosts: a comma-separated list of host patterns (host, host:port, *.domain, *.domain:port): breaker [fx-feed] is left out in Unknown on line 0
PHP Warning:  PHP Startup: circuit_breaker.http_config: COPIED:7: 'threshold' is not a key of a breaker (keys: hosts, time_window, failure_rate, minimum_requests, consecutive_failures, slow_call_duration, slow_call_rate, open_duration, max_open_duration, half_open, half_open_calls, half_open_max_duration, ramp_duration, ramp_curve, ramp_initial_ratio, ramp_exponent, failure_statuses, probe_timeout, max_concurrent_calls, throttling_k, mode, storage): breaker [rates] is left out in Unknown on line 0
COPIED:3: [fx-feed] has no hosts: a comma-separated list of host patterns (host, host:port, *.domain, *.domain:port): breaker [fx-feed] is left out
COPIED:7: 'threshold' is not a key of a breaker (keys: hosts, time_window, failure_rate, minimum_requests, consecutive_failures, slow_call_duration, slow_call_rate, open_duration, max_open_duration, half_open, half_open_calls, half_open_max_duration, ramp_duration, ramp_curve, ramp_initial_ratio, ramp_exponent, failure_statuses, probe_timeout, max_concurrent_calls, throttling_k, mode, storage): breaker [rates] is left out
exit 1
/dev/zero: 0 breakers guard
stderr: '/dev/zero' is not a regular file (a breakers file is read from a regular file only)
exit 2

stderr: circuit-breaker: check-http-config: no FILE given, and circuit_breaker.http_config is not set
Try 'circuit-breaker --help'.
HTTP guarding => on
HTTP hosts (circuit_breaker.http_hosts) => a.example, *.b.example:8443
HTTP breakers guarding => upstream
HTTP breaker left out => COPIED:3: [fx-feed] has no hosts: a comma-separated list of host 
HTTP breaker left out => COPIED:7: 'threshold' is not a key of a breaker (keys: hosts, tim
