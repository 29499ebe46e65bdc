<?php
// The one test proxy: a loopback TCP proxy in front of a server that can
// count round trips and delay replies, for the tests, the benchmark and
// memcached.sh's slow server.
//
// Usage: php proxy.php LISTEN_PORT TARGET_ADDRESS [--count FILE] [--delay MS]
//   LISTEN_PORT 0: listens on a free port and prints it on stdout (a line),
//       once it listens: whoever reads it needs no polling.
//   --count FILE: counts a round trip each time a client sends after having
//       been answered (or first), and writes the count to FILE when the
//       request arrives, before forwarding it: once the reply is back, the
//       count of that round trip is in FILE.
//   --delay MS: holds every chunk of a server's reply for MS before passing
//       it on (a slow server, for the tests that bound the time of a call).
//       Requests go through at once.

$arguments = array_slice($argv, 1);
$countFile = null;
$delay = 0.0;
$positional = [];
while ($arguments !== []) {
    $argument = array_shift($arguments);
    match ($argument) {
        '--count' => $countFile = array_shift($arguments),
        '--delay' => $delay = (float) array_shift($arguments) / 1000,
        default => $positional[] = $argument,
    };
}
if (count($positional) !== 2 || $countFile === '' || (in_array('--count', $argv, true) && $countFile === null)) {
    fwrite(STDERR, "usage: proxy.php LISTEN_PORT TARGET_ADDRESS [--count FILE] [--delay MS]\n");
    exit(2);
}
[$port, $target] = $positional;
$server = stream_socket_server("tcp://127.0.0.1:$port", $errno, $error);
if ($server === false) {
    fwrite(STDERR, "cannot listen on $port: $error\n");
    exit(1);
}
$roundTrips = 0;
if ($countFile !== null) {
    file_put_contents($countFile, '0');
}
if ($port === '0') {
    echo explode(':', stream_socket_get_name($server, false))[1], "\n";
    fclose(STDOUT);
}
$pairs = [];   // id => [client, upstream, waiting for an answer, [[due, data], ...]]
while (true) {
    $read = [$server];
    $soonest = null;
    foreach ($pairs as [$client, $upstream, , $queue]) {
        $read[] = $client;
        $read[] = $upstream;
        if ($queue !== []) {
            $soonest = min($soonest ?? INF, $queue[0][0]);
        }
    }
    $write = $except = null;
    $wait = $soonest === null ? null : max(0, $soonest - microtime(true));
    if (stream_select($read, $write, $except, $wait === null ? null : 0, $wait === null ? 0 : (int) ($wait * 1e6)) === false) {
        break;
    }
    foreach ($read as $socket) {
        if ($socket === $server) {
            $client = @stream_socket_accept($server, 0);
            $upstream = $client === false ? false : @stream_socket_client("tcp://$target", $errno, $error, 1.0);
            if ($client !== false && $upstream !== false) {
                $pairs[(int) $client] = [$client, $upstream, false, []];
            } elseif ($client !== false) {
                fclose($client);
            }
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
                if (!$waiting && $countFile !== null) {
                    $roundTrips++;
                    file_put_contents($countFile, (string) $roundTrips);
                }
                $pairs[$id][2] = true;
                fwrite($upstream, $data);
            } elseif ($delay > 0) {
                $pairs[$id][2] = false;
                $pairs[$id][3][] = [microtime(true) + $delay, $data];
            } else {
                $pairs[$id][2] = false;
                fwrite($client, $data);
            }
            break;
        }
    }
    $now = microtime(true);
    foreach ($pairs as $id => [$client, , , $queue]) {
        while ($queue !== [] && $queue[0][0] <= $now) {
            @fwrite($client, array_shift($queue)[1]);
        }
        $pairs[$id][3] = $queue;
    }
}
