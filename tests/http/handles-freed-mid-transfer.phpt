--TEST--
HTTP guard: handles dropped in the middle of a multi transfer, a multi closed with transfers unread, and handles reset or copied mid-way leave nothing behind and crash nothing
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

$multi = curl_multi_init();
for ($i = 0; $i < 20; $i++) {
    $handle = handle($upstream->url('/delay/50'));
    curl_multi_add_handle($multi, $handle);
    unset($handle);
}
curl_multi_exec($multi, $running);
// Closed with every transfer under way, none read.
curl_multi_close($multi);
unset($multi);
gc_collect_cycles();

// A handle reset and one copied while added: the copy has the URL, the
// reset one none; neither keeps what the extension set up.
$multi = curl_multi_init();
$handle = handle($upstream->url('/'));
curl_multi_add_handle($multi, $handle);
$copy = curl_copy_handle($handle);
curl_multi_remove_handle($multi, $handle);
curl_reset($handle);
var_dump(curl_exec($copy) !== false);
var_dump(Zeusi\CircuitBreaker\Http\HttpGuard::circuitOf(curl_getinfo($copy, CURLINFO_EFFECTIVE_URL)) === $service);
$c = counters($service);
echo "permitted {$c['callsPermitted']}, successes {$c['successes']}\n";
echo "done\n";
?>
--EXPECT--
bool(true)
bool(true)
permitted 22, successes 1
done
