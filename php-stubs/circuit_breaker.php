<?php

// Stubs of the circuit_breaker extension, for IDEs and static analysis.
// tests/phpt/stubs-match-reflection.phpt holds them against the loaded
// extension: a signature changed on one side only fails the tests.

namespace Zeusi\CircuitBreaker {

    /** The state of a circuit. */
    enum State: string
    {
        case Closed = 'closed';
        case Open = 'open';
        case HalfOpen = 'half_open';
    }

    /** Why a call was not permitted. */
    enum RejectionReason: string
    {
        /** The circuit is open. */
        case CircuitOpen = 'circuit_open';
        /** The circuit is half-open and its trial calls are taken. */
        case HalfOpenTrialsTaken = 'half_open_trials_taken';
        /** The circuit's bulkhead has maxConcurrentCalls calls in flight (closed or half-open); no outcome is counted. */
        case BulkheadFull = 'bulkhead_full';
        /** An AdaptiveThrottlingRule refuses a share of the calls while the service fails too often (closed); no outcome is counted. */
        case Throttled = 'throttled';
    }

    /** The outcome of a call, as a classifier decides it. */
    enum Outcome: string
    {
        case Success = 'success';
        case Failure = 'failure';
    }

    interface CircuitBreakerInterface
    {
        /** Whether the service may be called now. */
        public function acquirePermission(): bool;

        /**
         * @param float|null $duration seconds the call took, null when unknown
         * @throws \ValueError for a duration that is negative, NAN or infinite
         */
        public function registerSuccess(?float $duration = null): void;

        /**
         * @param float|null $duration seconds the call took, null when unknown
         * @throws \ValueError for a duration that is negative, NAN or infinite
         */
        public function registerFailure(?float $duration = null): void;

        /**
         * The state the next call would find; changes nothing.
         * @throws Exception\StorageException when the storage fails
         */
        public function getState(): State;

        public function getService(): string;
    }

    /**
     * What an operator does with a circuit: force it, reset it, look at it. Every
     * command is stored, so it holds on every worker and server sharing the storage.
     * Apart from CircuitBreakerInterface, so breakers written in PHP against that one
     * keep working.
     */
    interface ManualControlInterface extends CircuitBreakerInterface
    {
        /**
         * No call is permitted for $duration seconds (1 to 2592000), whatever the outcomes;
         * then the circuit is closed with a fresh window.
         */
        public function forceOpen(float $duration): void;

        /**
         * Every call is permitted for $duration seconds (1 to 2592000); outcomes are counted
         * but open nothing. Then the circuit is closed with a fresh window.
         */
        public function forceClosed(float $duration): void;

        /** Closed now, with a fresh window, ending any forced state and any backoff. */
        public function reset(): void;

        /** The state the next call finds, and why; changes nothing. */
        public function getStatus(): Status\CircuitStatus;
    }

    /** A circuit protecting one service, identified by its name. It holds no state of its own. */
    class CircuitBreaker implements CircuitBreakerInterface, ManualControlInterface
    {
        /** @param Clock\ClockInterface|\Psr\Clock\ClockInterface|null $clock the system clock by default; a PSR-20 clock is accepted when psr/clock is loaded */
        public function __construct(string $service, Configuration $configuration, Storage\StorageInterface $storage, ?Event\EventListenerInterface $eventListener = null, ?Clock\ClockInterface $clock = null) {}

        public function acquirePermission(): bool {}

        /** @throws Exception\InvalidConfigurationException for a negative or non-finite duration */
        public function registerSuccess(?float $duration = null): void {}

        /** @throws Exception\InvalidConfigurationException for a negative or non-finite duration */
        public function registerFailure(?float $duration = null): void {}

        /** Open or Closed while forced (no enum case of its own: see getStatus()->forced). */
        public function getState(): State {}

        public function getService(): string {}

        /**
         * @throws Exception\InvalidConfigurationException for a duration outside 1 to 2592000 seconds
         * @throws Exception\StorageException when the storage fails: the command was not stored
         */
        public function forceOpen(float $duration): void {}

        /**
         * @throws Exception\InvalidConfigurationException for a duration outside 1 to 2592000 seconds
         * @throws Exception\StorageException when the storage fails: the command was not stored
         */
        public function forceClosed(float $duration): void {}

        /** @throws Exception\StorageException when the storage fails: the command was not stored */
        public function reset(): void {}

        /** @throws Exception\StorageException when the storage fails */
        public function getStatus(): Status\CircuitStatus {}
    }

