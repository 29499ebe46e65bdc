--TEST--
Processes naming the same segment (circuit_breaker.shm_name) share its circuits: one opens a circuit, the next sees it open; other names and the anonymous segment do not see it
--SKIPIF--
<?php if (!is_dir('/dev/shm')) die('skip no /dev/shm');
--FILE--
<?php
require __DIR__ . '/shm-named.inc';
$name = unique_segment_name();
$other = unique_segment_name();
try {
    echo run_named($name, '1M', 'fail');
    printf("/dev/shm/%s: mode %o, %d bytes\n", 'NAME', fileperms("/dev/shm/$name") & 0777, filesize("/dev/shm/$name"));
    echo run_named($name, '1M', 'state');
    echo run_named($name, '1M', 'state', 'search');
    echo run_named($other, '1M', 'state');
    echo run_named('', '1M', 'state');
    // Nothing was removed when the processes ended.
    echo run_named($name, '1M', 'state');
    echo str_replace($name, 'NAME', run_named($name, '1M', 'info'));
    echo run_named('', '1M', 'info');
} finally {
    remove_segment($name);
    remove_segment($other);
}
?>
--EXPECT--
payments: open, rejected
/dev/shm/NAME: mode 600, 1048576 bytes
payments: open, rejected
search: closed, permitted
payments: closed, permitted
payments: closed, permitted
payments: open, rejected
shared memory name => NAME (/dev/shm/NAME, shared by every process of its user that names it)
shared memory name => none (circuit_breaker.shm_name is empty): anonymous, shared by this process and its children
