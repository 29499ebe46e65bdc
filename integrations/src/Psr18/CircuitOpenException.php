<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Psr18;

use Psr\Http\Client\NetworkExceptionInterface;
use Psr\Http\Message\RequestInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Integration\Refusal;
use Zeusi\CircuitBreaker\Integration\RefusalInterface;

/**
 * A request the circuit refused, as PSR-18's NetworkExceptionInterface (the
 * request could not be completed: no response was received). Nothing was
 * sent; its previous is the CallNotPermittedException.
 */
final class CircuitOpenException extends \RuntimeException implements NetworkExceptionInterface, RefusalInterface
{
    use Refusal;

    public function __construct(private readonly RequestInterface $request, CallNotPermittedException $refusal)
    {
        parent::__construct(self::messageOf($refusal, (string) $request->getUri()), 0, $refusal);
    }

    public function getRequest(): RequestInterface
    {
        return $this->request;
    }
}