    /**
     * @property-read float $timeWindow seconds, 10 to 3600
     * @property-read list<Opening\OpeningRuleInterface> $openingRules
     * @property-read float $openDuration seconds, 1 to 2592000
     * @property-read HalfOpen\HalfOpenPolicyInterface $halfOpenPolicy
     * @property-read float|null $maxOpenDuration seconds; null: no backoff
     * @property-read int|null $maxConcurrentCalls the bulkhead's bound; null: none
     */
    class Configuration
    {
        public readonly \Zeusi\CircuitBreaker\HalfOpen\HalfOpenPolicyInterface $halfOpenPolicy;
        public readonly ?int $maxConcurrentCalls;
        public readonly ?float $maxOpenDuration;
        public readonly float $openDuration;
        public readonly array $openingRules;
        public readonly float $timeWindow;

        /**
         * @param list<Opening\OpeningRuleInterface> $openingRules at least one
         * @param float|null $maxOpenDuration the backoff: each reopening from half-open doubles the
         *                                    open duration up to it (openDuration to 2592000 seconds);
         *                                    closing starts again from openDuration. Null: no backoff
         * @param int|null $maxConcurrentCalls the bulkhead: at most this many calls in flight at once
         *                                     (1 to 256), counted across every worker of the PHP-FPM pool
         *                                     (per process over an InMemoryStorage); a call past it is
         *                                     rejected (RejectionReason::BulkheadFull). Null: no bound
         * @throws Exception\InvalidConfigurationException
         */
        public function __construct(float $timeWindow, array $openingRules, float $openDuration, HalfOpen\HalfOpenPolicyInterface $halfOpenPolicy, ?float $maxOpenDuration = null, ?int $maxConcurrentCalls = null) {}
    }
}

namespace Zeusi\CircuitBreaker\Clock {

    /** The PSR-20 signature: a class can implement both. */
    interface ClockInterface
    {
        public function now(): \DateTimeImmutable;
    }

    class SystemClock implements ClockInterface
    {
        public function __construct() {}

        public function now(): \DateTimeImmutable {}
    }

    class MockClock implements ClockInterface
    {
        /** @param float|string|\DateTimeImmutable $now a Unix timestamp in seconds, a date string or a date; 'now' by default */
        public function __construct(mixed $now = 'now') {}

        public function now(): \DateTimeImmutable {}

        public function sleep(float $seconds): void {}
    }
}

namespace Zeusi\CircuitBreaker\Storage {

    /**
     * Where circuits live: what every storage parameter takes. The storages of this
     * extension implement it; a storage written in PHP implements KeyValueStoreInterface,
     * which extends it. (A StorageInterface written in PHP with the three methods of
     * KeyValueStoreInterface is still accepted, but PHP does not check its signatures.)
     */
    interface StorageInterface
    {
    }

    /**
     * A storage written in PHP: three primitives, which the extension composes exactly as
     * it composes Memcached's. Keys are printable ASCII; values are the decimal text of
     * integers, or a state's text; $ttl is in seconds. An exception thrown here is a
     * storage failure: the breaker lets the call through and reports it (StorageFailed,
     * or the StorageException of getState()) with this exception as its previous.
     */
    interface KeyValueStoreInterface extends StorageInterface
    {
        /** Adds 1 to the integer at $key, creating it at 1 with $ttl when absent, atomically; returns the new value. */
        public function increment(string $key, int $ttl): int;

        /** @return array<string, string|int> the values of the keys that exist, as [key => value] */
        public function getMultiple(array $keys): array;

        /** Stores $value if the value is still $expected (null: absent), atomically; whether it stored. */
        public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool;
    }

    /**
     * Circuits in a shared memory segment made at module startup: shared by every
     * process of one PHP master (the workers of a PHP-FPM pool, a CLI process and its
     * forks). Sized by circuit_breaker.shm_size; an FPM reload starts a new segment.
     */
    class SharedMemoryStorage implements StorageInterface
    {
        /** @param string $prefix separates applications sharing the same master */
        public function __construct(string $prefix = '') {}

        /**
         * The status of every circuit of this storage's prefix whose service starts with
         * $prefix, in no particular order: one pass over the segment, no lock. Window counts
         * (calls, failures, slowCalls) are null. Names longer than 256 bytes, prefix
         * included, are not listed.
         * @return list<\Zeusi\CircuitBreaker\Status\CircuitStatus>
         */
        public function listCircuits(string $prefix = ''): array {}

        /**
         * The segment of this PHP master, as apcu_sma_info() tells APCu's. Without a
         * segment: ['available' => false, 'error' => why].
         *
         * @return array{available: bool, error?: string, segment_size?: int, record_size?: int, records?: int,
         *     records_used?: int, records_free?: int, records_idle?: int, max_share?: float, max_records_per_prefix?: int,
         *     idle_records_reused?: int, claims_failed_full?: int, claims_refused_by_share?: int}
         *     sizes in bytes; a record holds one circuit; records_idle: unused for their time to live, reusable;
         *     claims_failed_full: circuits that found no record (the breaker failed open);
         *     claims_refused_by_share: circuits refused because their prefix held its share (shm_max_share)
         */
        public static function info(): array {}
    }

