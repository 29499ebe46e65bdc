<?php
// The application of the demo, run by the PHP-FPM workers: each request
// reads a stock level from the upstream service, through a CallExecutor on
// the shared-memory storage (or Redis, when DEMO_REDIS names one; or the
// host's shared memory in front of it when DEMO_STORAGE is fleet) when the
// request says DEMO_BREAKER=1, directly otherwise. A request the circuit rejects falls back at once.

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\CallRejected;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

/** With two hosts, which host saw which event when: the report counts them. */
final class EventLog implements EventListenerInterface
{
    public function __construct(private string $file, private float $start)
    {
    }

    public function handleEvent(EventInterface $event): void
    {
        if (!$event instanceof CallRejected) {
            $line = sprintf("%.3f %s %s\n", microtime(true) - $this->start, getenv('DEMO_HOST'), (new ReflectionClass($event))->getShortName());
            file_put_contents($this->file, $line, FILE_APPEND | LOCK_EX);
        }
    }
}

function storage(): StorageInterface
{
    $redis = $_SERVER['DEMO_REDIS'] ?? '';
    return match (true) {
        $redis === '' => new SharedMemoryStorage('demo:'),
        // The host's segment (the PHP-FPM master's) in front of Redis.
        ($_SERVER['DEMO_STORAGE'] ?? '') === 'fleet' => new FleetStorage(new RedisStorage($redis, 'demo:')),
        default => new RedisStorage($redis, 'demo:'),
    };
}

function read_stock(): array
{
    $context = stream_context_create(['http' => ['timeout' => 1.0, 'ignore_errors' => true]]);
    $body = @file_get_contents($_SERVER['DEMO_UPSTREAM'], false, $context);
    $status = (int) explode(' ', $http_response_header[0] ?? 'HTTP/1.1 0')[1];
    if ($body === false || $status >= 500 || $status === 0) {
        throw new RuntimeException($body === false ? 'upstream timed out' : "upstream answered $status");
    }
    return json_decode($body, true);
}

$started = hrtime(true);
$state = 'none';
try {
    // 1: the breaker; 2: the breaker with a bulkhead of 5 of the 8 workers.
    $mode = $_SERVER['DEMO_BREAKER'] ?? '0';
    if ($mode === '1' || $mode === '2') {
        $breaker = new CircuitBreaker('inventory', new Configuration(
            timeWindow: 10,
            openingRules: [
                new FailureRateRule(threshold: 50, minimumRequests: 10),
                new FailureOrSlowCallRateRule(slowCallDuration: 0.5, threshold: 60, minimumRequests: 10),
                // A busy window is full of earlier successes: a run of failures
                // is the fast signal of an outage.
                new ConsecutiveFailuresRule(failures: 5),
            ],
            openDuration: 3,
            halfOpenPolicy: RampPolicy::createExponential(duration: 5, initialRatio: 0.1),
            // While the upstream hangs, 5 workers wait on it, not all 8: healthy,
            // about 3.5 calls are in flight, so 5 refuses few.
            maxConcurrentCalls: $mode === '2' ? 5 : null,
        ), storage(), ($_SERVER['DEMO_STORAGE'] ?? '') === 'fleet'
            ? new EventLog($_SERVER['DEMO_EVENT_LOG'], (float) file_get_contents($_SERVER['DEMO_START_FILE']))
            : null);
        try {
            (new CallExecutor($breaker))->execute(read_stock(...));
            $result = 'ok';
        } finally {
            $state = $breaker->getState()->value;
        }
    } else {
        read_stock();
        $result = 'ok';
    }
} catch (CallNotPermittedException) {
    $result = 'rejected';
} catch (RuntimeException) {
    $result = 'failed';
}
header('Content-Type: text/plain');
printf("%s %s %.1f\n", $result, $state, (hrtime(true) - $started) / 1e6);
