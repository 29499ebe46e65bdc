<?php
// The application of fpm-bulkhead.sh: calls of a circuit whose bulkhead lets
// `limit` calls in flight across the pool, holding their permit in every way
// a request can end without registering.

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

final class Kept
{
    /** Freed after the modules' request shutdown: only it gives the permit back. */
    public static ?CircuitBreaker $breaker = null;
}

function breaker(int $limit): CircuitBreaker
{
    $configuration = new Configuration(
        timeWindow: 60,
        openingRules: [new ConsecutiveFailuresRule(failures: 1000)],
        openDuration: 10,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
        maxConcurrentCalls: $limit,
    );
    return new CircuitBreaker('bulkheaded', $configuration, new SharedMemoryStorage());
}

function answer(array $fields): void
{
    echo json_encode($fields + ['pid' => getmypid()]), "\n";
    // Sent now: the requests that hold their permit end late, or never.
    flush();
}

$limit = (int) ($_GET['limit'] ?? 1);
$breaker = breaker($limit);
switch ($_GET['action'] ?? '') {
    case 'try':
        // One call, registered: whether the bulkhead had room.
        $permitted = $breaker->acquirePermission();
        $in_flight = $breaker->getStatus()->callsInFlight;
        if ($permitted) {
            $breaker->registerSuccess();
        }
        answer(['permitted' => $permitted, 'in_flight' => $in_flight]);
        break;
    case 'hold':
        // A call that never registers, the request ended by `how`.
        $permitted = $breaker->acquirePermission();
        answer(['permitted' => $permitted]);
        switch ($_GET['how']) {
            case 'return':
                $GLOBALS['kept'] = $breaker;
                break;
            case 'static':
                Kept::$breaker = $breaker;
                break;
            case 'exception':
                Kept::$breaker = $breaker;
                throw new RuntimeException('the call failed before its register');
            case 'exit':
                Kept::$breaker = $breaker;
                exit(0);
            case 'fatal':
                Kept::$breaker = $breaker;
                ini_set('memory_limit', '8M');
                $too_big = str_repeat('x', 64 * 1024 * 1024);
                break;
            case 'hang':
                // Past request_terminate_timeout: php-fpm kills the worker.
                Kept::$breaker = $breaker;
                sleep(60);
                break;
            case 'until':
                // Until the file exists: the test's signal to register.
                while (!file_exists($_GET['file'])) {
                    usleep(10_000);
                }
                if ($permitted) {
                    $breaker->registerSuccess();
                }
                break;
        }
        break;
}
