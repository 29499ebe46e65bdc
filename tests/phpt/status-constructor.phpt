--TEST--
Status\CircuitStatus can be built from its properties, named arguments included, so that code reading statuses (a FailFast middleware, a metrics page) can be unit-tested: the values read back, the exporter renders it, a value out of its limits is a ValueError naming the parameter; a breaker's own status is unchanged
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\State;
use Zeusi\CircuitBreaker\Status\CircuitStatus;
use Zeusi\CircuitBreaker\Status\PrometheusExporter;

function show(CircuitStatus $status): void
{
    foreach ((new ReflectionObject($status))->getProperties() as $property) {
        $value = $property->getValue($status);
        echo '  ', $property->getName(), ' = ', match (true) {
            $value instanceof UnitEnum => $value->name,
            $value instanceof DateTimeImmutable => $value->format('Y-m-d H:i:s'),
            default => json_encode($value),
        }, "\n";
    }
}

$open = new CircuitStatus(
    service: 'payments',
    state: State::Open,
    since: new DateTimeImmutable('@1800000000'),
    until: new DateTimeImmutable('@1800000030'),
    remaining: 12.5,
    openDuration: 30.0,
    backoffLevel: 1,
    calls: 10,
    failures: 7,
    slowCalls: [['slowCallDuration' => 2.0, 'calls' => 3]],
    counters: ['callsPermitted' => 10, 'callsRejected' => 4, 'successes' => 3, 'failures' => 7, 'slowCalls' => 3, 'openings' => 1],
    callsInFlight: 2,
    bulkheadRejections: 5,
);
echo "built:\n";
show($open);
echo "closed, the defaults:\n";
show(new CircuitStatus('payments', State::Closed));
$later = new CircuitStatus(service: 'payments', state: State::Open, until: new DateTimeImmutable('+60 seconds'));
printf("remaining counted from now: %s\n", $later->remaining > 55 && $later->remaining < 60.1 ? 'about 60 s' : $later->remaining);
echo (new PrometheusExporter())->render([$open]);

