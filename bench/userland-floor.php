<?php
// The floor of a breaker built per request (issue 22, row 1): the five
// objects of the `per-request` scenario and its protected call, written in
// PHP and doing nothing. Each class has the extension's constructor
// signature, its parameters promoted to readonly properties; nothing is
// validated, interned or stored, and the call returns at once. What a
// request spends on these is what PHP itself spends on the seed's usage:
// five `new` with named arguments, an array, two method calls, five frees.
// Measured beside the extension in the same runs (bench/callgrind.sh
// `per-request-userland`, bench/fpm-request.sh `userland.php`, and
// bench/protected-call.php). Declarations only, so that bench/fpm-request.sh
// can put them at the top of a script of its own.
namespace Bench\Userland;

final class FailureRateRule
{
    public function __construct(public readonly float $threshold, public readonly int $minimumRequests)
    {
    }
}

final class RampPolicy
{
    public function __construct(public readonly float $duration, public readonly float $initialRatio)
    {
    }

    public static function createExponential(float $duration, float $initialRatio): self
    {
        return new self($duration, $initialRatio);
    }
}

final class Configuration
{
    public function __construct(
        public readonly float $timeWindow,
        public readonly array $openingRules,
        public readonly float $openDuration,
        public readonly RampPolicy $halfOpenPolicy,
        public readonly ?float $maxOpenDuration = null,
        public readonly ?int $maxConcurrentCalls = null,
    ) {
    }
}

final class SharedMemoryStorage
{
    public function __construct(public readonly string $prefix = '')
    {
    }
}

final class CircuitBreaker
{
    public function __construct(
        public readonly string $service,
        public readonly Configuration $configuration,
        public readonly SharedMemoryStorage $storage,
    ) {
    }

    public function acquirePermission(): bool
    {
        return true;
    }

    public function registerSuccess(?float $duration = null): void
    {
    }
}
