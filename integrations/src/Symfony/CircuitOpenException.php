<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Symfony;

use Symfony\Component\HttpClient\Exception\TransportException;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Integration\Refusal;
use Zeusi\CircuitBreaker\Integration\RefusalInterface;

/**
 * A request the circuit refused, as Symfony HttpClient's TransportException
 * (a TransportExceptionInterface, as a refused connection is). Nothing was
 * sent; its previous is the CallNotPermittedException.
 */
final class CircuitOpenException extends TransportException implements RefusalInterface
{
    use Refusal;

    public function __construct(string $url, CallNotPermittedException $refusal)
    {
        parent::__construct(self::messageOf($refusal, $url), 0, $refusal);
    }
}