    /** The name the zeusi/circuit-breaker library gives the storage of one PHP master. */
    class ApcuStorage extends SharedMemoryStorage
    {
        public function __construct(string $prefix = '') {}
    }

    /**
     * Circuits in Redis, Valkey or Redis Cluster, shared by every server. Two round trips
     * per permitted call, none per rejected call while open.
     */
    class RedisStorage implements StorageInterface
    {
        /**
         * @param string|list<string>|\Redis|\RedisCluster|null $dsn redis://[user:password@]host:port[/db],
         *        rediss:// (TLS), unix:///path.sock, or the seed nodes of a Redis Cluster;
         *        redis://127.0.0.1:6379 by default. Or a connected phpredis \Redis (its host, port or
         *        socket, database, credentials and OPT_PREFIX are read) or \RedisCluster (its masters
         *        and OPT_PREFIX), without serializer nor compression: the storage opens its own connection
         * @param string $prefix without braces
         * @param float $timeout seconds a whole call (acquirePermission(), a register, getState()) may take, connecting and every round trip included (0.001 to 60)
         */
        public function __construct(mixed $dsn = 'redis://127.0.0.1:6379', string $prefix = '', float $timeout = 0.05) {}

        /**
         * The status of every circuit of this storage's prefix whose service starts with
         * $prefix: SCAN on every master, never KEYS. Window counts are null.
         * @return list<\Zeusi\CircuitBreaker\Status\CircuitStatus>
         * @throws \Zeusi\CircuitBreaker\Exception\StorageException when Redis fails
         */
        public function listCircuits(string $prefix = ''): array {}
    }

    /**
     * Circuits in Memcached, shared by every server. Every key of a service lives on one
     * server, chosen from the service. Two round trips per permitted call.
     */
    class MemcachedStorage implements StorageInterface
    {
        /**
         * @param string|list<string>|\Memcached|null $servers 'host[:port]' (port 11211 when left out; '[::1]:11211'
         *        for IPv6), or several; '127.0.0.1:11211' by default.
         *        Or a \Memcached: its TCP servers (getServerList(), in order) and its OPT_PREFIX_KEY,
         *        put before $prefix; the storage opens its own connections
         * @param float $timeout seconds a whole call (acquirePermission(), a register, getState()) may take, connecting and every round trip included (0.001 to 60)
         */
        public function __construct(mixed $servers = '127.0.0.1:11211', string $prefix = '', float $timeout = 0.05) {}

        /**
         * Memcached cannot enumerate its keys: always throws. Keep the names of your services
         * and call getStatus() on their breakers.
         * @throws \Zeusi\CircuitBreaker\Exception\StorageException always
         */
        public function listCircuits(string $prefix = ''): array {}
    }

    /**
     * A host tier in front of Redis or Memcached: calls are decided on this machine's
     * shared memory; each host sends its window to the fleet store and reads the others'
     * at most once per $syncInterval per circuit, in one round trip. Half-open trials are
     * admitted by the fleet store. While the store fails, each host decides on its own
     * counts (StorageFailed once per host, StorageRecovered once when it is back).
     */
    class FleetStorage implements StorageInterface
    {
        /**
         * @param StorageInterface $fleet a RedisStorage (standalone, cluster, Sentinel) or a MemcachedStorage
         * @param SharedMemoryStorage|null $host the host's segment and prefix (default: the segment, with the fleet store's prefix)
         * @param float $syncInterval seconds between two syncs of a circuit on a host (0.01 to 60)
         */
        public function __construct(StorageInterface $fleet, ?SharedMemoryStorage $host = null, float $syncInterval = 0.2) {}

        /**
         * The status of every circuit of the fleet store whose service starts with $prefix
         * (Redis; Memcached cannot list and throws). Window counts are null.
         * @return list<\Zeusi\CircuitBreaker\Status\CircuitStatus>
         */
        public function listCircuits(string $prefix = ''): array {}
    }

    /** Circuits of the current process: for tests and long-running processes. */
    class InMemoryStorage implements StorageInterface
    {
        /** @param \Zeusi\CircuitBreaker\Clock\ClockInterface|\Psr\Clock\ClockInterface|null $clock expires idle circuits; pass the breaker's clock in tests */
        public function __construct(?\Zeusi\CircuitBreaker\Clock\ClockInterface $clock = null) {}

        /**
         * The status of every circuit whose service starts with $prefix, at the storage's clock.
         * Window counts are null.
         * @return list<\Zeusi\CircuitBreaker\Status\CircuitStatus>
         */
        public function listCircuits(string $prefix = ''): array {}
    }
}

namespace Zeusi\CircuitBreaker\Opening {

    /**
     * Closed: implemented only by the rules below. The extension evaluates them natively, on every
     * call and in every storage; a Configuration refuses a class of your own that implements it.
     */
    interface OpeningRuleInterface
    {
    }

