<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Psr18;

use Psr\Http\Client\ClientInterface;
use Psr\Http\Message\RequestInterface;
use Psr\Http\Message\ResponseInterface;
use Zeusi\CircuitBreaker\CircuitBreakerInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Http\HttpGuard;
use Zeusi\CircuitBreaker\Integration\Classifier\HttpOutcomeClassifier;
use Zeusi\CircuitBreaker\Integration\Gates;
use Zeusi\CircuitBreaker\Integration\Naming;

/**
 * A PSR-18 client decorator: every request goes through the breaker of its
 * name (its host:port by default, or what $nameOf says).
 *
 *     $client = new CircuitBreakerClient($psr18Client, $breakers);
 *
 * - A refused request is not sent: CircuitOpenException, a
 *   NetworkExceptionInterface whose previous is the CallNotPermittedException.
 * - Failures: a NetworkExceptionInterface (and Guzzle's transfer errors) and
 *   the $failureStatuses (500, 502, 503, 504 by default); any other response
 *   is a success; a RequestExceptionInterface (a request the client cannot
 *   send) counts nothing. The duration is that of sendRequest().
 * - With the native HTTP hooks on the same host, each transfer counts once,
 *   here (HttpGuard::standAside()).
 */
final class CircuitBreakerClient implements ClientInterface
{
    public const FAILURE_STATUSES = [500, 502, 503, 504];

    /** @var callable(RequestInterface): ?string */
    private $nameOf;
    private readonly Gates $gates;

    /**
     * @param callable(string): ?CircuitBreakerInterface $breakers the breaker of a name (a BreakerFactory;
     *        null: the requests of that name are not guarded here)
     * @param null|callable(RequestInterface): ?string $nameOf the name of a request's breaker (null: not
     *        guarded here); its host:port by default
     * @param list<int> $failureStatuses the statuses that are failures
     */
    public function __construct(
        private readonly ClientInterface $client,
        callable $breakers,
        ?callable $nameOf = null,
        array $failureStatuses = self::FAILURE_STATUSES,
    ) {
        $this->nameOf = $nameOf ?? static fn (RequestInterface $request): ?string => Naming::hostAndPort($request->getUri());
        $this->gates = new Gates($breakers, new HttpOutcomeClassifier($failureStatuses));
    }

    /** Every request through the one breaker of $service. */
    public static function forService(ClientInterface $client, string $service, callable $breakers, array $failureStatuses = self::FAILURE_STATUSES): self
    {
        return new self($client, $breakers, static fn (): string => $service, $failureStatuses);
    }

    public function sendRequest(RequestInterface $request): ResponseInterface
    {
        $gate = $this->gates->of(($this->nameOf)($request));
        if ($gate === null) {
            return $this->client->sendRequest($request);
        }
        try {
            $attempt = $gate->admit();
        } catch (CallNotPermittedException $refusal) {
            throw new CircuitOpenException($request, $refusal);
        }
        $started = hrtime(true);
        try {
            $response = HttpGuard::standAside(fn () => $this->client->sendRequest($request));
        } catch (\Throwable $exception) {
            $attempt->registerException($exception, (hrtime(true) - $started) / 1e9);
            throw $exception;
        }
        $attempt->registerResult($response, (hrtime(true) - $started) / 1e9);
        return $response;
    }

}
