--TEST--
phpinfo() shows the shared memory segment: name, size, circuits in use, capacity, reuses, failures to allocate and the share of a prefix
--INI--
circuit_breaker.shm_size=1M
--FILE--
<?php
$breaker = new Zeusi\CircuitBreaker\CircuitBreaker('payments', new Zeusi\CircuitBreaker\Configuration(
    timeWindow: 10,
    openingRules: [new Zeusi\CircuitBreaker\Opening\FailureRateRule(threshold: 50, minimumRequests: 1)],
    openDuration: 10,
    halfOpenPolicy: Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
), new Zeusi\CircuitBreaker\Storage\SharedMemoryStorage());
$breaker->registerSuccess();
ob_start();
phpinfo(INFO_MODULES);
$info = ob_get_clean();
preg_match('/circuit_breaker support.*?(?=\n\n)/s', $info, $section);
echo $section[0], "\n";
echo ini_get('circuit_breaker.shm_size'), "\n";
?>
--EXPECTF--
circuit_breaker support => enabled
version => %s
shared memory name => none (circuit_breaker.shm_name is empty): anonymous, shared by this process and its children
shared memory size => 1048576 bytes
circuits in use => 1
circuit capacity => 129
idle circuits reused => 0
failures to allocate => 0
circuits per prefix at most => %d (circuit_breaker.shm_max_share = 0.5)
claims refused by the share => 0
HTTP guarding => off
1M
