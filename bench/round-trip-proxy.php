<?php
// A loopback TCP proxy that counts round trips: each time a client sends
// after having been answered (or first) counts one. The count is written to
// COUNT_FILE after every change, for the benchmark to read.
// Usage: php round-trip-proxy.php LISTEN_PORT TARGET_ADDRESS COUNT_FILE

[, $port, $target, $countFile] = $argv;
$server = stream_socket_server("tcp://127.0.0.1:$port", $errno, $error);
file_put_contents($countFile, '0');
$pairs = [];      // client id => [client, upstream, waiting for an answer]
$roundTrips = 0;
while (true) {
    $read = [$server];
    foreach ($pairs as [$client, $upstream]) {
        $read[] = $client;
        $read[] = $upstream;
    }
    $write = $except = null;
    if (stream_select($read, $write, $except, null) === false) {
        break;
    }
    foreach ($read as $socket) {
        if ($socket === $server) {
            $client = stream_socket_accept($server);
            $upstream = stream_socket_client("tcp://$target");
            $pairs[(int) $client] = [$client, $upstream, false];
            continue;
        }
        foreach ($pairs as $id => [$client, $upstream, $waiting]) {
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
                if (!$waiting) {
                    $roundTrips++;
                    file_put_contents($countFile, (string) $roundTrips);
                }
                $pairs[$id][2] = true;
                fwrite($upstream, $data);
            } else {
                $pairs[$id][2] = false;
                fwrite($client, $data);
            }
            break;
        }
    }
}
