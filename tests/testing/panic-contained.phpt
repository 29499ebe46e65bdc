--TEST--
A panic inside the extension never reaches PHP: the call is let through with a StorageFailed event naming an internal error, getState() throws StorageException, an executed call runs, nothing is printed, and the breaker works on
--DESCRIPTION--
The panic is asked for by circuit_breaker_test_panic(), which only the
`testing` build has (make build-testing, src/php/testing.rs): the next call of
a breaker panics inside the extension's panic boundary (contain_panic).
--FILE--
<?php
require __DIR__ . '/../phpt/bootstrap.inc';
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;

$listener = new RecordingListener();
$breaker = breaker(listener: $listener);
$failures = function () use ($listener): array {
    $messages = [];
    foreach ($listener->events as $event) {
        if ($event instanceof StorageFailed) {
            $messages[] = preg_replace('/ at \S+:\d+$/', ' at FILE:LINE', $event->exception->getMessage());
        }
    }
    $listener->events = [];
    return $messages;
};

circuit_breaker_test_panic();
var_dump($breaker->acquirePermission());
echo implode("\n", $failures()), "\n";

circuit_breaker_test_panic();
try {
    $breaker->getState();
    echo "getState() did not throw\n";
} catch (StorageException $e) {
    echo 'StorageException: ', preg_replace('/ at \S+:\d+$/', ' at FILE:LINE', $e->getMessage()), "\n";
}

circuit_breaker_test_panic();
echo (new CallExecutor($breaker))->execute(fn () => 'ran'), "\n";
echo count($failures()), " StorageFailed\n";

// Nothing stays armed: the next calls are the breaker's own.
var_dump($breaker->acquirePermission(), $breaker->getState());
echo count($failures()), " StorageFailed\n";
?>
--EXPECT--
bool(true)
internal error of the extension, the call is let through: circuit_breaker_test_panic() asked for it at FILE:LINE
StorageException: internal error of the extension, the call is let through: circuit_breaker_test_panic() asked for it at FILE:LINE
ran
1 StorageFailed
bool(true)
enum(Zeusi\CircuitBreaker\State::Closed)
0 StorageFailed
