--TEST--
HTTP guard, observe mode: a half-open trial is not capped at the probe timeout (observe refuses nothing and cuts nothing short): a 1.5 s request with a 5 s client timeout succeeds
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/fast-breakers.ini
circuit_breaker.http_mode=observe
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/upstream.inc';
$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";
for ($i = 0; $i < 3; $i++) {
    curl_exec(handle($upstream->url('/status/500')));
}
echo counters($service)['state'], "\n";
wait_until_half_open($service);
$slow = handle($upstream->url('/delay/1500'));
curl_setopt($slow, CURLOPT_TIMEOUT, 5);
var_dump(curl_exec($slow), curl_errno($slow));
?>
--EXPECT--
open
string(11) "status 200
"
int(0)
