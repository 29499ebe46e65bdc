<?php
// The application of fpm-http.sh: plain curl to the URL it is given, with
// no breaker code. Answers the worker's pid and curl's error code.
$handle = curl_init($_GET['url'] ?? '');
curl_setopt($handle, CURLOPT_RETURNTRANSFER, true);
curl_setopt($handle, CURLOPT_TIMEOUT, 5);
curl_exec($handle);
echo json_encode(['pid' => getmypid(), 'errno' => curl_errno($handle), 'status' => curl_getinfo($handle, CURLINFO_RESPONSE_CODE)]), "\n";
