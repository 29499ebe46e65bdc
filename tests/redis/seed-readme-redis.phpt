--TEST--
The seed README's Redis examples run unchanged on a real phpredis \Redis (127.0.0.1:6379 in a private network namespace): the usage example opens the circuit on the gateway's failures and falls back, and RedisStorage($redis, prefix: 'shop:') keeps its circuits apart
--EXTENSIONS--
igbinary
redis
--SKIPIF--
<?php
require __DIR__ . '/../phpt/seed-readme.inc';
if ($why = private_network_unavailable('redis-server')) die("skip $why");
?>
--FILE--
<?php
require __DIR__ . '/../phpt/seed-readme.inc';
in_private_network(['igbinary', 'redis'], "redis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no --logfile /dev/null", 6379);

// Seed README, Redis (lines 283-286), unchanged.
$redisExample = <<<'EXAMPLE'
$redis = new \Redis();
$redis->connect('127.0.0.1');

$storage = new RedisStorage($redis, prefix: 'shop:');
EXAMPLE;
// Seed README, Usage (lines 20-50), unchanged.
$usageExample = <<<'EXAMPLE'
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

$configuration = new Configuration(
    timeWindow: 60,   // seconds over which calls are counted
    openingRules: [
        // opens at 50% of failed calls, with at least 10 calls in the time window
        new FailureRateRule(threshold: 50, minimumRequests: 10),
    ],
    openDuration: 10, // seconds during which no call is permitted once open
    halfOpenPolicy: RampPolicy::createExponential(duration: 60, initialRatio: 0.01),
);

$breaker = new CircuitBreaker('payments', $configuration, new RedisStorage($redis));

if (!$breaker->acquirePermission()) {
    return ChargeResult::deferred(); // the circuit is open: fall back without calling the service
}

try {
    $result = $paymentGateway->charge($order);
} catch (GatewayUnavailableException $e) {
    $breaker->registerFailure();

    throw $e;
}

$breaker->registerSuccess();
EXAMPLE;
// What the usage example assumes.
final class Order {}
final class ChargeResult
{
    public static function deferred(): self
    {
        return new self();
    }
}
final class GatewayUnavailableException extends RuntimeException {}
final class DownPaymentGateway
{
    public int $calls = 0;

    public function charge(Order $order): array
    {
        $this->calls++;
        throw new GatewayUnavailableException('the gateway does not answer');
    }
}

[, $redisScope] = run_example(example_file($redisExample, 'use Zeusi\CircuitBreaker\Storage\RedisStorage;'));
$redis = $redisScope['redis'];
echo 'the Redis example: ', get_class($redisScope['storage']), "\n";

// The usage example, once per charge, as a request would run it.
$paymentGateway = new DownPaymentGateway();
$order = new Order();
$usage = example_file($usageExample);
$results = [];
for ($i = 0; $i < 12; $i++) {
    try {
        [$returned, $usageScope] = run_example($usage, compact('redis', 'paymentGateway', 'order'));
        $results[] = $returned instanceof ChargeResult ? 'deferred' : 'charged';
    } catch (GatewayUnavailableException) {
        $results[] = 'failed';
    }
}
echo implode(' ', $results), "\n";
echo "gateway calls: {$paymentGateway->calls}\n";
echo "keys the application's client sees: ", $redis->exists('cb:{payments}:s', 'cb:{payments}:w'), "\n";
$configuration = $usageScope['configuration'] ?? null;
echo "the 'shop:' storage of the Redis example: ",
    (new Zeusi\CircuitBreaker\CircuitBreaker('payments', $configuration, $redisScope['storage']))->getState()->value, "\n";
?>
--EXPECT--
the Redis example: Zeusi\CircuitBreaker\Storage\RedisStorage
failed failed failed failed failed failed failed failed failed failed deferred deferred
gateway calls: 10
keys the application's client sees: 2
the 'shop:' storage of the Redis example: closed
