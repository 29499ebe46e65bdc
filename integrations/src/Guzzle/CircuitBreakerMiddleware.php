<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Guzzle;

use GuzzleHttp\Promise\Create;
use GuzzleHttp\Promise\PromiseInterface;
use GuzzleHttp\TransferStats;
use Psr\Http\Message\RequestInterface;
use Zeusi\CircuitBreaker\CircuitBreakerInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Http\HttpGuard;
use Zeusi\CircuitBreaker\Integration\Classifier\HttpOutcomeClassifier;
use Zeusi\CircuitBreaker\Integration\Gates;
use Zeusi\CircuitBreaker\Integration\Naming;

/**
 * A Guzzle 7 middleware: every request goes through the breaker of its name
 * (its host:port by default, or what $nameOf says: a service name).
 *
 *     $stack = HandlerStack::create();
 *     $stack->push(new CircuitBreakerMiddleware($breakers), 'circuit_breaker');
 *     $client = new Client(['handler' => $stack]);
 *
 * - A refused request is not sent: its promise is rejected with a
 *   CircuitOpenException, a ConnectException whose previous is the
 *   CallNotPermittedException (with its retry-after).
 * - Failures: transport errors (a ConnectException, a RequestException
 *   without response) and the $failureStatuses (500, 502, 503, 504 by
 *   default), whether http_errors made them a ServerException or not; any
 *   other answer is a success. An exception thrown before anything was sent
 *   counts nothing.
 * - Durations: the transfer time of Guzzle's stats (on_stats, which the
 *   application's own on_stats still receives), or the time until the
 *   promise settles with a handler that gives no stats.
 * - Sync and async (requestAsync(), Pool) alike: the outcome is registered
 *   when the promise settles.
 * - With the native HTTP hooks on the same host, each transfer counts once,
 *   here: the handler runs inside HttpGuard::standAside().
 */
final class CircuitBreakerMiddleware
{
    /** The statuses that are failures by default, as the native HTTP hooks count them. */
    public const FAILURE_STATUSES = [500, 502, 503, 504];

    /** @var callable(RequestInterface, array): ?string */
    private $nameOf;
    private readonly Gates $gates;

    /**
     * @param callable(string): ?CircuitBreakerInterface $breakers the breaker of a name (a BreakerFactory;
     *        null: the requests of that name are not guarded here)
     * @param null|callable(RequestInterface, array): ?string $nameOf the name of a request's breaker
     *        (null: not guarded here); its host:port by default
     * @param list<int> $failureStatuses the statuses that are failures
     */
    public function __construct(callable $breakers, ?callable $nameOf = null, array $failureStatuses = self::FAILURE_STATUSES)
    {
        $this->nameOf = $nameOf ?? static fn (RequestInterface $request): ?string => Naming::hostAndPort($request->getUri());
        $this->gates = new Gates($breakers, new HttpOutcomeClassifier($failureStatuses));
    }

    /** Every request through the one breaker of $service. */
    public static function forService(string $service, callable $breakers, array $failureStatuses = self::FAILURE_STATUSES): self
    {
        return new self($breakers, static fn (): string => $service, $failureStatuses);
    }

    public function __invoke(callable $handler): callable
    {
        return function (RequestInterface $request, array $options) use ($handler): PromiseInterface {
            $gate = $this->gates->of(($this->nameOf)($request, $options));
            if ($gate === null) {
                return $handler($request, $options);
            }
            try {
                $attempt = $gate->admit();
            } catch (CallNotPermittedException $refusal) {
                return Create::rejectionFor(new CircuitOpenException($request, $refusal));
            }
            $started = hrtime(true);
            $stats = null;
            $theirs = $options['on_stats'] ?? null;
            $options['on_stats'] = static function (TransferStats $transfer) use (&$stats, $theirs): void {
                $stats = $transfer;
                if ($theirs !== null) {
                    $theirs($transfer);
                }
            };
            $duration = static function () use (&$stats, $started): float {
                return $stats?->getTransferTime() ?? (hrtime(true) - $started) / 1e9;
            };
            try {
                $promise = HttpGuard::standAside(static fn () => $handler($request, $options));
            } catch (\Throwable $exception) {
                $attempt->registerException($exception, $duration());
                throw $exception;
            }
            return $promise->then(
                static function ($response) use ($attempt, $duration) {
                    $attempt->registerResult($response, $duration());
                    return $response;
                },
                static function ($reason) use ($attempt, $duration) {
                    if ($reason instanceof \Throwable) {
                        $attempt->registerException($reason, $duration());
                    }
                    return Create::rejectionFor($reason);
                },
            );
        };
    }

}