echo "-- refused\n";
foreach ([
    fn () => new CircuitStatus(service: 'payments', state: 'open'),
    fn () => new CircuitStatus(service: 'payments', state: State::Open, remaining: 5.0),
    fn () => new CircuitStatus(service: 'payments', state: State::Open, until: new DateTimeImmutable(), remaining: -1.0),
    fn () => new CircuitStatus(service: 'payments', state: State::Open, since: new DateTime()),
    fn () => new CircuitStatus(service: 'payments', state: State::Open, openDuration: 0),
    fn () => new CircuitStatus(service: 'payments', state: State::Open, backoffLevel: -1),
    fn () => new CircuitStatus(service: 'payments', state: State::Closed, calls: 3, failures: 4),
    fn () => new CircuitStatus(service: 'payments', state: State::Closed, calls: 3),
    fn () => new CircuitStatus(service: 'payments', state: State::Closed, calls: -3, failures: 0),
    fn () => new CircuitStatus(service: 'payments', state: State::Closed, calls: 3, failures: 1, slowCalls: [['calls' => 1]]),
    fn () => new CircuitStatus(service: 'payments', state: State::Closed, counters: ['callsPermitted' => 1]),
    fn () => new CircuitStatus(service: 'payments', state: State::Closed, callsInFlight: 1),
    fn () => new CircuitStatus(service: 'payments', state: State::Closed, callsInFlight: -1, bulkheadRejections: 0),
] as $build) {
    try {
        $build();
        echo "built\n";
    } catch (Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}

echo "-- a breaker's own\n";
$breaker = breaker();
$breaker->registerFailure(0.5);
$breaker->forceOpen(600);
show($breaker->getStatus());
?>
--EXPECT--
built:
  service = "payments"
  state = Open
  forced = false
  since = 2027-01-15 08:00:00
  until = 2027-01-15 08:00:30
  remaining = 12.5
  openDuration = 30
  backoffLevel = 1
  calls = 10
  failures = 7
  slowCalls = [{"slowCallDuration":2,"calls":3}]
  callsInFlight = 2
  rejectionRate = null
  bulkheadRejections = 5
  counters = {"callsPermitted":10,"callsRejected":4,"successes":3,"failures":7,"slowCalls":3,"openings":1}
closed, the defaults:
  service = "payments"
  state = Closed
  forced = false
  since = null
  until = null
  remaining = null
  openDuration = null
  backoffLevel = 0
  calls = null
  failures = null
  slowCalls = null
  callsInFlight = null
  rejectionRate = null
  bulkheadRejections = null
  counters = null
remaining counted from now: about 60 s
# HELP circuit_breaker_state The state of the circuit: 1 for the one it is in, 0 for the others.
# TYPE circuit_breaker_state gauge
circuit_breaker_state{service="payments",state="closed"} 0
circuit_breaker_state{service="payments",state="open"} 1
circuit_breaker_state{service="payments",state="half_open"} 0
# HELP circuit_breaker_forced Whether an operator forced the state of the circuit (1) or not (0).
# TYPE circuit_breaker_forced gauge
circuit_breaker_forced{service="payments"} 0
# HELP circuit_breaker_state_remaining_seconds Seconds until the state of the circuit may change by time (end of an open or forced state).
# TYPE circuit_breaker_state_remaining_seconds gauge
circuit_breaker_state_remaining_seconds{service="payments"} 12.5
# HELP circuit_breaker_open_duration_seconds Seconds the circuit is open for, or would open for next, at its backoff level.
# TYPE circuit_breaker_open_duration_seconds gauge
circuit_breaker_open_duration_seconds{service="payments"} 30
# HELP circuit_breaker_calls_permitted_total Calls the circuit permitted.
# TYPE circuit_breaker_calls_permitted_total counter
circuit_breaker_calls_permitted_total{service="payments"} 10
# HELP circuit_breaker_calls_rejected_total Calls the circuit rejected.
# TYPE circuit_breaker_calls_rejected_total counter
circuit_breaker_calls_rejected_total{service="payments"} 4
# HELP circuit_breaker_successes_total Successful outcomes registered.
# TYPE circuit_breaker_successes_total counter
circuit_breaker_successes_total{service="payments"} 3
# HELP circuit_breaker_failures_total Failed outcomes registered.
# TYPE circuit_breaker_failures_total counter
circuit_breaker_failures_total{service="payments"} 7
# HELP circuit_breaker_slow_calls_total Outcomes at least as slow as the shortest slow call duration of the rules.
# TYPE circuit_breaker_slow_calls_total counter
circuit_breaker_slow_calls_total{service="payments"} 3
# HELP circuit_breaker_openings_total Times the rules opened the circuit (forced openings excluded).
# TYPE circuit_breaker_openings_total counter
circuit_breaker_openings_total{service="payments"} 1
# HELP circuit_breaker_calls_in_flight Calls of the circuit in flight now, across the workers of the pool (circuits with a bulkhead).
# TYPE circuit_breaker_calls_in_flight gauge
circuit_breaker_calls_in_flight{service="payments"} 2
# HELP circuit_breaker_bulkhead_rejections_total Calls the bulkhead of the circuit rejected, maxConcurrentCalls being in flight.
# TYPE circuit_breaker_bulkhead_rejections_total counter
circuit_breaker_bulkhead_rejections_total{service="payments"} 5
-- refused
TypeError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #2 ($state) must be of type Zeusi\CircuitBreaker\State, string given
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #6 ($remaining) must be null when $until is null
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #6 ($remaining) must be null or a finite number of seconds, at least 0, -1 given
TypeError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #4 ($since) must be of type ?DateTimeImmutable, DateTime given
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #7 ($openDuration) must be null or a finite number of seconds above 0, 0 given
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #8 ($backoffLevel) must be at least 0, -1 given
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #10 ($failures) must be at most $calls (3), 4 given
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #9 ($calls) must be given with $failures (and $slowCalls, when given): the window's counts go together
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #9 ($calls) must be null or at least 0, -3 given
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #11 ($slowCalls) must be null or a list of ['slowCallDuration' => seconds above 0, 'calls' => at least 0]
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #12 ($counters) must be null or an array of exactly 'callsPermitted', 'callsRejected', 'successes', 'failures', 'slowCalls' and 'openings', each an int at least 0
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #13 ($callsInFlight) must be given with $bulkheadRejections: the bulkhead's counts go together
ValueError: Zeusi\CircuitBreaker\Status\CircuitStatus::__construct(): Argument #13 ($callsInFlight) must be null or at least 0, -1 given
-- a breaker's own
  service = "payments"
  state = Open
  forced = true
  since = 2025-11-24 16:00:00
  until = 2025-11-24 16:10:00
  remaining = 600
  openDuration = 10
  backoffLevel = 0
  calls = 0
  failures = 0
  slowCalls = []
  callsInFlight = null
  rejectionRate = null
  bulkheadRejections = null
  counters = {"callsPermitted":0,"callsRejected":0,"successes":0,"failures":1,"slowCalls":0,"openings":0}