<?php
// The demo's look at its redis-server: `reset` zeroes the server's counters
// (CONFIG RESETSTAT); `read` prints, as JSON, the round trips it served
// (`total_reads_processed` of INFO stats: one read per request, a pipelined
// batch being one read) and the CPU its commands took (the `usec` of INFO
// commandstats, scripts included), its INFO and CONFIG left out. The load
// generator samples the same counters every second (redis_counters()).
// Usage: php redis-stats.php ADDRESS reset|read

/** @param resource $socket */
function redis_command($socket, string ...$words): ?string
{
    $payload = '*' . count($words) . "\r\n";
    foreach ($words as $word) {
        $payload .= '$' . strlen($word) . "\r\n$word\r\n";
    }
    if (@fwrite($socket, $payload) === false || ($line = fgets($socket)) === false) {
        return null;
    }
    return $line[0] === '$' ? substr(stream_get_contents($socket, (int) substr($line, 1) + 2), 0, -2) : substr($line, 1);
}

/**
 * The server's round trips and command CPU (usec) so far, counting the read
 * of this call's first INFO, not its second; null when Redis does not answer.
 *
 * @param resource $socket
 * @return array{round_trips: int, usec: int}|null
 */
function redis_counters($socket): ?array
{
    $stats = redis_command($socket, 'INFO', 'stats');
    $commands = $stats === null ? null : redis_command($socket, 'INFO', 'commandstats');
    if ($commands === null || !preg_match('/^total_reads_processed:(\d+)/m', $stats, $reads)) {
        return null;
    }
    preg_match_all('/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/m', $commands, $matches);
    $usec = 0;
    foreach ($matches[1] as $i => $command) {
        $usec += preg_match('/^(info|config)\b/', $command) ? 0 : (int) $matches[3][$i];
    }
    return ['round_trips' => (int) $reads[1], 'usec' => $usec];
}

if (realpath($_SERVER['SCRIPT_FILENAME']) === __FILE__) {
    [, $address, $action] = $argv;
    $socket = @stream_socket_client("tcp://$address", $errno, $error, 1.0);
    if ($socket === false) {
        fwrite(STDERR, "redis-stats: $address: $error\n");
        exit(1);
    }
    if ($action === 'reset') {
        exit(redis_command($socket, 'CONFIG', 'RESETSTAT') === null ? 1 : 0);
    }
    $counters = redis_counters($socket) ?? exit(1);
    // Less the read of this script's own INFO.
    $counters['round_trips']--;
    echo json_encode($counters), "\n";
}
