<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Psr15;

use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\ManualControlInterface;
use Zeusi\CircuitBreaker\State;

/**
 * FailFast for routes: a PSR-15 middleware that answers 503 Service
 * Unavailable, with Retry-After, while a breaker of a service the route needs
 * is open, before the route does any work.
 *
 *     $route->add(new FailFastMiddleware([$payments, $stock], $responseFactory));
 *
 * It only reads the breakers' status (getStatus(): nothing acquired, nothing
 * counted); the route's own calls still go through their breakers.
 * - any circuit open (or forced open): 503, Retry-After the longest open
 *   remainder among them in whole seconds, rounded up, at least 1;
 * - all closed or half-open: the request goes through (a half-open circuit
 *   may take the route's call as a trial);
 * - a storage that fails (StorageException): the request goes through, as
 *   the breaker itself fails open.
 *
 * Needs psr/http-server-middleware (not a requirement of this package).
 */
final class FailFastMiddleware implements MiddlewareInterface
{
    /** @param list<ManualControlInterface> $breakers the breakers of the services the route needs */
    public function __construct(
        private readonly array $breakers,
        private readonly ResponseFactoryInterface $responses,
    ) {
        foreach ($breakers as $breaker) {
            if (!$breaker instanceof ManualControlInterface) {
                throw new \TypeError(sprintf('%s(): each breaker must be a %s, %s given', __METHOD__, ManualControlInterface::class, get_debug_type($breaker)));
            }
        }
    }

    public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
    {
        $retryAfter = $this->secondsUntilAllMayPass();
        if ($retryAfter === null) {
            return $handler->handle($request);
        }
        return $this->responses->createResponse(503)
            ->withHeader('Retry-After', (string) $retryAfter);
    }

    /**
     * Whole seconds (rounded up, at least 1) until every open circuit of the
     * route may let a call through: the longest open remainder. Null when
     * none is open.
     */
    private function secondsUntilAllMayPass(): ?int
    {
        $longest = null;
        foreach ($this->breakers as $breaker) {
            try {
                $status = $breaker->getStatus();
            } catch (StorageException) {
                continue;
            }
            if ($status->state === State::Open) {
                $longest = max($longest ?? 0.0, $status->remaining ?? 0.0);
            }
        }
        return $longest === null ? null : max(1, (int) ceil($longest));
    }
}
