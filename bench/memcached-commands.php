<?php
// Memcached server commands per call of MemcachedStorage, from the server's
// `stats` before and after: a multi-get counts one command per key
// (cmd_get), as memcached counts it. Permitted calls (acquirePermission()
// + registerSuccess(), the configuration of bench/scenarios.php), then
// rejected ones on an open circuit. bench/callgrind.sh runs it beside its
// `memcached` scenario.
// Usage: php -d extension=... bench/memcached-commands.php HOST:PORT CALLS

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

require __DIR__ . '/scenarios.php';

[, $server, $calls] = $argv + [null, null, '1000'];
$calls = (int) $calls;

/** @return array<string, int> the server's counters of commands */
function memcached_commands(string $server): array
{
    $socket = stream_socket_client("tcp://$server", $errno, $error, 5);
    if ($socket === false) {
        fwrite(STDERR, "memcached at $server: $error\n");
        exit(1);
    }
    fwrite($socket, "stats\r\n");
    $stats = [];
    while (($line = fgets($socket)) !== false && trim($line) !== 'END') {
        $parts = explode(' ', trim($line));
        $stats[$parts[1]] = (int) $parts[2];
    }
    fclose($socket);
    $counted = ['cmd_get', 'cmd_set', 'cmd_touch', 'incr_hits', 'incr_misses', 'decr_hits', 'decr_misses', 'delete_hits', 'delete_misses'];
    return array_intersect_key($stats, array_flip($counted));
}

/** Prints the commands per call of $run($calls). */
function count_commands(string $server, string $what, int $calls, Closure $run): void
{
    $before = memcached_commands($server);
    $run($calls);
    $after = memcached_commands($server);
    $total = 0;
    $parts = [];
    foreach ($after as $name => $value) {
        $per = ($value - $before[$name]) / $calls;
        if ($per != 0) {
            $parts[] = sprintf('%s %.3f', $name, $per);
            $total += $per;
        }
    }
    printf("%-34s %7.3f server commands/call  (%s)\n", $what, $total, implode(', ', $parts));
}

$storage = new MemcachedStorage($server, 'bench-commands-' . getmypid() . ':', 5.0);
$permitted = bench_protected_calls(new CircuitBreaker('permitted', bench_configuration(), $storage));
// The first call of a process reads the whole window: counted apart.
count_commands($server, 'memcached permitted, first call', 1, $permitted);
$permitted(20);
count_commands($server, 'memcached permitted', $calls, $permitted);
$open = new CircuitBreaker('open', bench_configuration(), $storage);
for ($i = 0; $i < 10; $i++) {
    $open->registerFailure();
}
count_commands($server, 'memcached rejected', $calls, function (int $n) use ($open) {
    for ($i = 0; $i < $n; $i++) {
        $open->acquirePermission();
    }
});