    /**
     * @property-read float $threshold percentage of failed calls, 1 to 100
     * @property-read int $minimumRequests calls in the time window, at least 1
     */
    class FailureRateRule implements OpeningRuleInterface
    {
        public readonly int $minimumRequests;
        public readonly float $threshold;

        public function __construct(float $threshold, int $minimumRequests) {}
    }

    /**
     * @property-read float $slowCallDuration seconds from which a call is slow, at least 0.001
     * @property-read float $threshold percentage of slow calls among those with a duration, 1 to 100
     * @property-read int $minimumRequests calls with a duration in the time window, at least 1
     */
    class SlowCallRateRule implements OpeningRuleInterface
    {
        public readonly int $minimumRequests;
        public readonly float $slowCallDuration;
        public readonly float $threshold;

        public function __construct(float $slowCallDuration, float $threshold, int $minimumRequests) {}
    }

    /**
     * @property-read float $slowCallDuration seconds from which a call is slow, at least 0.001
     * @property-read float $threshold percentage of failed or slow calls, 1 to 100
     * @property-read int $minimumRequests calls in the time window, at least 1
     */
    class FailureOrSlowCallRateRule implements OpeningRuleInterface
    {
        public readonly int $minimumRequests;
        public readonly float $slowCallDuration;
        public readonly float $threshold;

        public function __construct(float $slowCallDuration, float $threshold, int $minimumRequests) {}
    }

    /** @property-read int $failures failures in a row that open the circuit, at least 1 */
    class ConsecutiveFailuresRule implements OpeningRuleInterface
    {
        public readonly int $failures;

        public function __construct(int $failures) {}
    }

    /**
     * Adaptive throttling, for brown-outs: it never opens the circuit; while closed, with at least
     * $minimumRequests outcomes in the window, it refuses a share of the calls of
     * max(0, (requests - k * successes) / (requests + 1)), at most $maxRejectionRate
     * (RejectionReason::Throttled), spread evenly over each worker's calls. Alone, or beside the
     * rules that open the circuit when the service is down.
     * @property-read float $k calls are let through up to k times the successes (1 to 10; 2 throttles past 50 % failures, 1.1 past 10 %)
     * @property-read float $maxRejectionRate the largest share refused, above 0, at most 1
     * @property-read int $minimumRequests outcomes in the window before anything is refused, at least 1
     */
    class AdaptiveThrottlingRule implements OpeningRuleInterface
    {
        public readonly float $k;
        public readonly float $maxRejectionRate;
        public readonly int $minimumRequests;

        public function __construct(float $k = 2.0, float $maxRejectionRate = 0.9, int $minimumRequests = 10) {}
    }

    /**
     * Why a circuit opened.
     * @property-read OpeningRuleInterface $openingRule the rule as configured
     * @property-read int $matchingOutcomes failed or slow calls
     * @property-read int $evaluatedOutcomes calls the rule looked at
     */
    class OpeningCause
    {
        public readonly int $evaluatedOutcomes;
        public readonly int $matchingOutcomes;
        public readonly \Zeusi\CircuitBreaker\Opening\OpeningRuleInterface $openingRule;

        /**
         * Built from its properties ($time in seconds since the epoch), for the tests of a listener:
         * the breaker builds its own. @throws \ValueError unless 0 <= matchingOutcomes <= evaluatedOutcomes
         */
        public function __construct(\Zeusi\CircuitBreaker\Opening\OpeningRuleInterface $openingRule, int $matchingOutcomes, int $evaluatedOutcomes) {}
    }
}

namespace Zeusi\CircuitBreaker\HalfOpen {

    /**
     * Closed: implemented only by RampPolicy and PermittedCallsPolicy, which the extension runs
     * natively; a Configuration refuses a class of your own that implements it. A ramp takes any
     * RampCurveInterface, yours included.
     */
    interface HalfOpenPolicyInterface
    {
        /** The longest the half-open state lasts, in seconds. */
        public function getMaxDuration(): float;
    }

    /** Maps the progress of a ramp (0 to 1) to the ratio of calls permitted (0 to 1). */
    interface RampCurveInterface
    {
        public function computeAdmissionRatio(float $progress): float;
    }

    /** ratio = initialRatio ^ (1 - progress) */
    class ExponentialRampCurve implements RampCurveInterface
    {
        public function __construct(float $initialRatio) {}

        public function computeAdmissionRatio(float $progress): float {}
    }

    /** ratio = initialRatio + (1 - initialRatio) * progress ^ exponent */
    class PowerRampCurve implements RampCurveInterface
    {
        public function __construct(float $initialRatio, float $exponent = 1.0) {}

        public function computeAdmissionRatio(float $progress): float {}
    }

    /** Permits a growing ratio of calls during its duration, then closes the circuit. */
    class RampPolicy implements HalfOpenPolicyInterface
    {
        public function __construct(float $duration, RampCurveInterface $curve) {}

