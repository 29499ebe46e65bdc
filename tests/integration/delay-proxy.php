<?php
// A loopback TCP proxy that holds every chunk of a server's reply for
// DELAY_MS before passing it on: a slow server, for the tests that bound
// the time of a call. Requests go through at once.
// Usage: php delay-proxy.php LISTEN_PORT TARGET_ADDRESS DELAY_MS
// LISTEN_PORT 0: listens on a free port and prints it on stdout.

[, $port, $target, $delayMs] = $argv;
$delay = (float) $delayMs / 1000;
$server = stream_socket_server("tcp://127.0.0.1:$port", $errno, $error);
if ($server === false) {
    fwrite(STDERR, "cannot listen on $port: $error\n");
    exit(1);
}
if ($port === '0') {
    echo explode(':', stream_socket_get_name($server, false))[1], "\n";
    fclose(STDOUT);
}
$pairs = [];   // id => [client, upstream, [[due, data], ...]]
while (true) {
    $read = [$server];
    $soonest = null;
    foreach ($pairs as [$client, $upstream, $queue]) {
        $read[] = $client;
        $read[] = $upstream;
        if ($queue !== []) {
            $soonest = min($soonest ?? INF, $queue[0][0]);
        }
    }
    $write = $except = null;
    $wait = $soonest === null ? null : max(0, $soonest - microtime(true));
    $ready = stream_select($read, $write, $except, $wait === null ? null : 0, $wait === null ? 0 : (int) ($wait * 1e6));
    if ($ready === false) {
        break;
    }
    foreach ($read as $socket) {
        if ($socket === $server) {
            $client = @stream_socket_accept($server, 0);
            $upstream = $client === false ? false : @stream_socket_client("tcp://$target", $errno, $error, 1.0);
            if ($client !== false && $upstream !== false) {
                $pairs[(int) $client] = [$client, $upstream, []];
            } elseif ($client !== false) {
                fclose($client);
            }
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
                break;
            }
            if ($socket === $client) {
                fwrite($upstream, $data);
            } else {
                $pairs[$id][2][] = [microtime(true) + $delay, $data];
            }
            break;
        }
    }
    $now = microtime(true);
    foreach ($pairs as $id => [$client, , $queue]) {
        while ($queue !== [] && $queue[0][0] <= $now) {
            @fwrite($client, array_shift($queue)[1]);
        }
        $pairs[$id][2] = $queue;
    }
}
