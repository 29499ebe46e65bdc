--TEST--
A storage written in PHP whose getMultiple() returns a list (as Redis MGET does) or values that are not counters fails with StorageFailed naming what it returned, instead of reading them as absent or 0
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

/** Keeps values in an array; `$answer` shapes what getMultiple() returns. */
final class ShapedStorage implements StorageInterface
{
    public array $entries = [];
    public function __construct(private Closure $answer) {}
    public function increment(string $key, int $ttl): int { return $this->entries[$key] = (int) ($this->entries[$key] ?? 0) + 1; }
    public function getMultiple(array $keys) { return ($this->answer)($keys, $this->entries); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        if (($this->entries[$key] ?? null) !== $expected) {
            return false;
        }
        $this->entries[$key] = $value;
        return true;
    }
}

$answers = [
    'keyed by the keys (correct)' => fn ($keys, $entries) => array_intersect_key($entries, array_flip($keys)),
    'a list, as MGET' => fn ($keys, $entries) => array_map(fn ($key) => $entries[$key] ?? false, $keys),
    'counters as words' => fn ($keys, $entries) => array_map(
        fn ($value) => is_int($value) ? 'many' : $value, array_intersect_key($entries, array_flip($keys))),
    'counters as floats' => fn ($keys, $entries) => array_map(
        fn ($value) => is_int($value) ? $value + 0.5 : $value, array_intersect_key($entries, array_flip($keys))),
    'counters as numeric strings' => fn ($keys, $entries) => array_map(
        fn ($value) => is_int($value) ? " $value " : $value, array_intersect_key($entries, array_flip($keys))),
    'not an array' => fn () => 'nothing',
];
$clock = new MockClock(1_764_000_000.0);
foreach ($answers as $name => $answer) {
    $listener = new RecordingListener();
    $breaker = new CircuitBreaker('service', new Configuration(
        timeWindow: 10,
        openingRules: [new ConsecutiveFailuresRule(failures: 2)],
        openDuration: 10,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    ), new ShapedStorage($answer), $listener, $clock);
    $breaker->registerFailure();
    $breaker->registerFailure();
    echo "$name: ", $breaker->acquirePermission() ? 'permitted' : 'rejected', "\n";
    foreach ($listener->events as $event) {
        if ($event instanceof StorageFailed) {
            echo '  ', $event->exception->getMessage(), "\n";
            break;
        }
    }
}
?>
--EXPECTF--
keyed by the keys (correct): rejected
a list, as MGET: permitted
  getMultiple() returned an array with the integer key 0 (a list?): it must return the values found keyed by their keys
counters as words: permitted
  key cb:service:%s held "many", which is not a counter: replaced by 0
counters as floats: permitted
  getMultiple() returned 1.5 for the key 'cb:service:%s': a value is a string, or an int of at least 0
counters as numeric strings: rejected
not an array: permitted
  getMultiple() must return an array keyed by the keys found, it returned 'nothing'
