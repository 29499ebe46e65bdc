--TEST--
A named segment's object made first by someone else (touch /dev/shm/NAME, open to other users) is refused with a warning, and the process falls back to an anonymous segment: its breakers still open; the object is left as it was
--SKIPIF--
<?php if (!is_dir('/dev/shm')) die('skip no /dev/shm');
--FILE--
<?php
require __DIR__ . '/shm-named.inc';
$name = unique_segment_name();
$show = fn (string $output) => str_replace($name, 'NAME', $output);
try {
    touch("/dev/shm/$name");
    chmod("/dev/shm/$name", 0644);
    echo $show(run_named($name, '1M', 'fail'));
    clearstatcache();
    echo "still ", filesize("/dev/shm/$name"), " bytes, mode ", decoct(fileperms("/dev/shm/$name") & 0777), "\n";
} finally {
    remove_segment($name);
}
?>
--EXPECTF--
Warning: PHP Startup: the shared memory object /dev/shm/NAME (circuit_breaker.shm_name) cannot be used: its mode is 0644: other users could read or change the circuits; it must be 0600: an anonymous segment is used instead, shared only by this process and the processes it forks (the name is first come, first served: remove the object and restart, or use another circuit_breaker.shm_name) in Unknown on line 0
payments: open, rejected
still 0 bytes, mode 644
