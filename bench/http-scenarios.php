<?php
// One scenario of bench/http.sh: ITERATIONS requests to the upstream at
// URL_BASE, through curl or the http stream wrapper.
// Usage: php http-scenarios.php SCENARIO ITERATIONS URL_BASE
//   curl, stream        a request that answers 200
//   curl-refused, stream-refused   first a 503 (one failure opens the
//                       circuit of bench/http-breakers.ini), then refused requests
// Prints the CPU time per iteration (user + system) on stdout.
[, $scenario, $iterations, $base] = $argv;
$iterations = (int) $iterations;
$refused = str_ends_with($scenario, '-refused');
$url = $base . '/status/200';
if ($refused) {
    @file_get_contents($base . '/status/503');
}
$cpu = static function (): float {
    $usage = getrusage();
    return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
};
$started = $cpu();
if (str_starts_with($scenario, 'curl')) {
    $handle = curl_init();
    curl_setopt($handle, CURLOPT_RETURNTRANSFER, true);
    for ($i = 0; $i < $iterations; $i++) {
        curl_setopt($handle, CURLOPT_URL, $url);
        curl_exec($handle);
    }
} else {
    for ($i = 0; $i < $iterations; $i++) {
        @file_get_contents($url);
    }
}
printf("%.2f\n", ($cpu() - $started) / $iterations * 1e6);
