<?php
// A minimal blocking FastCGI client: enough to send the demo's requests to
// PHP-FPM and read its status page, with no web server in between.

const FCGI_BEGIN_REQUEST = 1;
const FCGI_END_REQUEST = 3;
const FCGI_PARAMS = 4;
const FCGI_STDIN = 5;
const FCGI_STDOUT = 6;
const FCGI_RESPONDER = 1;

function fcgi_record(int $type, string $content): string
{
    return pack('CCnnCx', 1, $type, 1, strlen($content), 0) . $content;
}

function fcgi_length(int $length): string
{
    return $length < 128 ? chr($length) : pack('N', $length | 0x80000000);
}

/** Sends one request and returns the body of the response, or null on failure. */
function fcgi_request(string $address, array $params, float $timeout = 30.0): ?string
{
    $socket = @stream_socket_client("tcp://$address", $errno, $error, $timeout);
    if ($socket === false) {
        return null;
    }
    stream_set_timeout($socket, (int) $timeout, (int) (fmod($timeout, 1) * 1e6));
    $encoded = '';
    foreach ($params as $name => $value) {
        $encoded .= fcgi_length(strlen($name)) . fcgi_length(strlen($value)) . $name . $value;
    }
    fwrite($socket, fcgi_record(FCGI_BEGIN_REQUEST, pack('nCx5', FCGI_RESPONDER, 0))
        . fcgi_record(FCGI_PARAMS, $encoded) . fcgi_record(FCGI_PARAMS, '') . fcgi_record(FCGI_STDIN, ''));
    $output = '';
    while (true) {
        $header = fread($socket, 8);
        if ($header === false || strlen($header) < 8) {
            fclose($socket);
            return null;
        }
        $record = unpack('Cversion/Ctype/nid/nlength/Cpadding', $header);
        $content = $record['length'] > 0 ? stream_get_contents($socket, $record['length']) : '';
        if ($record['padding'] > 0) {
            fread($socket, $record['padding']);
        }
        if ($record['type'] === FCGI_STDOUT) {
            $output .= $content;
        } elseif ($record['type'] === FCGI_END_REQUEST) {
            break;
        }
    }
    fclose($socket);
    $parts = explode("\r\n\r\n", $output, 2);
    return $parts[1] ?? '';
}
