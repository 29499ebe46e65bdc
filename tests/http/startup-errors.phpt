--TEST--
HTTP guard settings: a bad http_hosts pattern, a missing, unreadable or invalid http_config or a bad http_mode give a startup warning naming the setting (the file, the line, the key and its limits) and leave out only what is wrong: every valid pattern and breaker guards; a FIFO or a device is never read, PHP running
--EXTENSIONS--
curl
--FILE--
<?php
require __DIR__ . '/upstream.inc';
require __DIR__ . '/../phpt/subprocess.inc';
$upstream = new Upstream();
$bad = tempnam(sys_get_temp_dir(), 'breakers');
file_put_contents($bad, "[payments]\nhosts = 127.0.0.1\n\nfailure_rate = 150\n");
// Kipchak's sample as teams copy it: a breaker without hosts, an unknown
// key; and a second [defaults], whose invalid value is said too.
$copied = tempnam(sys_get_temp_dir(), 'breakers');
file_put_contents($copied, "[defaults]\nopen_duration = 20\n[fx-feed]\nfailure_rate = 20\n[rates]\nhosts = rates.example\nthreshold = 5\n[upstream]\nhosts = 127.0.0.1\n[defaults]\nopen_duration = -1\n");
$fifo = sys_get_temp_dir() . '/breakers-fifo-' . getmypid();
exec('mkfifo ' . escapeshellarg($fifo));
$extension = loaded_extension();
$script = '$h = curl_init($argv[1]); curl_setopt($h, CURLOPT_RETURNTRANSFER, true); echo "ran: ", var_export(curl_exec($h) !== false, true), " guarded: ", var_export(Zeusi\CircuitBreaker\Http\HttpGuard::isEnabled(), true), " by: ", var_export(Zeusi\CircuitBreaker\Http\HttpGuard::circuitOf($argv[1]) !== null, true), "\n";';
$cases = [
    ['circuit_breaker.http_hosts=127.0.0.1,http://x/'],
    ['circuit_breaker.http_hosts=*'],
    ['circuit_breaker.http_config=/nonexistent/breakers.ini'],
    ["circuit_breaker.http_config=$bad"],
    ["circuit_breaker.http_config=$copied"],
    ["circuit_breaker.http_config=$fifo", 'circuit_breaker.http_hosts=127.0.0.1'],
    ['circuit_breaker.http_config=/dev/zero'],
    ['circuit_breaker.http_hosts=127.0.0.1', 'circuit_breaker.http_mode=loud'],
    ['circuit_breaker.http_hosts=127.0.0.1', 'circuit_breaker.http_mode=off'],
    ['circuit_breaker.http_hosts=127.0.0.1'],
];
foreach ($cases as $settings) {
    $command = [PHP_BINARY, '-n', '-d', "extension=$extension", '-d', 'extension=curl', '-d', 'display_startup_errors=1', '-d', 'error_log=/dev/stdout'];
    foreach ($settings as $setting) {
        array_push($command, '-d', $setting);
    }
    array_push($command, '-r', $script, $upstream->url('/'));
    $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes);
    $output = stream_get_contents($pipes[1]);
    proc_close($process);
    echo str_replace([$bad, $copied, $fifo], ['BAD', 'COPIED', 'FIFO'], preg_replace(['~^\[[^]]+\] ~m', '~\n+~'], ['', "\n"], trim($output))), "\n";
}
unlink($bad);
unlink($copied);
unlink($fifo);
?>
--EXPECT--
Warning: PHP Startup: circuit_breaker.http_hosts: 'http://x/' is not a host pattern: a pattern names a host, not a URL (patterns are host, host:port, *.domain or *.domain:port): it is left out in Unknown on line 0
ran: true guarded: true by: true
Warning: PHP Startup: circuit_breaker.http_hosts: '*' is not a host pattern: a wildcard is '*.' followed by a domain (patterns are host, host:port, *.domain or *.domain:port): it is left out in Unknown on line 0
ran: true guarded: false by: false
Warning: PHP Startup: circuit_breaker.http_config: '/nonexistent/breakers.ini' cannot be read: No such file or directory (os error 2): its breakers are not guarded in Unknown on line 0
ran: true guarded: false by: false
Warning: PHP Startup: circuit_breaker.http_config: BAD:4: failure_rate = '150': a percentage from 1 to 100, or off: breaker [payments] is left out in Unknown on line 0
ran: true guarded: false by: false
Warning: PHP Startup: circuit_breaker.http_config: COPIED:3: [fx-feed] has no hosts: a comma-separated list of host patterns (host, host:port, *.domain, *.domain:port): breaker [fx-feed] is left out in Unknown on line 0
Warning: PHP Startup: circuit_breaker.http_config: COPIED:7: 'threshold' is not a key of a breaker (keys: hosts, time_window, failure_rate, minimum_requests, consecutive_failures, slow_call_duration, slow_call_rate, open_duration, max_open_duration, half_open, half_open_calls, half_open_max_duration, ramp_duration, ramp_curve, ramp_initial_ratio, ramp_exponent, failure_statuses, probe_timeout, max_concurrent_calls, throttling_k, mode, storage): breaker [rates] is left out in Unknown on line 0
Warning: PHP Startup: circuit_breaker.http_config: COPIED:10: [defaults] is declared twice: [defaults] is left out, the built-in defaults apply in Unknown on line 0
ran: true guarded: true by: true
Warning: PHP Startup: circuit_breaker.http_config: 'FIFO' is not a regular file (a breakers file is read from a regular file only): its breakers are not guarded in Unknown on line 0
ran: true guarded: true by: true
Warning: PHP Startup: circuit_breaker.http_config: '/dev/zero' is not a regular file (a breakers file is read from a regular file only): its breakers are not guarded in Unknown on line 0
ran: true guarded: false by: false
Warning: PHP Startup: circuit_breaker.http_mode = 'loud' is not enforce, observe or off: HTTP guarding is off in Unknown on line 0
ran: true guarded: false by: false
ran: true guarded: false by: false
ran: true guarded: true by: true
