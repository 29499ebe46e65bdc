<?php
// The brown-out of issue 21: an upstream that fails 40 % of its calls for
// 20 s, called 100 times a second, on the breaker's own clock (a MockClock:
// the same figures on any machine). Classic rules against adaptive
// throttling: calls sent upstream, answers with data per second, and how
// many times the circuit opened and closed.
// Usage: php -d extension=build/circuit_breaker.so bench/brownout.php

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\CircuitClosed;
use Zeusi\CircuitBreaker\Event\CircuitOpened;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\AdaptiveThrottlingRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

const SECONDS = 20;
const CALLS_PER_SECOND = 100;

final class Flips implements EventListenerInterface
{
    public int $opened = 0;
    public int $closed = 0;
    public function handleEvent(EventInterface $event): void
    {
        $this->opened += $event instanceof CircuitOpened ? 1 : 0;
        $this->closed += $event instanceof CircuitClosed ? 1 : 0;
    }
}

/** Call $n of the brown-out fails: 40 % of them, drawn once from a fixed seed. */
function upstream_fails(int $n): bool
{
    static $fails = null;
    if ($fails === null) {
        mt_srand(21);
        $fails = array_map(fn () => mt_rand(1, 10) <= 4, range(0, SECONDS * CALLS_PER_SECOND));
    }
    return $fails[$n];
}

function run(string $name, array $rules): array
{
    $clock = new MockClock(1_800_000_000.0);
    $flips = new Flips();
    $breaker = new CircuitBreaker($name, new Configuration(
        timeWindow: 10,
        openingRules: $rules,
        openDuration: 2,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 5),
    ), new SharedMemoryStorage('brownout'), $flips, $clock);
    $sent = $answered = 0;
    for ($n = 0; $n < SECONDS * CALLS_PER_SECOND; $n++) {
        if ($breaker->acquirePermission()) {
            $sent++;
            if (upstream_fails($n)) {
                $breaker->registerFailure();
            } else {
                $answered++;
                $breaker->registerSuccess();
            }
        }
        $clock->sleep(1 / CALLS_PER_SECOND);
    }
    return [$sent, $answered / SECONDS, $flips->opened, $flips->closed];
}

$runs = [
    'classic: FailureRateRule(30 %)' => [new FailureRateRule(threshold: 30, minimumRequests: 20)],
    'throttling: k 1.5' => [new AdaptiveThrottlingRule(k: 1.5, minimumRequests: 20)],
    'throttling k 1.5 + FailureRateRule(90 %)' => [new FailureRateRule(threshold: 90, minimumRequests: 20), new AdaptiveThrottlingRule(k: 1.5, minimumRequests: 20)],
    'no breaker (nothing refused)' => [new FailureRateRule(threshold: 100, minimumRequests: 1_000_000)],
];
printf("brown-out: 40 %% of calls fail for %d s, %d calls a second (%d calls)\n", SECONDS, CALLS_PER_SECOND, SECONDS * CALLS_PER_SECOND);
printf("%-42s %10s %14s %8s %8s\n", 'rules', 'sent', 'answers/s', 'opened', 'closed');
foreach ($runs as $name => $rules) {
    [$sent, $answers, $opened, $closed] = run(md5($name), $rules);
    printf("%-42s %10d %14.1f %8d %8d\n", $name, $sent, $answers, $opened, $closed);
}
