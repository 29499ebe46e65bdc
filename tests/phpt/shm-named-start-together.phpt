--TEST--
Eight PHP processes started at once on a new named segment initialise it once: each registers a failure, and all eight are counted
--SKIPIF--
<?php if (!is_dir('/dev/shm')) die('skip no /dev/shm');
--FILE--
<?php
require __DIR__ . '/shm-named.inc';
$name = unique_segment_name();
try {
    $processes = [];
    for ($i = 0; $i < 8; $i++) {
        $processes[] = proc_open([
            PHP_BINARY, '-n', '-d', 'extension=' . loaded_extension(), '-d', 'circuit_breaker.log_interval=0', '-d', 'display_errors=1',
            '-d', "circuit_breaker.shm_name=$name", '-d', 'circuit_breaker.shm_size=1M',
            __DIR__ . '/shm-named-child.php', 'fail-once', 'payments',
        ], [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes[$i]);
    }
    foreach ($processes as $i => $process) {
        $output = stream_get_contents($pipes[$i][1]);
        fclose($pipes[$i][1]);
        $status = proc_close($process);
        if ($output !== '' || $status !== 0) {
            echo "process $i: status $status: $output\n";
        }
    }
    echo run_named($name, '1M', 'count');
} finally {
    remove_segment($name);
}
?>
--EXPECT--
payments: 8 failures
