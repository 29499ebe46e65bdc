--TEST--
HTTP guard: what the client refused to do (a malformed URL, a protocol it forbade, its redirect and size limits, a re-entered handle, a writing open, the wrapper's redirect limit) counts nothing, so that no visitor's input opens a healthy host's circuit; a Latin-1 reason phrase is an answer; a host no pattern could name names no circuit; what the server did still counts
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1,*.test
circuit_breaker.http_config={PWD}/fast-breakers.ini
error_log={PWD}/client-errors.log
--FILE--
<?php
require __DIR__ . '/upstream.inc';
use Zeusi\CircuitBreaker\Http\HttpGuard;

$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";
// The breakers of fast-breakers.ini open after 3 failures in a row: each
// class below is tried 5 times.
function tried(string $class, callable $request, int $times = 5): void
{
    global $upstream, $service;
    $before = $upstream->served();
    $results = [];
    for ($i = 0; $i < $times; $i++) {
        $results[] = $request();
    }
    $counters = counters($service) ?? ['state' => 'none', 'failures' => 0];
    printf("%s: %s, %d served, circuit %s, %d failures\n", $class, implode(' ', array_unique($results)), $upstream->served() - $before, $counters['state'], $counters['failures']);
}
function curl_errno_of(array $options): string
{
    $handle = curl_init();
    curl_setopt_array($handle, [CURLOPT_RETURNTRANSFER => true] + $options);
    curl_exec($handle);
    return 'errno ' . curl_errno($handle);
}

tried('malformed URL', fn () => curl_errno_of([CURLOPT_URL => $upstream->url('/search?q=a b')]));
tried('forbidden protocol', fn () => curl_errno_of([CURLOPT_URL => $upstream->url('/'), CURLOPT_PROTOCOLS => CURLPROTO_HTTPS]));
tried('redirect limit', fn () => curl_errno_of([CURLOPT_URL => $upstream->url('/loop'), CURLOPT_FOLLOWLOCATION => true, CURLOPT_MAXREDIRS => 1]));
tried('size limit', fn () => curl_errno_of([CURLOPT_URL => $upstream->url('/'), CURLOPT_MAXFILESIZE => 1]));
tried('re-entered handle', function () use ($upstream) {
    $handle = curl_init($upstream->url('/'));
    $inner = null;
    curl_setopt($handle, CURLOPT_WRITEFUNCTION, function ($handle, $data) use (&$inner) {
        if ($inner === null) {
            curl_exec($handle);
            $inner = curl_errno($handle);
        }
        return strlen($data);
    });
    curl_exec($handle);
    return "inner errno $inner";
});
tried('writing open', fn () => var_export(@fopen($upstream->url('/'), 'w'), true));
tried('wrapper redirect limit', fn () => var_export(@file_get_contents($upstream->url('/loop'), false, stream_context_create(['http' => ['max_redirects' => 2]])), true));
tried('Latin-1 reason phrase, stream', fn () => trim(file_get_contents($upstream->url('/reason/200'))));
tried('Latin-1 reason phrase, curl', fn () => trim(curl_exec(handle($upstream->url('/reason/200')))));

echo "a host no pattern names: ", var_export(HttpGuard::circuitOf("http://a\r\nforged.test/"), true), ' ', var_export(HttpGuard::circuitOf("http://a\x1b[31m.test/"), true), ' ', HttpGuard::circuitOf('http://api.test/'), "\n";

// What the client refuses before sending spends no half-open trial: the
// next good request is the trial, and closes the circuit.
foreach (['malformed URL' => fn () => curl_errno_of([CURLOPT_URL => $upstream->url('/search?q=a b')]), 'writing open' => fn () => @fopen($upstream->url('/'), 'w')] as $class => $request) {
    for ($i = 0; $i < 3; $i++) {
        curl_exec(handle($upstream->url('/status/503')));
    }
    wait_until_half_open($service);
    $request();
    $next = curl_exec(handle($upstream->url('/')));
    echo "$class while half-open, then a good request: ", var_export($next !== false, true), ", circuit ", counters($service)['state'], "\n";
}

// What the server did counts: a failure status, a 503 behind a Latin-1 reason.
tried('failure status', fn () => trim(file_get_contents($upstream->url('/reason/503'), false, stream_context_create(['http' => ['ignore_errors' => true]]))), 3);
?>
--CLEAN--
<?php @unlink(__DIR__ . '/client-errors.log'); ?>
--EXPECTF--
malformed URL: errno 3, 0 served, circuit none, 0 failures
forbidden protocol: errno 1, 0 served, circuit closed, 0 failures
redirect limit: errno 47, 10 served, circuit closed, 0 failures
size limit: errno 63, 5 served, circuit closed, 0 failures
re-entered handle: inner errno %d, 5 served, circuit closed, 0 failures
writing open: false, 0 served, circuit closed, 0 failures
wrapper redirect limit: false, 10 served, circuit closed, 0 failures
Latin-1 reason phrase, stream: status 200, 5 served, circuit closed, 0 failures
Latin-1 reason phrase, curl: status 200, 5 served, circuit closed, 0 failures
a host no pattern names: NULL NULL api.test:80
malformed URL while half-open, then a good request: true, circuit closed
writing open while half-open, then a good request: true, circuit closed
failure status: status 503, 3 served, circuit open, 9 failures
