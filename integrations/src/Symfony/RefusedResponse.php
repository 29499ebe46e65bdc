<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Symfony;

use Symfony\Contracts\HttpClient\ResponseInterface;

/**
 * The response of a refused request: nothing was sent, and, as for a
 * connection refused, its status, headers and content throw the refusal
 * (a CircuitOpenException) when they are read, not request().
 * @internal made by CircuitBreakerHttpClient
 */
final class RefusedResponse implements ResponseInterface
{
    private array $info;

    public function __construct(string $method, string $url, array $options, private readonly CircuitOpenException $refusal)
    {
        $this->info = [
            'canceled' => false,
            'error' => $refusal->getMessage(),
            'http_code' => 0,
            'http_method' => $method,
            'redirect_count' => 0,
            'redirect_url' => null,
            'response_headers' => [],
            'start_time' => microtime(true),
            'url' => $url,
            'user_data' => $options['user_data'] ?? null,
        ];
    }

    public function refusal(): CircuitOpenException
    {
        return $this->refusal;
    }

    public function getStatusCode(): int
    {
        throw $this->refusal;
    }

    public function getHeaders(bool $throw = true): array
    {
        throw $this->refusal;
    }

    public function getContent(bool $throw = true): string
    {
        throw $this->refusal;
    }

    public function toArray(bool $throw = true): array
    {
        throw $this->refusal;
    }

    public function cancel(): void
    {
        $this->info['canceled'] = true;
    }

    public function getInfo(?string $type = null)
    {
        return $type === null ? $this->info : ($this->info[$type] ?? null);
    }
}
