--TEST--
The seed README's storage names and prefixes: ApcuStorage (the library's name of the shared-memory storage) and InMemoryStorage construct as the seed's table names them; storages of the same prefix share a circuit, another prefix (or none) does not
--FILE--
<?php
require __DIR__ . '/seed-readme.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\ApcuStorage;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$service = 'payments-' . getmypid();
$shop = new CircuitBreaker($service, $configuration, new ApcuStorage(prefix: 'shop:'));
repeat(4, fn () => $shop->registerFailure());
foreach (['shop:' => new ApcuStorage(prefix: 'shop:'), 'blog:' => new ApcuStorage(prefix: 'blog:'), 'none' => new ApcuStorage()] as $prefix => $storage) {
    echo "ApcuStorage, prefix $prefix: ", (new CircuitBreaker($service, $configuration, $storage))->getState()->value, "\n";
}
echo "a StorageInterface: ", var_export(new ApcuStorage() instanceof StorageInterface && new InMemoryStorage() instanceof StorageInterface, true), "\n";
?>
--EXPECT--
ApcuStorage, prefix shop:: open
ApcuStorage, prefix blog:: closed
ApcuStorage, prefix none: closed
a StorageInterface: true
