<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Guzzle;

use GuzzleHttp\Exception\ConnectException;
use Psr\Http\Message\RequestInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Integration\Refusal;
use Zeusi\CircuitBreaker\Integration\RefusalInterface;

/**
 * A request the circuit refused, as Guzzle's ConnectException: Guzzle's retry
 * middleware and the catch blocks an application has treat it as a
 * connection failure. Nothing was sent. Its handler context holds the
 * circuit ('circuit_breaker') and the retry-after ('retry_after', seconds or
 * null).
 */
final class CircuitOpenException extends ConnectException implements RefusalInterface
{
    use Refusal;

    public function __construct(RequestInterface $request, CallNotPermittedException $refusal)
    {
        parent::__construct(
            self::messageOf($refusal, (string) $request->getUri()),
            $request,
            $refusal,
            ['circuit_breaker' => $refusal->getService(), 'retry_after' => $refusal->getRetryAfter()],
        );
    }
}