        public static function createExponential(float $duration, float $initialRatio): RampPolicy {}

        public static function createLinear(float $duration, float $initialRatio): RampPolicy {}

        public static function createPower(float $duration, float $initialRatio, float $exponent): RampPolicy {}

        public function getMaxDuration(): float {}
    }

    /**
     * Permits the first calls of the half-open state; closes once they all reported, or at maxDuration.
     * @property-read int $permittedCalls
     */
    class PermittedCallsPolicy implements HalfOpenPolicyInterface
    {
        public readonly int $permittedCalls;

        public function __construct(float $maxDuration, int $permittedCalls = 1) {}

        public static function createSingleTrial(float $maxDuration): PermittedCallsPolicy {}

        public function getMaxDuration(): float {}
    }
}

namespace Zeusi\CircuitBreaker\Event {

    interface EventInterface
    {
        public function getService(): string;

        /** The breaker's clock at the moment of the event, in seconds since the epoch. */
        public function getTime(): float;
    }

    interface EventListenerInterface
    {
        /** Exceptions thrown here are caught and ignored. */
        public function handleEvent(EventInterface $event): void;
    }

    /**
     * @property-read \Zeusi\CircuitBreaker\State $previousState closed, or half-open when it opened again
     * @property-read \Zeusi\CircuitBreaker\Opening\OpeningCause $openingCause
     * @property-read float $openDuration seconds it opened for, backoff included
     */
    class CircuitOpened implements EventInterface
    {
        public readonly float $openDuration;
        public readonly \Zeusi\CircuitBreaker\Opening\OpeningCause $openingCause;
        public readonly \Zeusi\CircuitBreaker\State $previousState;

        /**
         * Built from its properties ($time in seconds since the epoch), for the tests of a listener:
         * the breaker builds its own. @throws \ValueError for a time that is not finite, a previousState other than Closed or HalfOpen, an openDuration not above 0
         */
        public function __construct(string $service, float $time, \Zeusi\CircuitBreaker\State $previousState, \Zeusi\CircuitBreaker\Opening\OpeningCause $openingCause, float $openDuration) {}

        public function getService(): string {}

        public function getTime(): float {}
    }

    class CircuitHalfOpened implements EventInterface
    {
        /**
         * Built from its properties ($time in seconds since the epoch), for the tests of a listener:
         * the breaker builds its own. @throws \ValueError for a time that is not finite
         */
        public function __construct(string $service, float $time) {}

        public function getService(): string {}

        public function getTime(): float {}
    }

    class CircuitClosed implements EventInterface
    {
        /**
         * Built from its properties ($time in seconds since the epoch), for the tests of a listener:
         * the breaker builds its own. @throws \ValueError for a time that is not finite
         */
        public function __construct(string $service, float $time) {}

        public function getService(): string {}

        public function getTime(): float {}
    }

    /**
     * @property-read \Zeusi\CircuitBreaker\State $state open or half-open; closed too when the bulkhead rejected
     * @property-read \Zeusi\CircuitBreaker\RejectionReason $reason
     */
    class CallRejected implements EventInterface
    {
        public readonly \Zeusi\CircuitBreaker\RejectionReason $reason;
        public readonly \Zeusi\CircuitBreaker\State $state;

        /**
         * Built from its properties ($time in seconds since the epoch), for the tests of a listener:
         * the breaker builds its own. Without $reason, the reason of the state (CircuitOpen, HalfOpenTrialsTaken).
         * @throws \ValueError for a time that is not finite, a state other than Open or HalfOpen without a reason,
         *                     or a state the reason cannot reject in
         */
        public function __construct(string $service, float $time, \Zeusi\CircuitBreaker\State $state, ?\Zeusi\CircuitBreaker\RejectionReason $reason = null) {}

        public function getService(): string {}

        public function getTime(): float {}
    }

    /**
     * An operator forced the circuit (forceOpen(), forceClosed()); emitted by the breaker that stored it.
     * @property-read \Zeusi\CircuitBreaker\State $state Open or Closed
     * @property-read float $duration seconds
     */
    class CircuitForced implements EventInterface
    {
        public readonly float $duration;
        public readonly \Zeusi\CircuitBreaker\State $state;

        /**
         * Built from its properties ($time in seconds since the epoch), for the tests of a listener:
         * the breaker builds its own. @throws \ValueError for a time that is not finite, a state other than Open or Closed, a duration not above 0
         */
        public function __construct(string $service, float $time, \Zeusi\CircuitBreaker\State $state, float $duration) {}

        public function getService(): string {}

        public function getTime(): float {}
    }

    /** An operator reset the circuit; emitted by the breaker that stored it. */
    class CircuitReset implements EventInterface
    {
        /**
         * Built from its properties ($time in seconds since the epoch), for the tests of a listener:
         * the breaker builds its own. @throws \ValueError for a time that is not finite
         */
        public function __construct(string $service, float $time) {}

