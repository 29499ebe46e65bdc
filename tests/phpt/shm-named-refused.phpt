--TEST--
A named segment made with another size, layout version or layout, or that is not a segment at all, is refused: a startup warning and StorageFailed say what differs and name the setting; calls fail open; the segment is left as it was
--SKIPIF--
<?php if (!is_dir('/dev/shm')) die('skip no /dev/shm');
--FILE--
<?php
require __DIR__ . '/shm-named.inc';
$name = unique_segment_name();
$show = fn (string $output) => str_replace($name, 'NAME', $output);
try {
    echo run_named($name, '1M', 'fail');
    echo "-- another size\n";
    echo $show(run_named($name, '2M', 'state'));
    echo "-- another layout version\n";
    $version = read_header_word($name, 8);
    write_header_word($name, 8, 42);
    echo $show(run_named($name, '1M', 'state'));
    write_header_word($name, 8, $version);
    echo "-- another layout\n";
    write_header_word($name, 16, 12345);
    echo $show(run_named($name, '1M', 'state'));
    echo "-- not a segment\n";
    write_header_word($name, 0, 0x2121212121212121);
    echo $show(run_named($name, '1M', 'state'));
    clearstatcache();
    echo "still ", filesize("/dev/shm/$name"), " bytes\n";
} finally {
    remove_segment($name);
}
?>
--EXPECTF--
payments: open, rejected
-- another size
Warning: PHP Startup: the shared memory object /dev/shm/NAME (circuit_breaker.shm_name) was made by another build or size of the extension: it holds 1048576 bytes, circuit_breaker.shm_size here is 2097152 bytes; give every process the same build and circuit_breaker.shm_size, or remove the object (rm /dev/shm/NAME) while no process uses it, or use another circuit_breaker.shm_name: the shared memory storage is disabled (its calls fail open) in Unknown on line 0
payments: StorageException: no shared memory segment: the shared memory object /dev/shm/NAME (circuit_breaker.shm_name) was made by another build or size of the extension: it holds 1048576 bytes, circuit_breaker.shm_size here is 2097152 bytes; give every process the same build and circuit_breaker.shm_size, or remove the object (rm /dev/shm/NAME) while no process uses it, or use another circuit_breaker.shm_name, permitted
StorageFailed: no shared memory segment: the shared memory object /dev/shm/NAME (circuit_breaker.shm_name) was made by another build or size of the extension: it holds 1048576 bytes, circuit_breaker.shm_size here is 2097152 bytes; give every process the same build and circuit_breaker.shm_size, or remove the object (rm /dev/shm/NAME) while no process uses it, or use another circuit_breaker.shm_name
-- another layout version
Warning: PHP Startup: the shared memory object /dev/shm/NAME (circuit_breaker.shm_name) was made by another build or size of the extension: its layout version is 42, this build's is %d; %s: the shared memory storage is disabled (its calls fail open) in Unknown on line 0
payments: StorageException: %sits layout version is 42, this build's is %d; %s, permitted
StorageFailed: %sits layout version is 42, this build's is %d; %s
-- another layout
%A: its layout fingerprint is 0x0000000000003039, this build's is 0x%x; %A
-- not a segment
%A(circuit_breaker.shm_name) cannot be used: it is not a circuit_breaker segment (its first word is 0x2121212121212121): remove it (rm /dev/shm/NAME) or use another circuit_breaker.shm_name%A
still 1048576 bytes
