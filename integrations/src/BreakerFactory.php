<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration;

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\CircuitBreakerInterface;
use Zeusi\CircuitBreaker\Clock\ClockInterface;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\Storage\StorageInterface;

/**
 * The breakers of the middlewares, one per name (a service, or a host:port),
 * each built once with the same configuration, storage and listener. Any
 * callable(string): CircuitBreakerInterface does as well: a closure over
 * Http\HttpGuard::breaker() uses the circuits of the native HTTP hooks.
 */
final class BreakerFactory
{
    /** @var array<string, CircuitBreakerInterface> */
    private array $breakers = [];

    /** @param array<string, Configuration> $configurations a configuration per name, where it differs */
    public function __construct(
        private readonly Configuration $configuration,
        private readonly StorageInterface $storage,
        private readonly ?EventListenerInterface $listener = null,
        private readonly array $configurations = [],
        private readonly ?ClockInterface $clock = null,
    ) {
    }

    public function __invoke(string $name): CircuitBreakerInterface
    {
        return $this->breakers[$name] ??= new CircuitBreaker(
            $name,
            $this->configurations[$name] ?? $this->configuration,
            $this->storage,
            $this->listener,
            $this->clock,
        );
    }
}