        public function getService(): string {}

        public function getTime(): float {}
    }

    /** A FleetStorage host works with its fleet store again: once per host, after its StorageFailed. */
    class StorageRecovered implements EventInterface
    {
        /**
         * Built from its properties ($time in seconds since the epoch), for the tests of a listener:
         * the breaker builds its own. @throws \ValueError for a time that is not finite
         */
        public function __construct(string $service, float $time) {}

        public function getService(): string {}

        public function getTime(): float {}
    }

    /** @property-read \Zeusi\CircuitBreaker\Exception\StorageException $exception */
    class StorageFailed implements EventInterface
    {
        public readonly \Zeusi\CircuitBreaker\Exception\StorageException $exception;

        /**
         * Built from its properties ($time in seconds since the epoch), for the tests of a listener:
         * the breaker builds its own. @throws \ValueError for a time that is not finite
         */
        public function __construct(string $service, float $time, \Zeusi\CircuitBreaker\Exception\StorageException $exception) {}

        public function getService(): string {}

        public function getTime(): float {}
    }
}

namespace Zeusi\CircuitBreaker\Status {

    /**
     * A circuit as an operator sees it, from CircuitBreaker::getStatus() or a storage's
     * listCircuits().
     *
     * @property-read string $service
     * @property-read \Zeusi\CircuitBreaker\State $state the state the next call finds; Open or Closed while forced
     * @property-read bool $forced whether an operator forced the state
     * @property-read \DateTimeImmutable|null $since when the state began; null when unknown
     * @property-read \DateTimeImmutable|null $until until when time holds the state (end of an open or forced state); null otherwise
     * @property-read float|null $remaining seconds left, when the status was read, until $until; null when $until is
     * @property-read float|null $openDuration seconds the circuit is open for, or would open for next, at its backoff level; listings know it only while open
     * @property-read int $backoffLevel how many times the open duration doubled since the circuit was last closed
     * @property-read int|null $calls outcomes in the window of the current state; null in listings
     * @property-read int|null $failures failures among them; null in listings
     * @property-read list<array{slowCallDuration: float, calls: int}>|null $slowCalls per slow call duration of the rules, the calls at least that slow; null in listings
     * @property-read array{callsPermitted: int, callsRejected: int, successes: int, failures: int, slowCalls: int, openings: int}|null $counters
     *                the circuit's counters since its storage made its record (slow: at least the shortest slow call duration of the rules;
     *                openings: by the rules, not forced); null on storages that do not keep them (Redis, Memcached, userland)
     * @property-read int|null $callsInFlight calls in flight now across the workers of the pool (the process's own over
     *                an InMemoryStorage); null for a circuit without a bulkhead (maxConcurrentCalls)
     * @property-read int|null $bulkheadRejections calls its bulkhead rejected since the pool started; null without one
     * @property-read float|null $rejectionRate the share of calls adaptive throttling refuses by the window read (0 to 1);
     *                null without an AdaptiveThrottlingRule, or unless closed
     */
    class CircuitStatus
    {
        public readonly int $backoffLevel;
        public readonly ?int $bulkheadRejections;
        public readonly ?int $calls;
        public readonly ?int $callsInFlight;
        public readonly ?array $counters;
        public readonly ?int $failures;
        public readonly bool $forced;
        public readonly ?float $openDuration;
        public readonly ?float $rejectionRate;
        public readonly ?float $remaining;
        public readonly string $service;
        public readonly ?\DateTimeImmutable $since;
        public readonly ?array $slowCalls;
        public readonly \Zeusi\CircuitBreaker\State $state;
        public readonly ?\DateTimeImmutable $until;

        /**
         * Built from its properties, for the tests of code that reads statuses (a FailFast
         * middleware, a metrics page): breakers and storages build theirs. $remaining left null
         * with an $until is counted from now, on the system clock; $calls and $failures go together,
         * and so do $callsInFlight and $bulkheadRejections.
         * @param list<array{slowCallDuration: float, calls: int}>|null $slowCalls
         * @param array{callsPermitted: int, callsRejected: int, successes: int, failures: int, slowCalls: int, openings: int}|null $counters
         * @throws \ValueError for a value out of its limits (a negative count or duration, failures above calls,
         *                     a remaining without until, an array of another shape)
         */
        public function __construct(
            string $service,
            \Zeusi\CircuitBreaker\State $state,
            bool $forced = false,
            ?\DateTimeImmutable $since = null,
            ?\DateTimeImmutable $until = null,
            ?float $remaining = null,
            ?float $openDuration = null,
            int $backoffLevel = 0,
            ?int $calls = null,
            ?int $failures = null,
            ?array $slowCalls = null,
            ?array $counters = null,
            ?int $callsInFlight = null,
            ?int $bulkheadRejections = null,
            ?float $rejectionRate = null,
        ) {}
    }

