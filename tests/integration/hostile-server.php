<?php
// A hostile server, not a memcached: it answers every request with bytes
// that never end. `php hostile-server.php MODE` prints its port, then
// serves until killed. MODE:
//   endless-line   a line that never ends ("VALUE " then x forever)
//   endless-value  a VALUE line for the first key asked, announcing 4 GiB,
//                  then x forever
$mode = $argv[1] ?? 'endless-line';
$server = stream_socket_server('tcp://127.0.0.1:0', $errno, $error);
echo explode(':', stream_socket_get_name($server, false))[1], "\n";
fflush(STDOUT);
$chunk = str_repeat('x', 1 << 16);
while ($client = @stream_socket_accept($server, -1)) {
    // The request; its first key asked for, if any.
    $request = (string) fread($client, 65536);
    $key = preg_match('/gets (\S+)/', $request, $match) ? $match[1] : 'k';
    fwrite($client, $mode === 'endless-value' ? "VALUE $key 0 4294967296 1\r\n" : 'VALUE ');
    // Until the client gives up and closes.
    while (@fwrite($client, $chunk) > 0) {
    }
    fclose($client);
}
