--TEST--
HTTP guard, curl_multi: an outcome is counted when the application reads the transfer's end with curl_multi_info_read; a refused transfer completes with result 7 and sends nothing; a transfer removed unread counts nothing
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

/** Runs the handles in one multi; returns the results read by curl_multi_info_read. */
function run_multi(array $handles, bool $read = true): array
{
    $multi = curl_multi_init();
    // 1 000 handles in the multi, a few connections at a time: the
    // upstream is one process.
    curl_multi_setopt($multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, 16);
    foreach ($handles as $handle) {
        curl_multi_add_handle($multi, $handle);
    }
    $results = [];
    do {
        curl_multi_exec($multi, $running);
        curl_multi_select($multi, 0.1);
        while ($read && ($done = curl_multi_info_read($multi)) !== false) {
            $results[] = $done['result'];
        }
    } while ($running > 0);
    while ($read && ($done = curl_multi_info_read($multi)) !== false) {
        $results[] = $done['result'];
    }
    foreach ($handles as $handle) {
        curl_multi_remove_handle($multi, $handle);
    }
    return $results;
}

// Two transfers read, one removed unread: two outcomes.
run_multi([handle($upstream->url('/status/200')), handle($upstream->url('/status/200'))]);
run_multi([handle($upstream->url('/status/200'))], read: false);
$c = counters($service);
echo "permitted {$c['callsPermitted']}, successes {$c['successes']}, failures {$c['failures']}\n";

// Three failures in one multi open the circuit.
print_r(run_multi([handle($upstream->url('/status/502')), handle($upstream->url('/status/502')), handle($upstream->url('/status/502'))]));
echo counters($service)['state'], "\n";
$served = $upstream->served();

// Refused transfers complete with CURLE_COULDNT_CONNECT, and nothing is sent.
$handles = [handle($upstream->url('/')), handle($upstream->url('/'))];
var_dump(run_multi($handles) === [CURLE_COULDNT_CONNECT, CURLE_COULDNT_CONNECT], $upstream->served() === $served);
var_dump(curl_errno($handles[0]) === CURLE_COULDNT_CONNECT);

// The same handles work again once the circuit may be tried (one trial).
wait_until_half_open($service);
print_r(run_multi([$handles[0]]));
var_dump(curl_exec($handles[1]) !== false, counters($service)['state']);

// 1 000 handles in one multi, a host not guarded and a guarded one mixed.
$many = [];
for ($i = 0; $i < 1000; $i++) {
    $many[] = handle($upstream->url('/'));
}
$results = run_multi($many);
echo count($results), ' ', count(array_filter($results, fn ($r) => $r === 0)), "\n";
echo counters($service)['successes'], "\n";
?>
--EXPECT--
permitted 3, successes 2, failures 0
Array
(
    [0] => 0
    [1] => 0
    [2] => 0
)
open
bool(true)
bool(true)
bool(true)
Array
(
    [0] => 0
)
bool(true)
string(6) "closed"
1000 1000
1004
