--TEST--
Forked processes share a bulkhead: of 8 processes racing for a circuit with maxConcurrentCalls 3, exactly 3 hold a permit at once and 5 are rejected, counted across the processes; once they exit, their permits are free again
--SKIPIF--
<?php if (!function_exists('pcntl_fork')) die('skip pcntl needed'); ?>
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

const PROCESSES = 8;
const LIMIT = 3;

function breaker(): CircuitBreaker
{
    $configuration = new Configuration(
        timeWindow: 60,
        openingRules: [new ConsecutiveFailuresRule(failures: 100)],
        openDuration: 10,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
        maxConcurrentCalls: LIMIT,
    );
    return new CircuitBreaker('raced', $configuration, new SharedMemoryStorage('fork'));
}

$children = [];
for ($i = 0; $i < PROCESSES; $i++) {
    [$parent_end, $child_end] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    $pid = pcntl_fork();
    if ($pid === 0) {
        fclose($parent_end);
        $breaker = breaker();
        fwrite($child_end, $breaker->acquirePermission() ? "permitted\n" : "rejected\n");
        // Holds its permit until the parent has every answer.
        fgets($child_end);
        exit(0);
    }
    fclose($child_end);
    $children[$pid] = $parent_end;
}
$answers = [];
foreach ($children as $socket) {
    $answers[] = trim(fgets($socket));
}
$counted = array_count_values($answers);
ksort($counted);
var_dump($counted);
$status = breaker()->getStatus();
echo "in flight {$status->callsInFlight}, rejected {$status->bulkheadRejections}\n";
foreach ($children as $pid => $socket) {
    fwrite($socket, "go\n");
    pcntl_waitpid($pid, $exit);
}
$breakers = [breaker(), breaker(), breaker(), breaker()];
echo implode(' ', array_map(fn ($breaker) => var_export($breaker->acquirePermission(), true), $breakers)), "\n";
?>
--EXPECT--
array(2) {
  ["permitted"]=>
  int(3)
  ["rejected"]=>
  int(5)
}
in flight 3, rejected 5
true true true false
