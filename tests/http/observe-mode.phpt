--TEST--
HTTP guard, observe mode: circuits decide, count and log as in enforce mode, and nothing is refused (a dry run); a breaker of the file named for its hosts, with its own mode
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_config={PWD}/observe-breakers.ini
circuit_breaker.http_mode=observe
error_log={PWD}/observe-mode.log
--FILE--
<?php
require __DIR__ . '/upstream.inc';
@unlink(__DIR__ . '/observe-mode.log');
$upstream = new Upstream();
var_dump(Zeusi\CircuitBreaker\Http\HttpGuard::circuitOf($upstream->url('/')));
for ($i = 0; $i < 6; $i++) {
    curl_exec(handle($upstream->url('/status/503')));
}
echo 'served: ', $upstream->served(), "\n";
$c = counters('loopback');
echo "{$c['state']}: permitted {$c['callsPermitted']}, rejected {$c['callsRejected']}\n";
var_dump(Zeusi\CircuitBreaker\Http\HttpGuard::lastRefusal());
foreach (log_lines(__DIR__ . '/observe-mode.log', 'HTTP circuit') as $line) {
    echo preg_replace('~^\[[^]]+\] ~', '', $line), "\n";
}
?>
--CLEAN--
<?php @unlink(__DIR__ . '/observe-mode.log'); ?>
--EXPECT--
string(8) "loopback"
served: 6
open: permitted 3, rejected 3
NULL
circuit_breaker: HTTP circuit 'loopback' opened: 3 of 3 calls matched rule #2 of its breaker; open for 1 s (observe mode: nothing is refused)
