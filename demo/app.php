<?php
// The application of the demo, run by the PHP-FPM workers: each request
// reads a stock level from the upstream service, through a CallExecutor on
// the shared-memory storage (or Redis, when DEMO_REDIS names one) when the
// request says DEMO_BREAKER=1, directly otherwise. A request the circuit rejects falls back at once.

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\HalfOpen\RampPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureOrSlowCallRateRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\RedisStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

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
    if (($_SERVER['DEMO_BREAKER'] ?? '0') === '1') {
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
        ), ($_SERVER['DEMO_REDIS'] ?? '') !== '' ? new RedisStorage($_SERVER['DEMO_REDIS'], 'demo:') : new SharedMemoryStorage('demo:'));
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
