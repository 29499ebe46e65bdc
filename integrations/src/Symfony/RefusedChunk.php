<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Symfony;

use Symfony\Contracts\HttpClient\ChunkInterface;

/**
 * The one chunk stream() yields for a refused response: an error chunk, whose
 * methods throw the refusal, as a transport error's chunk does.
 * @internal
 */
final class RefusedChunk implements ChunkInterface
{
    public function __construct(private readonly CircuitOpenException $refusal)
    {
    }

    public function isTimeout(): bool
    {
        throw $this->refusal;
    }

    public function isFirst(): bool
    {
        throw $this->refusal;
    }

    public function isLast(): bool
    {
        throw $this->refusal;
    }

    public function getInformationalStatus(): ?array
    {
        return null;
    }

    public function getContent(): string
    {
        throw $this->refusal;
    }

    public function getOffset(): int
    {
        return 0;
    }

    public function getError(): ?string
    {
        return $this->refusal->getMessage();
    }
}
