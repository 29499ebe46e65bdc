--TEST--
An invalid circuit_breaker.shm_size or shm_max_share is warned about at startup with the accepted range, and its default used (the storage keeps protecting); php --ri shows the ini table
--FILE--
<?php
require __DIR__ . '/subprocess.inc';

function run_with(array $settings, string ...$arguments): string
{
    $command = [PHP_BINARY, '-n', '-d', 'extension=' . loaded_extension(), '-d', 'circuit_breaker.log_interval=0', '-d', 'display_startup_errors=1', '-d', 'display_errors=1'];
    foreach ($settings as $name => $value) {
        array_push($command, '-d', "circuit_breaker.$name=$value");
    }
    $process = proc_open([...$command, ...$arguments], [1 => ['pipe', 'w'], 2 => ['redirect', 1]], $pipes);
    $output = stream_get_contents($pipes[1]);
    fclose($pipes[1]);
    proc_close($process);
    return trim(preg_replace('/\n+/', "\n", $output));
}

$show = 'echo json_encode(array_intersect_key(Zeusi\CircuitBreaker\Storage\SharedMemoryStorage::info(), ["available" => 1, "segment_size" => 1, "max_share" => 1])), "\n";';
foreach ([
    ['shm_size' => 'abc'], ['shm_size' => '0'], ['shm_size' => '100G'], ['shm_size' => '8K'], ['shm_size' => '16K'],
    ['shm_max_share' => 'abc'], ['shm_max_share' => '0'], ['shm_max_share' => '1.5'],
    ['shm_size' => '1M', 'shm_max_share' => '0.25'], ['shm_size' => ' 2M ', 'shm_max_share' => '1'],
] as $settings) {
    echo json_encode($settings), ":\n", run_with($settings, '-r', $show), "\n";
}
echo run_with(['shm_size' => '1M'], '--ri', 'circuit_breaker'), "\n";
?>
--EXPECTF--
{"shm_size":"abc"}:
Warning: PHP Startup: circuit_breaker.shm_size = 'abc' is not a size from 16K to 4G (such as 32M, 32MB or 33554432): the default size 32M is used in Unknown on line 0
{"available":true,"segment_size":33554432,"max_share":0.5}
{"shm_size":"0"}:
Warning: PHP Startup: circuit_breaker.shm_size = '0' is not a size from 16K to 4G (such as 32M, 32MB or 33554432): the default size 32M is used in Unknown on line 0
{"available":true,"segment_size":33554432,"max_share":0.5}
{"shm_size":"100G"}:
Warning: PHP Startup: circuit_breaker.shm_size = '100G' is not a size from 16K to 4G (such as 32M, 32MB or 33554432): the default size 32M is used in Unknown on line 0
{"available":true,"segment_size":33554432,"max_share":0.5}
{"shm_size":"8K"}:
Warning: PHP Startup: circuit_breaker.shm_size = '8K' is not a size from 16K to 4G (such as 32M, 32MB or 33554432): the default size 32M is used in Unknown on line 0
{"available":true,"segment_size":33554432,"max_share":0.5}
{"shm_size":"16K"}:
{"available":true,"segment_size":16384,"max_share":0.5}
{"shm_max_share":"abc"}:
Warning: PHP Startup: circuit_breaker.shm_max_share = 'abc' is not a share of the records above 0 and at most 1 (such as 0.5): the default share 0.5 is used in Unknown on line 0
{"available":true,"segment_size":33554432,"max_share":0.5}
{"shm_max_share":"0"}:
Warning: PHP Startup: circuit_breaker.shm_max_share = '0' is not a share of the records above 0 and at most 1 (such as 0.5): the default share 0.5 is used in Unknown on line 0
{"available":true,"segment_size":33554432,"max_share":0.5}
{"shm_max_share":"1.5"}:
Warning: PHP Startup: circuit_breaker.shm_max_share = '1.5' is not a share of the records above 0 and at most 1 (such as 0.5): the default share 0.5 is used in Unknown on line 0
{"available":true,"segment_size":33554432,"max_share":0.5}
{"shm_size":"1M","shm_max_share":"0.25"}:
{"available":true,"segment_size":1048576,"max_share":0.25}
{"shm_size":" 2M ","shm_max_share":"1"}:
{"available":true,"segment_size":2097152,"max_share":1}
circuit_breaker
circuit_breaker support => enabled
version => %s
shared memory name => none (circuit_breaker.shm_name is empty): anonymous, shared by this process and its children
shared memory size => 1048576 bytes
%A
Directive => Local Value => Master Value
circuit_breaker.shm_size => 1M => 1M
circuit_breaker.shm_max_share => 0.5 => 0.5
circuit_breaker.shm_name => no value => no value
circuit_breaker.http_hosts => no value => no value
circuit_breaker.http_config => no value => no value
circuit_breaker.http_mode => enforce => enforce
circuit_breaker.log_interval => 0 => 0
