<?php
// The application of fpm-exit.sh: PHP code called by the extension ends the
// request with exit() or a fatal error. The worker must survive, answer the
// next request, and nothing must be registered for the exit: the circuit
// opens at the first failure, so a registered exit shows as `open`.

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

function end_request(string $how): never
{
    if ($how === 'fatal') {
        ini_set('memory_limit', '8M');
        $too_big = str_repeat('x', 64 * 1024 * 1024);
    }
    echo "exit\n";
    exit(0);
}

final class EndingStorage implements StorageInterface
{
    public function __construct(private string $how) {}
    public function increment(string $key, int $ttl): int { end_request($this->how); }
    public function getMultiple(array $keys): array { end_request($this->how); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool { end_request($this->how); }
}

final class EndingListener implements EventListenerInterface
{
    public function __construct(private string $how) {}
    public function handleEvent(EventInterface $event): void { end_request($this->how); }
}

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new ConsecutiveFailuresRule(failures: 1)],
    openDuration: 600,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 60),
);
// One circuit per scenario, so that a scenario that registers shows alone.
$service = $_GET['service'] ?? 'upstream';
$shared = new CircuitBreaker($service, $configuration, new SharedMemoryStorage('fpm-exit:'));
register_shutdown_function(function () use ($shared) {
    echo json_encode(['pid' => getmypid(), 'state' => $shared->getState()->value]), "\n";
});

[$action, $how] = explode('-', $_GET['action'] ?? 'state-', 2) + [1 => ''];
echo "before\n";
switch ($action) {
    case 'call':
        (new CallExecutor($shared))->execute(fn () => end_request($how));
        break;
    case 'storage':
        $breaker = new CircuitBreaker($service, $configuration, new EndingStorage($how));
        (new CallExecutor($breaker))->execute(fn () => 'never run');
        break;
    case 'listener':
        // The failure is registered; the listener then ends the request.
        $breaker = new CircuitBreaker("$service listened", $configuration, new SharedMemoryStorage('fpm-exit:'), new EndingListener($how));
        $breaker->registerFailure();
        break;
}
echo "after\n";
