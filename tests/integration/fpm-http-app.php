<?php
// The application of fpm-http.sh: plain curl to the URL it is given, with
// no breaker code. Answers the worker's pid, curl's error code and the
// circuit that guards the URL in this worker.
$url = $_GET['url'] ?? '';
$handle = curl_init($url);
curl_setopt($handle, CURLOPT_RETURNTRANSFER, true);
curl_setopt($handle, CURLOPT_TIMEOUT, 5);
curl_exec($handle);
echo json_encode(['pid' => getmypid(), 'errno' => curl_errno($handle), 'status' => curl_getinfo($handle, CURLINFO_RESPONSE_CODE), 'circuit' => Zeusi\CircuitBreaker\Http\HttpGuard::circuitOf($url)]), "\n";
