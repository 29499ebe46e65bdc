--TEST--
A FleetStorage reports the fleet store it holds to the cycle collector: a cycle through them is collected
--FILE--
<?php
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;

// A store that holds its fleet tier back (a container, a decorator): a cycle.
final class HoldingStore extends MemcachedStorage
{
    public ?FleetStorage $fleet = null;
}

$store = new HoldingStore('127.0.0.1:1');
$fleet = new FleetStorage($store);
$store->fleet = $fleet;
$weak = WeakReference::create($fleet);
unset($store, $fleet);
gc_collect_cycles();
echo $weak->get() === null ? "collected\n" : "leaked\n";
?>
--EXPECT--
collected
