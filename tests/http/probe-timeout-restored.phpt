--TEST--
HTTP guard: after a capped half-open trial, the client's own timeout is put back exactly as ext/curl read it ("1.5" and true are 1 s, "1000ms" is 1000 ms), never as no timeout; in observe mode a trial is not capped at all
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/fast-breakers.ini
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/upstream.inc';
$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";

foreach ([[CURLOPT_TIMEOUT, '1.5'], [CURLOPT_TIMEOUT, true], [CURLOPT_TIMEOUT_MS, '1000ms']] as [$option, $timeout]) {
    for ($i = 0; $i < 3; $i++) {
        curl_exec(handle($upstream->url('/status/500')));
    }
    wait_until_half_open($service);
    $handle = handle($upstream->url('/'));
    curl_setopt($handle, $option, $timeout);
    // The trial, capped at the probe timeout, closes the circuit.
    curl_exec($handle);
    $state = counters($service)['state'];
    // The same handle, to a server that answers in 2.5 s: cut at 1 s.
    curl_setopt($handle, CURLOPT_URL, $upstream->url('/delay/2500'));
    $started = microtime(true);
    curl_exec($handle);
    $took = microtime(true) - $started;
    printf("%s = %s: trial closed it: %s, then errno %d, %s\n", $option === CURLOPT_TIMEOUT ? 'CURLOPT_TIMEOUT' : 'CURLOPT_TIMEOUT_MS', var_export($timeout, true), $state, curl_errno($handle), $took < 2 ? 'cut at 1 s' : "took $took s");
}
?>
--EXPECT--
CURLOPT_TIMEOUT = '1.5': trial closed it: closed, then errno 28, cut at 1 s
CURLOPT_TIMEOUT = true: trial closed it: closed, then errno 28, cut at 1 s
CURLOPT_TIMEOUT_MS = '1000ms': trial closed it: closed, then errno 28, cut at 1 s
