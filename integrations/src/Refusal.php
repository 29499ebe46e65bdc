<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration;

use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;

/**
 * What the three refusal exceptions share: their message, and the breaker's
 * exception as their previous.
 * @internal
 */
trait Refusal
{
    public function getRefusal(): CallNotPermittedException
    {
        $previous = $this->getPrevious();
        assert($previous instanceof CallNotPermittedException);
        return $previous;
    }

    public function getService(): string
    {
        return $this->getRefusal()->getService();
    }

    public function getRetryAfter(): ?float
    {
        return $this->getRefusal()->getRetryAfter();
    }

    private static function messageOf(CallNotPermittedException $refusal, string $url): string
    {
        $retryAfter = $refusal->getRetryAfter();
        return sprintf(
            "The circuit breaker '%s' refused the request to %s: %s",
            $refusal->getService(),
            $url,
            $retryAfter === null
                ? 'it is half-open and its trial calls are under way'
                : sprintf('it is open, retry in %s s', round($retryAfter, 3)),
        );
    }
}
