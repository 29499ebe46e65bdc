<?php
// The demo's look at its redis-server: `reset` zeroes the server's counters
// (CONFIG RESETSTAT); `read` prints, as JSON, the round trips it served
// (`total_reads_processed` of INFO stats: one read per request, a pipelined
// batch being one read) and the CPU its commands took (the `usec` of INFO
// commandstats, scripts included), this script's own INFO and CONFIG left out.
// Usage: php redis-stats.php ADDRESS reset|read

[, $address, $action] = $argv;
$socket = @stream_socket_client("tcp://$address", $errno, $error, 1.0);
if ($socket === false) {
    fwrite(STDERR, "redis-stats: $address: $error\n");
    exit(1);
}

function redis_command($socket, string ...$words): string
{
    $payload = '*' . count($words) . "\r\n";
    foreach ($words as $word) {
        $payload .= '$' . strlen($word) . "\r\n$word\r\n";
    }
    fwrite($socket, $payload);
    $line = fgets($socket);
    return $line[0] === '$' ? substr(stream_get_contents($socket, (int) substr($line, 1) + 2), 0, -2) : substr($line, 1);
}

if ($action === 'reset') {
    redis_command($socket, 'CONFIG', 'RESETSTAT');
    exit(0);
}
$stats = redis_command($socket, 'INFO', 'stats');
$commands = redis_command($socket, 'INFO', 'commandstats');
preg_match_all('/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/m', $commands, $matches);
$usec = 0;
foreach ($matches[1] as $i => $command) {
    $usec += preg_match('/^(info|config)\b/', $command) ? 0 : (int) $matches[3][$i];
}
echo json_encode([
    // Less the read of this INFO itself.
    'round_trips' => (int) (preg_match('/^total_reads_processed:(\d+)/m', $stats, $m) ? $m[1] : 1) - 1,
    'usec' => $usec,
]), "\n";
