--TEST--
A named segment shortened while a process maps it (truncate, cp over it) kills nothing: that process's calls fail open with StorageFailed naming the object, and the next process refuses the short object
--SKIPIF--
<?php if (!is_dir('/dev/shm')) die('skip no /dev/shm');
--FILE--
<?php
require __DIR__ . '/shm-named.inc';
$name = unique_segment_name();
$show = fn (string $output) => str_replace($name, 'NAME', $output);
try {
    echo run_named($name, '1M', 'fail');
    echo "-- shortened to 4096 bytes: the header stays, the records go\n";
    echo $show(run_named($name, '1M', 'truncate-to-4096'));
    echo "-- a new process finds the short object\n";
    echo $show(run_named($name, '1M', 'state'));
    remove_segment($name);
    echo run_named($name, '1M', 'fail');
    echo "-- emptied\n";
    echo $show(run_named($name, '1M', 'truncate-to-0'));
} finally {
    remove_segment($name);
}
?>
--EXPECTF--
payments: open, rejected
-- shortened to 4096 bytes: the header stays, the records go
payments: rejected before
payments: StorageException: the shared memory object /dev/shm/NAME (circuit_breaker.shm_name) was shortened or overwritten while this process used it (it now holds 4096 bytes, the segment 1048576): this process no longer uses it, and its circuits fail open; remove the object (rm /dev/shm/NAME) and restart the processes that name it (php-fpm reload), permitted
StorageFailed: the shared memory object /dev/shm/NAME (circuit_breaker.shm_name) was shortened or overwritten while this process used it (it now holds 4096 bytes, the segment 1048576): %s
-- a new process finds the short object
Warning: PHP Startup: the shared memory object /dev/shm/NAME (circuit_breaker.shm_name) was made by another build or size of the extension: it holds 4096 bytes, %s
payments: StorageException: %s, permitted
StorageFailed: %s
payments: open, rejected
-- emptied
payments: rejected before
payments: StorageException: %sshortened or overwritten while this process used it (it now holds 0 bytes, the segment 1048576)%s, permitted
StorageFailed: %s
