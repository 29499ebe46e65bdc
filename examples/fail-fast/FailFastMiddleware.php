<?php
// FailFast for routes: a PSR-15 middleware that answers 503 Service
// Unavailable, with Retry-After, while a service the route needs is open,
// before the route does any work. It only reads the breakers' status
// (getStatus(): no permission acquired, nothing counted); the route's own
// calls still go through their breakers as usual.
//
// Needs psr/http-server-middleware and psr/http-factory (or, without them,
// psr-stand-ins.php next to this file, as the test does).
//
// The companion package ships it as
// Zeusi\CircuitBreaker\Integration\Psr15\FailFastMiddleware, tested against
// real PSR-7 messages (docs/integrations.md).

declare(strict_types=1);

namespace Example\FailFast;

use Psr\Http\Message\ResponseFactoryInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\ManualControlInterface;
use Zeusi\CircuitBreaker\State;

final class FailFastMiddleware implements MiddlewareInterface
{
    /** @param list<ManualControlInterface> $breakers the breakers of the services the route needs */
    public function __construct(
        private readonly array $breakers,
        private readonly ResponseFactoryInterface $responses,
    ) {
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
     * none is open: closed and half-open circuits let the request through
     * (a half-open one may take the route's call as a candidate trial).
     */
    private function secondsUntilAllMayPass(): ?int
    {
        $longest = null;
        foreach ($this->breakers as $breaker) {
            try {
                $status = $breaker->getStatus();
            } catch (StorageException) {
                continue; // a storage that fails never fails the route: the breaker fails open too
            }
            if ($status->state === State::Open) {
                $longest = max($longest ?? 0.0, $status->remaining ?? 0.0);
            }
        }
        return $longest === null ? null : max(1, (int) ceil($longest));
    }
}
