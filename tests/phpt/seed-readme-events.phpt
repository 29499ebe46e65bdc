--TEST--
The seed README's event listener example runs unchanged: CircuitLogger logs the opening with its service, rule and outcomes, and nothing for the other events
--FILE--
<?php
require __DIR__ . '/seed-readme.inc';

// Seed README, Events (lines 305-325), unchanged.
$loggerExample = <<<'EXAMPLE'
use Zeusi\CircuitBreaker\Event\CircuitOpened;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;

final class CircuitLogger implements EventListenerInterface
{
    public function __construct(private readonly LoggerInterface $logger) {}

    public function handleEvent(EventInterface $event): void
    {
        if ($event instanceof CircuitOpened) {
            $this->logger->warning('Circuit opened', [
                'service' => $event->getService(),
                'rule' => $event->openingCause->openingRule::class,
                'outcomes' => \sprintf('%d of %d', $event->openingCause->matchingOutcomes, $event->openingCause->evaluatedOutcomes),
            ]);
        }
    }
}

$breaker = new CircuitBreaker('payments', $configuration, $storage, new CircuitLogger($logger));
EXAMPLE;
// What the example assumes: a PSR-3 logger (the one method it calls), a configuration, a storage.
$assumed = <<<'PHP'
namespace Psr\Log {
    interface LoggerInterface { public function warning(string|\Stringable $message, array $context = []): void; }
}
namespace {
    final class MemoryLogger implements Psr\Log\LoggerInterface
    {
        public array $lines = [];
        public function warning(string|\Stringable $message, array $context = []): void
        {
            $this->lines[] = "warning: $message " . json_encode($context);
        }
    }
}
PHP;
include example_file($assumed);

use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$storage = new InMemoryStorage();
$logger = new MemoryLogger();
[, $scope] = run_example(
    example_file($loggerExample, "use Psr\\Log\\LoggerInterface;\nuse Zeusi\\CircuitBreaker\\CircuitBreaker;"),
    compact('configuration', 'storage', 'logger'),
);
$breaker = $scope['breaker'];
$breaker->registerSuccess();
repeat(3, fn () => $breaker->registerFailure());
repeat(3, fn () => $breaker->acquirePermission()); // rejected: CallRejected, not logged
echo implode("\n", $logger->lines), "\n";
?>
--EXPECT--
warning: Circuit opened {"service":"payments","rule":"Zeusi\\CircuitBreaker\\Opening\\FailureRateRule","outcomes":"3 of 4"}
