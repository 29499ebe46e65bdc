--TEST--
CircuitForced and Status\CircuitStatus properties are typed and readonly like the other events': reflection shows each one's type, and writing or unsetting one throws PHP's own Error "Cannot modify readonly property" (not a bare Exception), the value unchanged
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';

$listener = new RecordingListener();
$breaker = breaker(listener: $listener);
$breaker->registerFailure(0.5);
$breaker->forceOpen(600);
$forced = $listener->events[0];
foreach ([$forced, $breaker->getStatus()] as $object) {
    foreach ((new ReflectionObject($object))->getProperties() as $property) {
        $name = $property->getName();
        $before = $object->$name;
        $written = $unset = 'no error';
        try {
            $object->$name = $before;
        } catch (Throwable $e) {
            $written = get_class($e) . ': ' . $e->getMessage();
        }
        try {
            unset($object->$name);
        } catch (Throwable $e) {
            $unset = get_class($e) . ': ' . $e->getMessage();
        }
        printf("%s %s%s $%s: %s; unset: %s; %s\n", $property->isPublic() ? 'public' : 'not public',
            $property->isReadOnly() ? 'readonly ' : '', $property->getType(), $name, $written, $unset,
            $object->$name == $before ? 'unchanged' : 'CHANGED');
    }
}
?>
--EXPECT--
public readonly Zeusi\CircuitBreaker\State $state: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Event\CircuitForced::$state; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Event\CircuitForced::$state; unchanged
public readonly float $duration: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Event\CircuitForced::$duration; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Event\CircuitForced::$duration; unchanged
public readonly string $service: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$service; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$service; unchanged
public readonly Zeusi\CircuitBreaker\State $state: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$state; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$state; unchanged
public readonly bool $forced: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$forced; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$forced; unchanged
public readonly ?DateTimeImmutable $since: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$since; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$since; unchanged
public readonly ?DateTimeImmutable $until: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$until; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$until; unchanged
public readonly ?float $remaining: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$remaining; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$remaining; unchanged
public readonly ?float $openDuration: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$openDuration; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$openDuration; unchanged
public readonly int $backoffLevel: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$backoffLevel; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$backoffLevel; unchanged
public readonly ?int $calls: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$calls; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$calls; unchanged
public readonly ?int $failures: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$failures; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$failures; unchanged
public readonly ?array $slowCalls: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$slowCalls; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$slowCalls; unchanged
public readonly ?int $callsInFlight: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$callsInFlight; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$callsInFlight; unchanged
public readonly ?float $rejectionRate: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$rejectionRate; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$rejectionRate; unchanged
public readonly ?int $bulkheadRejections: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$bulkheadRejections; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$bulkheadRejections; unchanged
public readonly ?array $counters: Error: Cannot modify readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$counters; unset: Error: Cannot unset readonly property Zeusi\CircuitBreaker\Status\CircuitStatus::$counters; unchanged