    /**
     * Statuses in the Prometheus text exposition format 0.0.4, for a /metrics endpoint. Rendering
     * touches no storage: it reads statuses already taken.
     */
    class PrometheusExporter
    {
        /** The Content-Type of what render() returns. */
        const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

        /**
         * @param array<string, string>|null $labels constant labels added to every sample (the host, the storage prefix):
         *                                           names match [a-zA-Z_][a-zA-Z0-9_]*, not starting with __, other than service and state
         * @param string|null $namespace the start of every metric name; null: circuit_breaker
         * @throws \ValueError for a label name or namespace the format does not allow
         * @throws \TypeError for a label value that is not a string
         */
        public function __construct(?array $labels = null, ?string $namespace = null) {}

        /**
         * One family after the other, each with its # HELP and # TYPE: circuit_breaker_state{service,state} (1 for the
         * state it is in, 0 for the two others), _forced, _state_remaining_seconds, _open_duration_seconds, and the
         * counters _calls_permitted_total, _calls_rejected_total, _successes_total, _failures_total, _slow_calls_total,
         * _openings_total. A value a status does not know (counters on Redis, the time left of a closed circuit) has no sample.
         *
         * @param iterable<CircuitStatus> $statuses from listCircuits() or breakers' getStatus()
         * @throws \TypeError for an element that is not a CircuitStatus
         */
        public function render(iterable $statuses): string {}
    }
}

namespace Zeusi\CircuitBreaker\Operations {

    /**
     * An operator's commands on a circuit named by its service, over a storage, without the
     * configuration of the breakers that use it: what bin/circuit-breaker runs. Each command is
     * CircuitBreaker's own (one compare-and-set, one CircuitForced or CircuitReset event to
     * $eventListener); what it stores lives as long as any configuration needs (a forced state:
     * through its end, a day more and the counters of the longest window). A storage that fails
     * throws a StorageException.
     */
    class CircuitControl
    {
        public function __construct(\Zeusi\CircuitBreaker\Storage\StorageInterface $storage, ?\Zeusi\CircuitBreaker\Event\EventListenerInterface $eventListener = null, ?\Zeusi\CircuitBreaker\Clock\ClockInterface $clock = null) {}

        /**
         * No call to $service permitted for $duration seconds (1 to 2592000), then closed with a fresh window.
         * @throws \Zeusi\CircuitBreaker\Exception\InvalidConfigurationException for a duration out of bounds
         * @throws \Zeusi\CircuitBreaker\Exception\StorageException when the storage fails
         */
        public function forceOpen(string $service, float $duration): void {}

        /**
         * Every call to $service permitted for $duration seconds (1 to 2592000); outcomes open nothing.
         * @throws \Zeusi\CircuitBreaker\Exception\InvalidConfigurationException for a duration out of bounds
         * @throws \Zeusi\CircuitBreaker\Exception\StorageException when the storage fails
         */
        public function forceClosed(string $service, float $duration): void {}

        /**
         * $service closed now, with a fresh window, ending any forced state and backoff.
         * @throws \Zeusi\CircuitBreaker\Exception\StorageException when the storage fails
         */
        public function reset(string $service): void {}
    }
}

namespace Zeusi\CircuitBreaker\Exception {

    /**
     * Implemented by every exception class of the extension: catch it to catch them all.
     * Misuse of the API is PHP's own TypeError, ValueError or LogicException, not covered.
     */
    interface CircuitBreakerExceptionInterface extends \Throwable
    {
    }

    class CallNotPermittedException extends \RuntimeException implements CircuitBreakerExceptionInterface
    {
        protected $reason = null;
        protected $retryAfter = null;
        protected $service = '';
        protected $state = null;

        public function getService(): string {}

        public function getState(): ?\Zeusi\CircuitBreaker\State {}

        /** Seconds until the circuit may permit calls again; null when rejected in half-open or by the bulkhead. */
        public function getRetryAfter(): ?float {}

        /** Why: open, half-open with its trials taken, or the bulkhead full; null from a breaker of your own in the closed state. */
        public function getReason(): ?\Zeusi\CircuitBreaker\RejectionReason {}
    }

    /**
     * Its code (getCode()) is the kind of the failure, one of its constants: a timeout and a full
     * shared memory segment are told apart without reading the message.
     */
    class StorageException extends \RuntimeException implements CircuitBreakerExceptionInterface
    {
        /** The storage could not be reached or worked with (a connection refused or broken, a node backing off, data another client left, removed since): the next call may work. */
        const UNAVAILABLE = 1;
        /** The storage did not answer within its timeout: the next call may work. */
        const TIMEOUT = 2;
        /** The storage has no room left (a shared memory segment for another circuit): raise its size. */
        const FULL = 3;
        /** The storage answered and refused (a server's error reply, an authentication turned down): asking again gets the same answer. */
        const REFUSED = 4;
        /** The storage cannot do this by its nature (MemcachedStorage::listCircuits()). */
        const UNSUPPORTED = 5;
        /** A storage written in PHP threw (its exception is the previous) or broke its contract. */
        const USERLAND = 6;
    }

