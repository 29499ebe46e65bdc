<?php
// The demo's look at its redis-server: `reset` zeroes the server's counters
// (CONFIG RESETSTAT); `read` prints, as JSON, the round trips it served
// (`total_reads_processed` of INFO stats: one read per request, a pipelined
// batch being one read) and the CPU its commands took (the `usec` of INFO
// commandstats, scripts included), its INFO and CONFIG left out. The load
// generator samples the same counters every second (RedisSampler).
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

/** Redis's counters at each sample: what the others cost it since the previous one. */
final class RedisSampler
{
    /** @var resource|null */
    private $socket = null;
    /** The counters of the last sample on this connection; null before the baseline. */
    private ?array $last = null;
    /** The reads of the sampler's own INFO commands, for the run's totals to leave out. */
    public int $ownRoundTrips = 0;

    public function __construct(private string $address)
    {
    }

    /** @return array{round_trips: int, usec: int}|null null while Redis is down, and for the baseline */
    public function sample(): ?array
    {
        if ($this->socket === null) {
            $this->socket = @stream_socket_client("tcp://{$this->address}", $errno, $error, 0.5) ?: null;
            if ($this->socket === null) {
                return null;
            }
            stream_set_timeout($this->socket, 1);
        }
        $now = redis_counters($this->socket);
        if ($now === null) {
            // Redis went down: when it is back, it counts from zero.
            fclose($this->socket);
            $this->socket = null;
            $this->last = $this->last === null ? null : ['round_trips' => 0, 'usec' => 0, 'own' => 0];
            return null;
        }
        $this->ownRoundTrips += 2;
        // This sample's first INFO is counted in $now; the previous sample's
        // second INFO, on the same server, since the previous sample.
        $now['own'] = 1;
        $delta = $this->last === null ? null : [
            'round_trips' => $now['round_trips'] - $this->last['round_trips'] - $this->last['own'] - 1,
            'usec' => $now['usec'] - $this->last['usec'],
        ];
        $this->last = $now;
        return $delta;
    }

    public function close(): void
    {
        if ($this->socket !== null) {
            fclose($this->socket);
            $this->ownRoundTrips++;
        }
    }
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
