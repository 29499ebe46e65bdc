--TEST--
A network storage's listCircuits: Redis (standalone and cluster) finds every circuit by SCAN on every master; Memcached says it cannot list
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Exception\StorageException;

// What each store answers, for the circuits made below.
$expected = match (store()) {
    'redis' => <<<'LIST'
        inventory: closed
        payments: closed
        search: open (forced)
        shipping {eu}: closed
        2 starting with 's'
        LIST,
    'memcached' => 'MemcachedStorage cannot list circuits: Memcached cannot enumerate its keys. Keep the names of your services and call getStatus() on their breakers',
};
on_every_target(function (string $target) use ($expected) {
    $clock = new MockClock(microtime(true));
    $storage = storage(target_list($target), 'list-' . getmypid() . ':', 2.0);
    // A few circuits, one of them only counted, never changed.
    foreach (['payments', 'inventory', 'shipping {eu}', 'search'] as $service) {
        (new CircuitBreaker($service, configuration(), $storage, null, $clock))->registerSuccess();
    }
    (new CircuitBreaker('search', configuration(), $storage, null, $clock))->forceOpen(60);
    try {
        $listed = [];
        foreach ($storage->listCircuits() as $status) {
            $listed[] = $status->service . ': ' . $status->state->value . ($status->forced ? ' (forced)' : '');
        }
        sort($listed);
        $said = implode("\n", $listed) . "\n" . count($storage->listCircuits('s')) . " starting with 's'";
    } catch (StorageException $e) {
        $said = $e->getMessage();
    }
    echo $said === $expected ? "listCircuits: what the store can say\n" : "listCircuits:\n$said\n";
});
?>
--EXPECT--
listCircuits: what the store can say
