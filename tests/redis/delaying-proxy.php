<?php
// A loopback TCP proxy that delays every reply of the server by DELAY_MS:
// a slow Redis, for the tests of the deadline of a call. It listens on a
// free port, prints it on stdout, and runs until killed.
// Usage: php delaying-proxy.php TARGET_ADDRESS DELAY_MS

[, $target, $delayMs] = $argv;
$server = stream_socket_server('tcp://127.0.0.1:0', $errno, $error);
echo explode(':', stream_socket_get_name($server, false))[1], "\n";
fclose(STDOUT);
$pairs = [];   // id => [client, upstream]
$pending = []; // replies to deliver: [due (hrtime ns), client id, data]
while (true) {
    $read = [$server];
    foreach ($pairs as [$client, $upstream]) {
        $read[] = $client;
        $read[] = $upstream;
    }
    $now = hrtime(true);
    $wait = $pending === [] ? null : max(0, $pending[0][0] - $now);
    $write = $except = null;
    if (stream_select($read, $write, $except, $wait === null ? null : 0, $wait === null ? 0 : intdiv($wait, 1000)) === false) {
        break;
    }
    foreach ($read as $socket) {
        if ($socket === $server) {
            $client = stream_socket_accept($server);
            $upstream = stream_socket_client("tcp://$target");
            $pairs[(int) $client] = [$client, $upstream];
            continue;
        }
        foreach ($pairs as $id => [$client, $upstream]) {
            if ($socket !== $client && $socket !== $upstream) {
                continue;
            }
            $data = fread($socket, 65536);
            if ($data === '' || $data === false) {
                fclose($client);
                fclose($upstream);
                unset($pairs[$id]);
            } elseif ($socket === $client) {
                fwrite($upstream, $data);
            } else {
                $pending[] = [hrtime(true) + (int) $delayMs * 1_000_000, $id, $data];
            }
            break;
        }
    }
    $now = hrtime(true);
    while ($pending !== [] && $pending[0][0] <= $now) {
        [, $id, $data] = array_shift($pending);
        if (isset($pairs[$id])) {
            fwrite($pairs[$id][0], $data);
        }
    }
}
