<?php
// A hostile server, not a Redis: it answers every request with one reply
// that is not what Redis would send. `php redis-hostile-server.php MODE` prints
// its port, then serves until killed. MODE:
//   endless-bulk   a bulk announcing 4 GiB, then x forever
//   endless-line   a simple string that never ends
//   endless-array  an array announcing 10^9 items, then items forever
//   deep           arrays nested 100 000 deep
//   garbage        a line of no RESP type
//   long-bulk      a bulk longer than it announced
$mode = $argv[1] ?? 'garbage';
$server = stream_socket_server('tcp://127.0.0.1:0', $errno, $error);
echo explode(':', stream_socket_get_name($server, false))[1], "\n";
fflush(STDOUT);
$endless = ['endless-bulk' => "\$4294967296\r\n", 'endless-line' => '+', 'endless-array' => "*1000000000\r\n"];
$items = ['endless-bulk' => 'x', 'endless-line' => 'x', 'endless-array' => ":1\r\n"];
$replies = ['deep' => str_repeat("*1\r\n", 100_000), 'garbage' => "?what\r\n", 'long-bulk' => "\$1\r\nxyz\r\n"];
while ($client = @stream_socket_accept($server, -1)) {
    // A request, then the reply; until the client gives up and closes.
    while (($request = @fread($client, 65536)) !== false && $request !== '') {
        if (isset($endless[$mode])) {
            fwrite($client, $endless[$mode]);
            $chunk = str_repeat($items[$mode], (1 << 16) / strlen($items[$mode]));
            while (@fwrite($client, $chunk) > 0) {
            }
            break;
        }
        fwrite($client, $replies[$mode]);
    }
    fclose($client);
}
