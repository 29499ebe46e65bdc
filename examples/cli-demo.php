<?php
// A breaker in front of a service that fails for a while, then recovers:
// watch it open, reject calls at once, test the service and close again.

declare(strict_types=1);

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\CallRejected;
use Zeusi\CircuitBreaker\Event\CircuitOpened;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

final class PrintingListener implements EventListenerInterface
{
    public function handleEvent(EventInterface $event): void
    {
        if ($event instanceof CallRejected) {
            return; // one per rejected call: a metric, not a log line
        }
        $line = sprintf('    event %s', (new \ReflectionClass($event))->getShortName());
        if ($event instanceof CircuitOpened) {
            $cause = $event->openingCause;
            $line .= sprintf(' (%s: %d of %d calls failed)', (new \ReflectionClass($cause->openingRule))->getShortName(), $cause->matchingOutcomes, $cause->evaluatedOutcomes);
        }
        echo $line, "\n";
    }
}

$configuration = new Configuration(
    timeWindow: 10,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 5)],
    openDuration: 1,
    halfOpenPolicy: new PermittedCallsPolicy(maxDuration: 5, permittedCalls: 2),
);
$breaker = new CircuitBreaker('inventory', $configuration, new InMemoryStorage(), new PrintingListener());
$executor = new CallExecutor($breaker);

$start = microtime(true);
$serviceIsDown = fn (): bool => microtime(true) - $start < 1.2;
$inventory = function () use ($serviceIsDown): string {
    usleep(20_000);
    if ($serviceIsDown()) {
        throw new \RuntimeException('connection refused');
    }
    return 'in stock';
};

$counts = ['answered' => 0, 'failed' => 0, 'rejected' => 0];
for ($call = 1; microtime(true) - $start < 3.0; $call++) {
    try {
        $executor->execute($inventory);
        $counts['answered']++;
        $result = 'answered';
    } catch (CallNotPermittedException $e) {
        $counts['rejected']++;
        $result = sprintf('rejected at once (%s, retry in %.2f s)', $e->getState()->value, $e->getRetryAfter() ?? 0);
    } catch (\RuntimeException $e) {
        $counts['failed']++;
        $result = 'failed: ' . $e->getMessage();
    }
    printf("%5.2f s  call %3d  %-48s circuit %s\n", microtime(true) - $start, $call, $result, $breaker->getState()->value);
    usleep(40_000);
}
printf("\n%d answered, %d failed, %d rejected without calling the service\n", $counts['answered'], $counts['failed'], $counts['rejected']);