    /** The message names the parameter, its value and its limits. */
    class InvalidConfigurationException extends \InvalidArgumentException implements CircuitBreakerExceptionInterface
    {
    }
}

namespace Zeusi\CircuitBreaker\Execution {

    use Zeusi\CircuitBreaker\CircuitBreakerInterface;
    use Zeusi\CircuitBreaker\Outcome;

    interface OutcomeClassifierInterface
    {
        /** Null registers nothing. */
        public function classifyException(\Throwable $exception): ?Outcome;

        /** Null registers nothing. */
        public function classifyResult(mixed $result): ?Outcome;
    }

    /** Without $resultClassifier, every result is a success. */
    class CallbackOutcomeClassifier implements OutcomeClassifierInterface
    {
        public function __construct(callable $exceptionClassifier, ?callable $resultClassifier = null) {}

        public function classifyException(\Throwable $exception): ?Outcome {}

        public function classifyResult(mixed $result): ?Outcome {}
    }

    /** Without a classifier, every exception is a failure and every result a success. */
    class CallExecutor
    {
        public function __construct(CircuitBreakerInterface $breaker, ?OutcomeClassifierInterface $classifier = null) {}

        /**
         * Runs $call if permitted and registers its outcome with its duration.
         * @throws \Zeusi\CircuitBreaker\Exception\CallNotPermittedException
         */
        public function execute(callable $call): mixed {}
    }

    class CallGate
    {
        public function __construct(CircuitBreakerInterface $breaker, ?OutcomeClassifierInterface $classifier = null) {}

        /** @throws \Zeusi\CircuitBreaker\Exception\CallNotPermittedException */
        public function admit(): Attempt {}
    }

    /** Registers only its first outcome. */
    class Attempt
    {
        /** Made by the breaker: calling it throws. */
        public function __construct() {}

        public function registerResult(mixed $result, ?float $duration = null): void {}

        public function registerException(\Throwable $exception, ?float $duration = null): void {}
    }
}

namespace Zeusi\CircuitBreaker\Http {
    /**
     * The HTTP guard of the process: curl and http(s) stream transfers to the
     * hosts of circuit_breaker.http_hosts and circuit_breaker.http_config,
     * admitted by their host's circuit with no code change.
     */
    class HttpGuard
    {
        /** Its methods are static: an instance has no use. */
        public function __construct() {}

        /**
         * The refusal of the last HTTP transfer refused in this request (its
         * circuit, state and retry-after), or null.
         * @return ?\Zeusi\CircuitBreaker\Exception\CallNotPermittedException
         */
        public static function lastRefusal(): mixed {}

        /** The circuit that guards requests to $url, or null when none does. */
        public static function circuitOf(string $url): ?string {}

        /** Whether HTTP guarding is on in this process. */
        public static function isEnabled(): bool {}

        /**
         * Checks the breakers file at $path as PHP's startup would read it: the
         * names of the breakers that guard, and each mistake as its warning says
         * it (a breaker that is wrong is left out, every other one guards).
         * @return array{breakers: list<string>, problems: list<string>}
         */
        public static function checkBreakersFile(string $path): array {}

        /**
         * Runs $call and returns its result (its exception goes through) with the
         * hooks standing aside, for a client middleware that counts its transfers on
         * a breaker of its own: every transfer started during the call, and every
         * later transfer of a curl handle set up during it (until curl_reset()), is
         * neither refused nor counted by the hooks.
         */
        public static function standAside(callable $call): mixed {}

        /**
         * The breaker named $name in circuit_breaker.http_config, or the one
         * that guards the URL or host:port $name, built once per worker; null
         * when there is none.
         */
        public static function breaker(string $name): ?HttpBreaker {}
    }

    /** A breaker of the HTTP guard: the circuit its hooks use. */
    class HttpBreaker implements \Zeusi\CircuitBreaker\CircuitBreakerInterface, \Zeusi\CircuitBreaker\ManualControlInterface
    {
        public function __construct() {}

        public function acquirePermission(): bool {}

        public function registerSuccess(?float $duration = null): void {}

        public function registerFailure(?float $duration = null): void {}

        public function getState(): \Zeusi\CircuitBreaker\State {}

        public function getService(): string {}

        public function forceOpen(float $duration): void {}

        public function forceClosed(float $duration): void {}

        public function reset(): void {}

        public function getStatus(): \Zeusi\CircuitBreaker\Status\CircuitStatus {}
    }
}
