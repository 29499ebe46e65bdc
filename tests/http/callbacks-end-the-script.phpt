--TEST--
HTTP guard: exit(), a fatal error or an exception inside curl's callbacks of a guarded transfer end the script (or reach the caller) as without the extension, and count nothing
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/upstream.inc';
$upstream = new Upstream();
$extension = null;
foreach (file('/proc/self/maps', FILE_IGNORE_NEW_LINES) as $line) {
    if (preg_match('~\s(/\S*circuit_breaker\.so)$~', $line, $match)) {
        $extension = $match[1];
    }
}
$child = <<<'PHP'
[, $url, $option, $how] = $argv;
register_shutdown_function(function () use ($url) {
    foreach ((new Zeusi\CircuitBreaker\Storage\SharedMemoryStorage())->listCircuits() as $status) {
        echo "counted: ", $status->counters['successes'] + $status->counters['failures'], "\n";
    }
    // The handle can still be used in a shutdown function.
    $handle = curl_init($url);
    curl_setopt($handle, CURLOPT_RETURNTRANSFER, true);
    echo "after: ", curl_exec($handle);
});
$handle = curl_init($url);
if ($option === 'CURLOPT_PROGRESSFUNCTION') {
    curl_setopt($handle, CURLOPT_NOPROGRESS, false);
}
curl_setopt($handle, CURLOPT_RETURNTRANSFER, true);
curl_setopt($handle, constant($option), function () use ($how) {
    match ($how) {
        'exit' => exit("exit inside the callback\n"),
        // A fatal error of the engine (trigger_error()'s E_USER_ERROR is
        // deprecated since PHP 8.4): a bailout out of the callback.
        'fatal' => (function () {
            ini_set('memory_limit', '8M');
            return str_repeat('x', 16 << 20);
        })(),
        'throw' => throw new RuntimeException('thrown inside the callback'),
    };
});
try {
    curl_exec($handle);
} catch (RuntimeException $e) {
    echo "caught: ", $e->getMessage(), "\n";
}
echo "not reached after exit or a fatal error\n";
PHP;
foreach (['CURLOPT_WRITEFUNCTION' => 'exit', 'CURLOPT_HEADERFUNCTION' => 'fatal', 'CURLOPT_PROGRESSFUNCTION' => 'throw'] as $option => $how) {
    $command = [PHP_BINARY, '-n', '-d', "extension=$extension", '-d', 'extension=curl', '-d', 'circuit_breaker.http_hosts=127.0.0.1',
        '-d', 'display_errors=1', '-d', 'error_log=/dev/null', '-r', $child, $upstream->url('/'), $option, $how];
    $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes);
    $output = stream_get_contents($pipes[1]);
    echo "$option, $how (status ", proc_close($process), "):\n", trim($output), "\n";
}
?>
--EXPECTF--
CURLOPT_WRITEFUNCTION, exit (status 0):
exit inside the callback
counted: 0
after: status 200
CURLOPT_HEADERFUNCTION, fatal (status 255):
Fatal error: Allowed memory size of 8388608 bytes exhausted (tried to allocate %d bytes) in Command line code on line %d
counted: 0
after: status 200
CURLOPT_PROGRESSFUNCTION, throw (status 0):
caught: thrown inside the callback
not reached after exit or a fatal error
counted: 0
after: status 200
