<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration;

use Zeusi\CircuitBreaker\CircuitBreakerInterface;
use Zeusi\CircuitBreaker\Execution\CallGate;
use Zeusi\CircuitBreaker\Integration\Classifier\HttpOutcomeClassifier;

/**
 * The gate of each breaker name a client decorator met, made once: the
 * breaker the decorator's callable gives for the name, or none (null: the
 * requests of that name are not guarded by the decorator).
 * @internal
 */
final class Gates
{
    /** @var callable(string): ?CircuitBreakerInterface */
    private $breakers;
    /** @var array<string, ?CallGate> */
    private array $gates = [];

    /** @param callable(string): ?CircuitBreakerInterface $breakers */
    public function __construct(callable $breakers, private readonly HttpOutcomeClassifier $classifier)
    {
        $this->breakers = $breakers;
    }

    /** The gate of the requests named $name; null for none (or for a null name). */
    public function of(?string $name): ?CallGate
    {
        if ($name === null) {
            return null;
        }
        if (!array_key_exists($name, $this->gates)) {
            $breaker = ($this->breakers)($name);
            $this->gates[$name] = $breaker === null ? null : new CallGate($breaker, $this->classifier);
        }
        return $this->gates[$name];
    }
}
