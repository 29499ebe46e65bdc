--TEST--
AdaptiveThrottlingRule: while closed, a share of max(0, (requests - k * successes) / (requests + 1)) of the calls is refused (RejectionReason::Throttled, no outcome counted), evenly and deterministically, capped, from the window the process's last register read back (breakers made per request included); it never opens the circuit, beside a rule that does; forced closed and an old window refuse nothing
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallGate;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\AdaptiveThrottlingRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

final class Rejections implements EventListenerInterface
{
    public array $reasons = [];
    public function handleEvent(EventInterface $event): void
    {
        if ($event instanceof Zeusi\CircuitBreaker\Event\CallRejected) {
            $key = "{$event->state->name} {$event->reason->name}";
            $this->reasons[$key] = ($this->reasons[$key] ?? 0) + 1;
        } else {
            $this->reasons[(new ReflectionClass($event))->getShortName()] = 1;
        }
    }
    public function take(): string
    {
        $taken = $this->reasons;
        $this->reasons = [];
        return json_encode($taken);
    }
}

$clock = new MockClock(1_800_000_000.0);
$events = new Rejections();
$rule = new AdaptiveThrottlingRule(k: 1.5, maxRejectionRate: 0.9, minimumRequests: 10);
echo "rule: k {$rule->k}, max {$rule->maxRejectionRate}, minimum {$rule->minimumRequests}\n";
$configuration = fn (array $rules) => new Configuration(
    timeWindow: 60,
    openingRules: $rules,
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$breaker = fn (string $service, ?array $rules = null) => new CircuitBreaker($service, $configuration($rules ?? [$rule]), new SharedMemoryStorage('throttling'), $events, $clock);

/** Of $calls acquires (none registered), how many were refused. */
function refused(CircuitBreaker $breaker, int $calls): int
{
    $refused = 0;
    for ($i = 0; $i < $calls; $i++) {
        $refused += $breaker->acquirePermission() ? 0 : 1;
    }
    return $refused;
}

echo "-- nothing known yet: nothing refused\n";
$payments = $breaker('payments');
echo refused($payments, 20), ' ', $events->take(), "\n";

echo "-- 10 successes, 10 failures: (20 - 1.5 * 10) / 21 = 23.8 % refused\n";
for ($i = 0; $i < 10; $i++) {
    $payments->registerSuccess();
    $payments->registerFailure();
}
echo refused($payments, 100), ' of 100 ', $events->take(), "\n";
printf("status: %s, rejection rate %.4f, outcomes %d\n", $payments->getState()->name, $payments->getStatus()->rejectionRate, $payments->getStatus()->calls);
try {
    for ($i = 0; $i < 10; $i++) {
        (new CallGate($payments))->admit()->success();
    }
} catch (CallNotPermittedException $refusal) {
    echo $refusal->getMessage(), "\n";
    var_dump($refusal->getReason(), $refusal->getRetryAfter());
}
$events->take();

echo "-- a breaker made per request knows what the process's registers read\n";
echo refused($breaker('payments'), 100), " of 100 ", $events->take(), "\n";

echo "-- every call failing: never open, capped at 90 %\n";
for ($i = 0; $i < 1000; $i++) {
    $payments->registerFailure();
}
echo refused($payments, 100), ' of 100, ', $payments->getState()->name, ' ', $events->take(), "\n";

echo "-- forced closed: nothing refused\n";
$payments->forceClosed(60);
echo refused($payments, 100), " of 100\n";
$payments->reset();
$events->take();

echo "-- beside a rule that opens: throttles at 50 % failures, opens at 80 %\n";
$orders = $breaker('orders', [new FailureRateRule(threshold: 80, minimumRequests: 10), $rule]);
for ($i = 0; $i < 10; $i++) {
    $orders->registerSuccess();
    $orders->registerFailure();
}
echo refused($orders, 100), ' of 100, ', $orders->getState()->name, ' ', $events->take(), "\n";
for ($i = 0; $i < 30; $i++) {
    $orders->registerFailure();
}
echo refused($orders, 10), ' of 10, ', $orders->getState()->name, ' ', $events->take(), "\n";

echo "-- the window read a window ago is forgotten\n";
$clock->sleep(61);
echo refused($breaker('payments'), 100), " of 100\n";
?>
--EXPECT--
rule: k 1.5, max 0.9, minimum 10
-- nothing known yet: nothing refused
0 []
-- 10 successes, 10 failures: (20 - 1.5 * 10) / 21 = 23.8 % refused
23 of 100 {"Closed Throttled":23}
status: Closed, rejection rate 0.2381, outcomes 20
Circuit 'payments' refuses 23.8% of its calls while its service fails too often (adaptive throttling): this call was not permitted
enum(Zeusi\CircuitBreaker\RejectionReason::Throttled)
NULL
-- a breaker made per request knows what the process's registers read
23 of 100 {"Closed Throttled":23}
-- every call failing: never open, capped at 90 %
90 of 100, Closed {"Closed Throttled":90}
-- forced closed: nothing refused
0 of 100
-- beside a rule that opens: throttles at 50 % failures, opens at 80 %
23 of 100, Closed {"Closed Throttled":23}
10 of 10, Open {"CircuitOpened":1,"Open CircuitOpen":10}
-- the window read a window ago is forgotten
0 of 100
