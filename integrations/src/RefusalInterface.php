<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration;

use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;

/**
 * A request refused by an open circuit, as each client's own exception type
 * (a Guzzle ConnectException, a Symfony TransportExceptionInterface, a PSR-18
 * NetworkExceptionInterface): the breaker's CallNotPermittedException is its
 * getPrevious().
 */
interface RefusalInterface extends \Throwable
{
    /** The breaker's refusal. */
    public function getRefusal(): CallNotPermittedException;

    /** The circuit that refused. */
    public function getService(): string;

    /** Seconds until the circuit may permit calls again; null when refused in half-open. */
    public function getRetryAfter(): ?float;
}
