--TEST--
HTTP guard settings: a bad http_hosts pattern, a missing or invalid http_config or a bad http_mode give one startup warning naming the setting (the file, the line, the key and its limits) and leave guarding off, PHP running
--EXTENSIONS--
curl
--FILE--
<?php
require __DIR__ . '/upstream.inc';
$upstream = new Upstream();
$bad = tempnam(sys_get_temp_dir(), 'breakers');
file_put_contents($bad, "[payments]\nhosts = 127.0.0.1\n\nfailure_rate = 150\n");
$extension = null;
foreach (file('/proc/self/maps', FILE_IGNORE_NEW_LINES) as $line) {
    if (preg_match('~\s(/\S*circuit_breaker\.so)$~', $line, $match)) {
        $extension = $match[1];
    }
}
$script = '$h = curl_init($argv[1]); curl_setopt($h, CURLOPT_RETURNTRANSFER, true); echo "ran: ", var_export(curl_exec($h) !== false, true), " guarded: ", var_export(Zeusi\CircuitBreaker\Http\HttpGuard::isEnabled(), true), "\n";';
$cases = [
    ['circuit_breaker.http_hosts=127.0.0.1,http://x/'],
    ['circuit_breaker.http_hosts=*'],
    ['circuit_breaker.http_config=/nonexistent/breakers.ini'],
    ["circuit_breaker.http_config=$bad"],
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
    echo str_replace($bad, 'BAD', preg_replace('~^\[[^]]+\] ~m', '', trim($output))), "\n";
}
unlink($bad);
?>
--EXPECT--
Warning: PHP Startup: circuit_breaker.http_hosts: 'http://x/' is not a host pattern: a pattern names a host, not a URL (patterns are host, host:port, *.domain or *.domain:port): HTTP guarding is off in Unknown on line 0
ran: true guarded: false
Warning: PHP Startup: circuit_breaker.http_hosts: '*' is not a host pattern: a wildcard is '*.' followed by a domain (patterns are host, host:port, *.domain or *.domain:port): HTTP guarding is off in Unknown on line 0
ran: true guarded: false
Warning: PHP Startup: circuit_breaker.http_config = '/nonexistent/breakers.ini' cannot be read: No such file or directory (os error 2): HTTP guarding is off in Unknown on line 0
ran: true guarded: false
Warning: PHP Startup: circuit_breaker.http_config: BAD:4: failure_rate = '150': a percentage from 1 to 100, or off: HTTP guarding is off in Unknown on line 0
ran: true guarded: false
Warning: PHP Startup: circuit_breaker.http_mode = 'loud' is not enforce, observe or off: HTTP guarding is off in Unknown on line 0
ran: true guarded: false
ran: true guarded: false
ran: true guarded: true
