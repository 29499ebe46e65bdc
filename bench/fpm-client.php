<?php
// Sends K sequential requests for SCRIPT to a php-fpm pool with the demo's
// FastCGI client (a new connection per request), each of which must answer
// "ok"; driven by bench/fpm-request.sh.
//   php bench/fpm-client.php ADDRESS DOCROOT SCRIPT K
require __DIR__ . '/../demo/fastcgi.php';

[, $address, $docroot, $script, $k] = $argv;
$params = [
    'SCRIPT_FILENAME' => "$docroot/$script", 'SCRIPT_NAME' => "/$script", 'REQUEST_URI' => "/$script",
    'REQUEST_METHOD' => 'GET', 'SERVER_PROTOCOL' => 'HTTP/1.1', 'GATEWAY_INTERFACE' => 'CGI/1.1',
    'REMOTE_ADDR' => '127.0.0.1', 'SERVER_NAME' => 'localhost', 'SERVER_PORT' => '80', 'QUERY_STRING' => '',
];
for ($i = 0; $i < (int) $k; $i++) {
    $body = fcgi_request($address, $params, 600.0);
    if ($body === null || !str_starts_with($body, 'ok')) {
        fwrite(STDERR, "$script answered: " . var_export($body, true) . "\n");
        exit(1);
    }
}
