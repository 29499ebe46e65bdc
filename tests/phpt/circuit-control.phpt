--TEST--
Operations\CircuitControl: forceOpen(), forceClosed(), reset() by service name, without a Configuration: the breakers of the storage see them, one event per command, the forced state kept as long as the longest configuration needs, durations bounded, bad storages refused
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Operations\CircuitControl;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\KeyValueStoreInterface;

$clock = new MockClock(1_764_000_000.0);
$storage = new InMemoryStorage($clock);
$operatorEvents = new RecordingListener();
$control = new CircuitControl($storage, $operatorEvents, $clock);
$worker = new CircuitBreaker('payments', new Configuration(10, [new ConsecutiveFailuresRule(2)], 10, PermittedCallsPolicy::createSingleTrial(30)), $storage, null, $clock);

echo "-- forceOpen('payments', 60)\n";
$control->forceOpen('payments', 60);
var_dump($worker->getState(), $worker->acquirePermission(), $worker->getStatus()->forced, $worker->getStatus()->remaining);
$clock->sleep(61);
var_dump($worker->getState(), $worker->acquirePermission());

echo "-- forceClosed('payments', 30)\n";
$control->forceClosed('payments', 30);
repeat(5, fn () => $worker->registerFailure());
var_dump($worker->getState(), $worker->getStatus()->forced);

echo "-- reset('payments')\n";
$control->reset('payments');
var_dump($worker->getStatus()->forced);
repeat(2, fn () => $worker->registerFailure());
var_dump($worker->getState());
$control->reset('payments');
var_dump($worker->getState(), $worker->acquirePermission());
echo implode(', ', $operatorEvents->names()), "\n";
foreach ($operatorEvents->events as $event) {
    if ($event instanceof Zeusi\CircuitBreaker\Event\CircuitForced) {
        echo $event->getService(), ' ', $event->state->name, ' ', $event->duration, "\n";
    }
}

echo "-- a circuit no breaker called yet\n";
$control->forceOpen('search', 3600);
$list = $storage->listCircuits();
usort($list, fn ($a, $b) => strcmp($a->service, $b->service));
foreach ($list as $status) {
    echo $status->service, ' ', $status->state->name, $status->forced ? ' forced' : '', "\n";
}

echo "-- durations: 1 s to 30 days\n";
foreach ([0.5, 2_592_001, NAN, -1] as $duration) {
    try {
        $control->forceOpen('payments', $duration);
    } catch (InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
$control->forceClosed('payments', 2_592_000);
$control->forceOpen('payments', 1);
echo count($operatorEvents->events), " events\n";

echo "-- what a command stores lives as long as the longest configuration needs\n";
final class TtlStore implements KeyValueStoreInterface
{
    public array $values = [];
    public array $ttls = [];
    public function increment(string $key, int $ttl): int { return $this->values[$key] = (int) ($this->values[$key] ?? 0) + 1; }
    public function getMultiple(array $keys): array { return array_intersect_key($this->values, array_flip($keys)); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        if (($this->values[$key] ?? null) !== $expected) {
            return false;
        }
        $this->values[$key] = $value;
        $this->ttls[] = $ttl;
        return true;
    }
}
$byName = new TtlStore();
(new CircuitControl($byName))->forceOpen('payments', 60);
(new CircuitControl($byName))->reset('payments');
$longest = new TtlStore();
$breaker = new CircuitBreaker('payments', new Configuration(3600, [new ConsecutiveFailuresRule(1)], 1, PermittedCallsPolicy::createSingleTrial(1)), $longest);
$breaker->forceOpen(60);
echo "forced by name: {$byName->ttls[0]} s, by a breaker of a 3600 s window: {$longest->ttls[0]} s\n";
echo 'reset by name kept a day and the longest counters: ', $byName->ttls[1] >= 86_400 + 3_600 ? 'yes' : 'no', "\n";

echo "-- a storage that fails throws\n";
$failing = new class implements KeyValueStoreInterface {
    public function increment(string $key, int $ttl): int { throw new RuntimeException('down'); }
    public function getMultiple(array $keys): array { throw new RuntimeException('down'); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { throw new RuntimeException('down'); }
};
$listener = new RecordingListener();
foreach (['forceOpen' => fn ($c) => $c->forceOpen('x', 10), 'forceClosed' => fn ($c) => $c->forceClosed('x', 10), 'reset' => fn ($c) => $c->reset('x')] as $name => $call) {
    try {
        $call(new CircuitControl($failing, $listener));
        echo "$name: no exception\n";
    } catch (Zeusi\CircuitBreaker\Exception\StorageException $e) {
        echo "$name: ", get_class($e), ', previous: ', $e->getPrevious()?->getMessage() ?? 'none', "\n";
    }
}
echo count($listener->names()), " events\n";

echo "-- bad arguments\n";
try {
    new CircuitControl(new class implements Zeusi\CircuitBreaker\Storage\StorageInterface {});
} catch (InvalidConfigurationException $e) {
    echo $e->getMessage(), "\n";
}
try {
    new CircuitControl(new stdClass());
} catch (TypeError $e) {
    echo $e->getMessage(), "\n";
}
try {
    (new ReflectionClass(CircuitControl::class))->newInstanceWithoutConstructor()->reset('payments');
} catch (Error $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
?>
--EXPECT--
-- forceOpen('payments', 60)
enum(Zeusi\CircuitBreaker\State::Open)
bool(false)
bool(true)
float(60)
enum(Zeusi\CircuitBreaker\State::Closed)
bool(true)
-- forceClosed('payments', 30)
enum(Zeusi\CircuitBreaker\State::Closed)
bool(true)
-- reset('payments')
bool(false)
enum(Zeusi\CircuitBreaker\State::Open)
enum(Zeusi\CircuitBreaker\State::Closed)
bool(true)
CircuitForced, CircuitForced, CircuitReset, CircuitReset
payments Open 60
payments Closed 30
-- a circuit no breaker called yet
payments Closed
search Open forced
-- durations: 1 s to 30 days
Invalid duration: 0.5 given, expected 1 to 2592000 seconds (30 days)
Invalid duration: 2592001 given, expected 1 to 2592000 seconds (30 days)
Invalid duration: NAN given, expected 1 to 2592000 seconds (30 days)
Invalid duration: -1 given, expected 1 to 2592000 seconds (30 days)
7 events
-- what a command stores lives as long as the longest configuration needs
forced by name: 90121 s, by a breaker of a 3600 s window: 90121 s
reset by name kept a day and the longest counters: yes
-- a storage that fails throws
forceOpen: Zeusi\CircuitBreaker\Exception\StorageException, previous: down
forceClosed: Zeusi\CircuitBreaker\Exception\StorageException, previous: down
reset: Zeusi\CircuitBreaker\Exception\StorageException, previous: down
0 events
-- bad arguments
Invalid storage: Zeusi\CircuitBreaker\Storage\StorageInterface@anonymous without increment(), getMultiple(), compareAndSet() given, expected a storage of this extension, or a KeyValueStoreInterface (increment(), getMultiple(), compareAndSet())
Zeusi\CircuitBreaker\Operations\CircuitControl::__construct(): Argument #1 ($storage) must be of type Zeusi\CircuitBreaker\Storage\StorageInterface, stdClass given
Error: Zeusi\CircuitBreaker\Operations\CircuitControl::reset(): the Zeusi\CircuitBreaker\Operations\CircuitControl object was not constructed (made without calling its constructor, as ReflectionClass::newInstanceWithoutConstructor() does): create it with new, or call parent::__construct() from a subclass's constructor
