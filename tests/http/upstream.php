<?php
// A loopback HTTP/1.1 server for the HTTP guard's tests: it answers, fails
// and hangs on request, and counts every request that reaches it.
// Usage: php upstream.php COUNT_FILE [STATUS]
// Listens on a free port of 127.0.0.1 and prints it on stdout. Paths:
//   /status/NNN[/MS]   answers with status NNN (after MS milliseconds)
//   /delay/MS          answers 200 after MS milliseconds
//   /redirect/PORT     answers 302 to http://127.0.0.1:PORT/status/200
//   /loop              answers 302 to /loop, for ever
//   /reason/NNN        answers status NNN with a Latin-1 reason phrase
//   anything else      STATUS (200 by default)
// After each request, COUNT_FILE holds the number of requests served.

[, $countFile] = $argv;
$defaultStatus = (int) ($argv[2] ?? 200);
// A deep backlog: tests open many connections at once.
$context = stream_context_create(['socket' => ['backlog' => 1024]]);
$server = stream_socket_server('tcp://127.0.0.1:0', $errno, $error, STREAM_SERVER_BIND | STREAM_SERVER_LISTEN, $context);
if ($server === false) {
    fwrite(STDERR, "cannot listen: $error\n");
    exit(1);
}
file_put_contents($countFile, '0');
echo explode(':', stream_socket_get_name($server, false))[1], "\n";
fclose(STDOUT);

$served = 0;
$clients = [];   // id => ['socket' => ..., 'buffer' => '', 'due' => ?float, 'reply' => ?string]
while (true) {
    $read = [$server];
    $timeout = null;
    $now = microtime(true);
    foreach ($clients as $id => $client) {
        if ($client['reply'] === null) {
            $read[] = $client['socket'];
        } else {
            $timeout = min($timeout ?? INF, max(0, $client['due'] - $now));
        }
    }
    $write = $except = null;
    $seconds = $timeout === null ? null : (int) $timeout;
    $micros = $timeout === null ? 0 : (int) (($timeout - (int) $timeout) * 1e6);
    if (@stream_select($read, $write, $except, $seconds, $micros) === false) {
        continue;
    }
    foreach ($read as $socket) {
        if ($socket === $server) {
            $client = @stream_socket_accept($server, 0);
            if ($client !== false) {
                $clients[(int) $client] = ['socket' => $client, 'buffer' => '', 'due' => null, 'reply' => null];
            }
            continue;
        }
        $id = (int) $socket;
        $chunk = fread($socket, 65536);
        if ($chunk === '' || $chunk === false) {
            fclose($socket);
            unset($clients[$id]);
            continue;
        }
        $clients[$id]['buffer'] .= $chunk;
        if (!str_contains($clients[$id]['buffer'], "\r\n\r\n")) {
            continue;
        }
        [$method, $path] = explode(' ', strtok($clients[$id]['buffer'], "\r\n")) + ['', '/'];
        $served++;
        file_put_contents($countFile, (string) $served);
        [$status, $delay, $headers] = [$defaultStatus, 0, ''];
        if (preg_match('~^/status/(\d{3})(?:/(\d+))?~', $path, $match)) {
            $status = (int) $match[1];
            $delay = (int) ($match[2] ?? 0) / 1000;
        } elseif (preg_match('~^/delay/(\d+)~', $path, $match)) {
            $delay = (int) $match[1] / 1000;
        } elseif (preg_match('~^/redirect/(\d+)~', $path, $match)) {
            [$status, $headers] = [302, "Location: http://127.0.0.1:{$match[1]}/status/200\r\n"];
        } elseif ($path === '/loop') {
            [$status, $headers] = [302, "Location: /loop\r\n"];
        }
        $reason = "Status $status";
        if (preg_match('~^/reason/(\d{3})~', $path, $match)) {
            [$status, $reason] = [(int) $match[1], "Tr\xe8s bien"];
        }
        $body = "status $status\n";
        $clients[$id]['reply'] = "HTTP/1.1 $status $reason\r\n{$headers}Content-Type: text/plain\r\nContent-Length: "
            . strlen($body) . "\r\nConnection: close\r\n\r\n" . ($method === 'HEAD' ? '' : $body);
        $clients[$id]['due'] = microtime(true) + $delay;
    }
    $now = microtime(true);
    foreach ($clients as $id => $client) {
        if ($client['reply'] !== null && $client['due'] <= $now) {
            @fwrite($client['socket'], $client['reply']);
            fclose($client['socket']);
            unset($clients[$id]);
        }
    }
}
