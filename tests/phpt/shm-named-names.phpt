--TEST--
circuit_breaker.shm_name is a plain name of at most 253 bytes: a '/' or a longer name is refused with a startup warning naming the setting, and calls fail open
--FILE--
<?php
require __DIR__ . '/shm-named.inc';
echo run_named('a/b', '1M', 'state');
echo run_named('/circuit_breaker', '1M', 'state');
echo str_replace(str_repeat('x', 254), 'X254', run_named(str_repeat('x', 254), '1M', 'state'));
?>
--EXPECT--
Warning: PHP Startup: circuit_breaker.shm_name = 'a/b' contains '/': give a plain name such as circuit_breaker (the extension adds the leading /): the shared memory storage is disabled (its calls fail open) in Unknown on line 0
payments: StorageException: no shared memory segment: circuit_breaker.shm_name = 'a/b' contains '/': give a plain name such as circuit_breaker (the extension adds the leading /), permitted
StorageFailed: no shared memory segment: circuit_breaker.shm_name = 'a/b' contains '/': give a plain name such as circuit_breaker (the extension adds the leading /)
Warning: PHP Startup: circuit_breaker.shm_name = '/circuit_breaker' contains '/': give a plain name such as circuit_breaker (the extension adds the leading /): the shared memory storage is disabled (its calls fail open) in Unknown on line 0
payments: StorageException: no shared memory segment: circuit_breaker.shm_name = '/circuit_breaker' contains '/': give a plain name such as circuit_breaker (the extension adds the leading /), permitted
StorageFailed: no shared memory segment: circuit_breaker.shm_name = '/circuit_breaker' contains '/': give a plain name such as circuit_breaker (the extension adds the leading /)
Warning: PHP Startup: circuit_breaker.shm_name = 'X254' is 254 bytes long: at most 253 are allowed: the shared memory storage is disabled (its calls fail open) in Unknown on line 0
payments: StorageException: no shared memory segment: circuit_breaker.shm_name = 'X254' is 254 bytes long: at most 253 are allowed, permitted
StorageFailed: no shared memory segment: circuit_breaker.shm_name = 'X254' is 254 bytes long: at most 253 are allowed
