--TEST--
circuit_breaker.shm_size accepts a size as PHP writes it and as MySQL, Redis and many tools write it (32MB, 32mb, 32M, 33554432, 32K, 1G): no warning, and the segment has that size
--FILE--
<?php
require __DIR__ . '/subprocess.inc';

$show = 'echo json_encode(array_intersect_key(Zeusi\CircuitBreaker\Storage\SharedMemoryStorage::info(), ["available" => 1, "segment_size" => 1])), "\n";';
foreach (['32MB', '32mb', '32M', '33554432', '32K', '1G', '64kB'] as $size) {
    $process = proc_open(
        [PHP_BINARY, '-n', '-d', 'extension=' . loaded_extension(), '-d', 'display_startup_errors=1', '-d', 'display_errors=1',
            '-d', "circuit_breaker.shm_size=$size", '-r', $show],
        [1 => ['pipe', 'w'], 2 => ['redirect', 1]],
        $pipes
    );
    echo "$size: ", trim(stream_get_contents($pipes[1])), "\n";
    fclose($pipes[1]);
    proc_close($process);
}
?>
--EXPECT--
32MB: {"available":true,"segment_size":33554432}
32mb: {"available":true,"segment_size":33554432}
32M: {"available":true,"segment_size":33554432}
33554432: {"available":true,"segment_size":33554432}
32K: {"available":true,"segment_size":32768}
1G: {"available":true,"segment_size":1073741824}
64kB: {"available":true,"segment_size":65536}
