<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Classifier;

use GuzzleHttp\Exception\InvalidArgumentException as GuzzleInvalidArgument;
use GuzzleHttp\Exception\RequestException as GuzzleRequestException;
use GuzzleHttp\Exception\TransferException as GuzzleTransferException;
use Psr\Http\Client\NetworkExceptionInterface;
use Psr\Http\Client\RequestExceptionInterface;
use Psr\Http\Message\ResponseInterface as Psr7Response;
use Symfony\Component\HttpClient\Exception\InvalidArgumentException as SymfonyInvalidArgument;
use Symfony\Contracts\HttpClient\Exception\DecodingExceptionInterface;
use Symfony\Contracts\HttpClient\Exception\HttpExceptionInterface;
use Symfony\Contracts\HttpClient\Exception\TransportExceptionInterface;
use Symfony\Contracts\HttpClient\ResponseInterface as SymfonyResponse;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\OutcomeClassifierInterface;
use Zeusi\CircuitBreaker\Integration\RefusalInterface;
use Zeusi\CircuitBreaker\Outcome;

/**
 * The outcome of an HTTP call, for CallExecutor, CallGate and the middlewares:
 * the service failed when it did not answer (a transport error: refused,
 * reset, timed out, DNS, TLS) or answered with a failure status (every 5xx by
 * default); any other answer, a 4xx included, is a success (the caller's
 * mistake, not the service's).
 *
 * Results: a PSR-7 response or a Symfony HttpClient response, by its status
 * (a Symfony response is waited for until its headers; one that fails is a
 * failure); any other result is a success.
 *
 * Exceptions:
 * - a refusal (CallNotPermittedException, or a RefusalInterface of these
 *   middlewares): nothing, the call never left;
 * - Guzzle: an exception with a response (ServerException, ClientException,
 *   TooManyRedirectsException) by its status; any other TransferException
 *   (ConnectException, a RequestException without response) is a failure;
 *   InvalidArgumentException (a request never sent) nothing;
 * - Symfony HttpClient: HttpExceptionInterface (ServerException, ClientException,
 *   RedirectionException) by its status; InvalidArgumentException (a request
 *   never sent) nothing; DecodingExceptionInterface (toArray() of a body
 *   that is no JSON) a success, as the service answered; any other
 *   TransportExceptionInterface a failure;
 * - PSR-18: NetworkExceptionInterface a failure, RequestExceptionInterface
 *   (a request the client cannot send) nothing;
 * - anything else: $otherExceptions (a failure by default, as CallExecutor
 *   without a classifier counts it).
 *
 * No class of Guzzle, Symfony or PSR-18 needs to be loaded: instanceof on a
 * class that does not exist is false.
 */
final class HttpOutcomeClassifier implements OutcomeClassifierInterface
{
    /** @var array<int, true>|null null: every status from 500 to 599 */
    private readonly ?array $failureStatuses;

    /**
     * @param list<int>|null $failureStatuses the statuses that are failures; null: every 5xx (500 to 599)
     * @param Outcome|null $otherExceptions what an exception that is none of the above counts as (null: nothing)
     */
    public function __construct(
        ?array $failureStatuses = null,
        private readonly ?Outcome $otherExceptions = Outcome::Failure,
    ) {
        $this->failureStatuses = $failureStatuses === null ? null : array_fill_keys($failureStatuses, true);
    }

    /** The outcome of an answer with $status. */
    public function classifyStatus(int $status): Outcome
    {
        $failed = $this->failureStatuses === null ? $status >= 500 && $status <= 599 : isset($this->failureStatuses[$status]);
        return $failed ? Outcome::Failure : Outcome::Success;
    }

    public function classifyResult(mixed $result): ?Outcome
    {
        if ($result instanceof Psr7Response) {
            return $this->classifyStatus($result->getStatusCode());
        }
        if ($result instanceof SymfonyResponse) {
            return $this->classifySymfonyResponse($result);
        }
        return Outcome::Success;
    }

    public function classifyException(\Throwable $exception): ?Outcome
    {
        if ($exception instanceof CallNotPermittedException || $exception instanceof RefusalInterface) {
            return null;
        }
        if ($exception instanceof GuzzleRequestException && $exception->getResponse() !== null) {
            return $this->classifyStatus($exception->getResponse()->getStatusCode());
        }
        if ($exception instanceof GuzzleTransferException) {
            return Outcome::Failure;
        }
        if ($exception instanceof GuzzleInvalidArgument) {
            return null;
        }
        if ($exception instanceof HttpExceptionInterface) {
            return $this->classifyStatus((int) $exception->getResponse()->getInfo('http_code'));
        }
        if ($exception instanceof SymfonyInvalidArgument) {
            return null;
        }
        if ($exception instanceof DecodingExceptionInterface) {
            return Outcome::Success;
        }
        if ($exception instanceof TransportExceptionInterface || $exception instanceof NetworkExceptionInterface) {
            return Outcome::Failure;
        }
        if ($exception instanceof RequestExceptionInterface) {
            return null;
        }
        return $this->otherExceptions;
    }

    /**
     * A Symfony response by its status: read from its info once it arrived
     * (a response completed, or canceled after its headers), or waited for.
     * A transport error is a failure; a response canceled before its headers
     * tells nothing.
     */
    public function classifySymfonyResponse(SymfonyResponse $response): ?Outcome
    {
        $status = (int) $response->getInfo('http_code');
        if ($status > 0) {
            return $this->classifyStatus($status);
        }
        if ($response->getInfo('canceled')) {
            return null;
        }
        try {
            return $this->classifyStatus($response->getStatusCode());
        } catch (TransportExceptionInterface $exception) {
            return $this->classifyException($exception);
        }
    }
}
