--TEST--
HTTP guard: when the storage of a breaker is down its requests go through (fail open), and PHP's error log says so once per interval, not per request
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_config={PWD}/storage-down.ini
circuit_breaker.log_interval=60
error_log={PWD}/storage-down.log
--FILE--
<?php
require __DIR__ . '/upstream.inc';
@unlink(__DIR__ . '/storage-down.log');
$upstream = new Upstream();
for ($i = 0; $i < 5; $i++) {
    $handle = handle($upstream->url('/status/503'));
    curl_exec($handle);
    echo curl_getinfo($handle, CURLINFO_RESPONSE_CODE), ' ';
}
echo "\nserved: ", $upstream->served(), "\n";
foreach (log_lines(__DIR__ . '/storage-down.log', 'circuit_breaker') as $line) {
    // The line ends with what Redis's client said.
    echo preg_replace(['~^\[[^]]+\] ~', '~(does not protect\)): .*$~'], ['', '$1'], $line), "\n";
}
?>
--CLEAN--
<?php @unlink(__DIR__ . '/storage-down.log'); ?>
--EXPECT--
503 503 503 503 503 
served: 5
circuit_breaker: the storage of the HTTP circuits (redis://127.0.0.1:1) failed, its calls fail open (the breaker does not protect)
