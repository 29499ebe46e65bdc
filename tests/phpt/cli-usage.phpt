--TEST--
bin/circuit-breaker: usage errors go to stderr with exit status 2 and name what is wrong and its limits; a storage that fails, a missing named segment, exit 1; --help prints the usage
--FILE--
<?php
preg_match('#\S*circuit_breaker[^/\s]*\.so#', file_get_contents('/proc/self/maps'), $module);
$cli = __DIR__ . '/../../bin/circuit-breaker';
function run(string $cli, string $module, string $arguments, string $ini = ''): void
{
    $command = escapeshellarg(PHP_BINARY) . ' -n -d extension=' . escapeshellarg($module) . " $ini " . escapeshellarg($cli) . " $arguments";
    $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    $status = proc_close($process);
    echo "[$arguments] exit $status", $out === '' ? '' : ', stdout: ' . strtok($out, "\n"), "\n";
    if ($err !== '') {
        echo '  ', str_replace("\n", "\n  ", rtrim($err)), "\n";
    }
}
$named = '-d circuit_breaker.shm_name=cb-phpt-cli-' . getmypid();
foreach (['', 'frobnicate', 'status', 'status a b', 'list a b', 'force-open payments', 'force-open payments soon',
    'force-open payments 0.5', 'force-closed payments 31d', "reset ''", '--verbose list', '--storage list',
    '--storage=mysql://x list', '--timeout=fast --storage=redis://127.0.0.1:1 list'] as $arguments) {
    run($cli, $module[0], $arguments, $named);
}
run($cli, $module[0], '--help', $named);
run($cli, $module[0], 'list');
run($cli, $module[0], 'force-open payments 60');
run($cli, $module[0], '--storage=redis://127.0.0.1:1 --timeout=0.5 force-open payments 60');
run($cli, $module[0], '--storage=redis://127.0.0.1:1 --timeout=0.5 list');
@unlink('/dev/shm/cb-phpt-cli-' . getmypid());
?>
--EXPECTF--
[] exit 2
  circuit-breaker: a command is missing: list, status, force-open, force-closed, reset, metrics or check-http-config
  Try 'circuit-breaker --help'.
[frobnicate] exit 2
  circuit-breaker: unknown command 'frobnicate' (commands: list, status, force-open, force-closed, reset, metrics, check-http-config)
  Try 'circuit-breaker --help'.
[status] exit 2
  circuit-breaker: status takes NAME, 0 given
  Try 'circuit-breaker --help'.
[status a b] exit 2
  circuit-breaker: status takes NAME, 2 given
  Try 'circuit-breaker --help'.
[list a b] exit 2
  circuit-breaker: list takes [NAME-PREFIX], 2 given
  Try 'circuit-breaker --help'.
[force-open payments] exit 2
  circuit-breaker: force-open takes NAME DURATION, 1 given
  Try 'circuit-breaker --help'.
[force-open payments soon] exit 2
  circuit-breaker: DURATION must be a number of seconds, or a number followed by s, m, h or d, from 1s to 30d (2592000 s): 'soon'
  Try 'circuit-breaker --help'.
[force-open payments 0.5] exit 2
  circuit-breaker: DURATION must be from 1s to 30d (1 to 2592000 seconds): '0.5' is 0.5 s
  Try 'circuit-breaker --help'.
[force-closed payments 31d] exit 2
  circuit-breaker: DURATION must be from 1s to 30d (1 to 2592000 seconds): '31d' is 2678400 s
  Try 'circuit-breaker --help'.
[reset ''] exit 2
  circuit-breaker: reset: NAME must not be empty
  Try 'circuit-breaker --help'.
[--verbose list] exit 2
  circuit-breaker: unknown option '--verbose' (options: --storage, --prefix, --timeout)
  Try 'circuit-breaker --help'.
[--storage list] exit 2
  circuit-breaker: --storage needs a value: --storage=...
  Try 'circuit-breaker --help'.
[--storage=mysql://x list] exit 2
  circuit-breaker: --storage must be shm, redis://..., rediss://..., unix:///path.sock or memcached://host:port: 'mysql://x'
  Try 'circuit-breaker --help'.
[--timeout=fast --storage=redis://127.0.0.1:1 list] exit 2
  circuit-breaker: --timeout must be a number of seconds (0.001 to 60): 'fast'
  Try 'circuit-breaker --help'.
[--help] exit 0, stdout: Usage: circuit-breaker [--storage=DSN] [--prefix=PREFIX] [--timeout=SECONDS] COMMAND [ARGUMENTS]
[list] exit 1
  circuit-breaker: circuit_breaker.shm_name is not set: this process has an anonymous shared memory segment of its own, which only it can see; it holds none of the php-fpm pool's circuits. Run with the pool's ini (php -c PATH/TO/php.ini) or -d circuit_breaker.shm_name=NAME, the name the pool's php.ini gives, or use --storage=redis://... for a Redis storage
[force-open payments 60] exit 1
  circuit-breaker: circuit_breaker.shm_name is not set: %s
[--storage=redis://127.0.0.1:1 --timeout=0.5 force-open payments 60] exit 1
  circuit-breaker: %s
[--storage=redis://127.0.0.1:1 --timeout=0.5 list] exit 1
  circuit-breaker: %s
