<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Symfony;

use Symfony\Component\HttpClient\AsyncDecoratorTrait;
use Symfony\Component\HttpClient\Response\AsyncContext;
use Symfony\Component\HttpClient\Response\AsyncResponse;
use Symfony\Component\HttpClient\Response\ResponseStream;
use Symfony\Contracts\HttpClient\ChunkInterface;
use Symfony\Contracts\HttpClient\Exception\TransportExceptionInterface;
use Symfony\Contracts\HttpClient\HttpClientInterface;
use Symfony\Contracts\HttpClient\ResponseInterface;
use Symfony\Contracts\HttpClient\ResponseStreamInterface;
use Zeusi\CircuitBreaker\CircuitBreakerInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\Attempt;
use Zeusi\CircuitBreaker\Http\HttpGuard;
use Zeusi\CircuitBreaker\Integration\Classifier\HttpOutcomeClassifier;
use Zeusi\CircuitBreaker\Integration\Gates;
use Zeusi\CircuitBreaker\Integration\Naming;

/**
 * A Symfony HttpClient decorator (AsyncDecoratorTrait): every request goes
 * through the breaker of its name (its host:port by default, or what $nameOf
 * says).
 *
 *     $client = new CircuitBreakerHttpClient(HttpClient::create(), $breakers);
 *
 * - Responses stay lazy and concurrent: request() admits the request and
 *   starts it, nothing more; the outcome is registered when the response
 *   completes (its last chunk), fails (a transport error), or is canceled or
 *   dropped after its headers arrived (by its status; before them, nothing).
 * - Failures: transport errors and the $failureStatuses (500, 502, 503, 504
 *   by default); any other answer is a success. The duration is the
 *   response's total_time.
 * - A refused request is not sent: its response throws a CircuitOpenException
 *   (a TransportExceptionInterface) when it is read, as a refused connection
 *   does, and stream() yields one error chunk for it.
 * - With the native HTTP hooks on the same host, each transfer counts once,
 *   here: the request starts inside HttpGuard::standAside(), and curl handles
 *   set up there stay this decorator's (NativeHttpClient opens its streams
 *   later, when the response is read: see docs/integrations.md).
 */
final class CircuitBreakerHttpClient implements HttpClientInterface
{
    use AsyncDecoratorTrait {
        stream as private streamAsync;
    }

    public const FAILURE_STATUSES = [500, 502, 503, 504];

    /** @var callable(string, string, array): ?string */
    private $nameOf;
    private readonly Gates $gates;

    /**
     * @param callable(string): ?CircuitBreakerInterface $breakers the breaker of a name (a BreakerFactory;
     *        null: the requests of that name are not guarded here)
     * @param null|callable(string $method, string $url, array $options): ?string $nameOf the name of a
     *        request's breaker (null: not guarded here); by default the host:port of its URL, or of its
     *        base_uri option; a relative URL whose base URI only the decorated client knows
     *        (HttpClient::createForBaseUri()) has no name by default: give one (forService())
     * @param list<int> $failureStatuses the statuses that are failures
     */
    public function __construct(
        HttpClientInterface $client,
        callable $breakers,
        ?callable $nameOf = null,
        array $failureStatuses = self::FAILURE_STATUSES,
    ) {
        $this->client = $client;
        $this->nameOf = $nameOf ?? static fn (string $method, string $url, array $options): ?string
            => Naming::hostAndPort($url) ?? (isset($options['base_uri']) ? Naming::hostAndPort((string) $options['base_uri']) : null);
        $this->gates = new Gates($breakers, new HttpOutcomeClassifier($failureStatuses));
    }

    /** Every request through the one breaker of $service (what a client with a base URI and relative URLs needs). */
    public static function forService(HttpClientInterface $client, string $service, callable $breakers, array $failureStatuses = self::FAILURE_STATUSES): self
    {
        return new self($client, $breakers, static fn (): string => $service, $failureStatuses);
    }

    public function request(string $method, string $url, array $options = []): ResponseInterface
    {
        $gate = $this->gates->of(($this->nameOf)($method, $url, $options));
        if ($gate === null) {
            return new AsyncResponse($this->client, $method, $url, $options);
        }
        try {
            $attempt = $gate->admit();
        } catch (CallNotPermittedException $refusal) {
            return new RefusedResponse($method, $url, $options, new CircuitOpenException($url, $refusal));
        }
        $passthru = $this->passthru($attempt, hrtime(true));
        try {
            return HttpGuard::standAside(fn () => new AsyncResponse($this->client, $method, $url, $options, $passthru));
        } catch (\Throwable $exception) {
            // An invalid option (nothing sent: counts nothing), or a transport error.
            $attempt->registerException($exception);
            throw $exception;
        }
    }

    public function stream($responses, ?float $timeout = null): ResponseStreamInterface
    {
        if ($responses instanceof ResponseInterface) {
            $responses = [$responses];
        } elseif (!is_iterable($responses)) {
            throw new \TypeError(sprintf('%s() expects parameter 1 to be an iterable of responses of this client, "%s" given.', __METHOD__, get_debug_type($responses)));
        }
        $refused = $sent = [];
        foreach ($responses as $response) {
            if ($response instanceof RefusedResponse) {
                $refused[] = $response;
            } else {
                $sent[] = $response;
            }
        }
        if ($refused === []) {
            return $this->streamAsync($sent, $timeout);
        }
        return new ResponseStream((function () use ($refused, $sent, $timeout): \Generator {
            foreach ($refused as $response) {
                yield $response => new RefusedChunk($response->refusal());
            }
            if ($sent !== []) {
                yield from AsyncResponse::stream($sent, $timeout, static::class);
            }
        })());
    }

    /** What sees the chunks of an admitted response: its outcome, once. */
    private function passthru(Attempt $attempt, int $started): \Closure
    {
        $duration = static function (AsyncContext $context) use ($started): float {
            $total = $context->getInfo('total_time');
            return is_float($total) && $total > 0 ? $total : (hrtime(true) - $started) / 1e9;
        };
        return function (ChunkInterface $chunk, AsyncContext $context) use ($attempt, $duration): \Generator {
            try {
                if ($context->getInfo('canceled')) {
                    // Canceled or dropped: by its status if it came, else
                    // nothing (never waited for here).
                    if ((int) $context->getInfo('http_code') > 0) {
                        $attempt->registerResult($context->getResponse(), $duration($context));
                    }
                    yield $chunk;
                    return;
                }
                if ($chunk->isTimeout() || $chunk->getInformationalStatus() !== null) {
                    yield $chunk;
                    return;
                }
            } catch (TransportExceptionInterface $exception) {
                $attempt->registerException($exception, $duration($context));
                yield $chunk;
                return;
            }
            if ($chunk->isLast()) {
                $attempt->registerResult($context->getResponse(), $duration($context));
            }
            yield $chunk;
        };
    }

}
