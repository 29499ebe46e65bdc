--TEST--
RedisStorage and MemcachedStorage take $prefix and $timeout as PHP takes a string and a float (coerced outside strict_types, the engine's TypeError otherwise), and their listCircuits() $prefix too; nothing connects
--EXTENSIONS--
circuit_breaker
--FILE--
<?php
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

function attempt(callable $make): void
{
    try {
        $made = $make();
        echo 'made ', get_class($made), "\n";
    } catch (\Throwable $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}

// Port 1 on loopback: nothing listens, and nothing is asked at construction.
attempt(fn () => new RedisStorage('redis://127.0.0.1:1', 'app:', 'fast'));
attempt(fn () => new RedisStorage('redis://127.0.0.1:1', [], 0.05));
attempt(fn () => new RedisStorage('redis://127.0.0.1:1', 42, '0.2'));
attempt(fn () => new RedisStorage(timeout: new stdClass()));
attempt(fn () => new MemcachedStorage('127.0.0.1:1', 'app:', 'fast'));
attempt(fn () => new MemcachedStorage('127.0.0.1:1', ['app:']));
attempt(fn () => new MemcachedStorage('127.0.0.1:1', 7, 1));
// Coerced values are checked against the limits like any other.
attempt(fn () => new RedisStorage('redis://127.0.0.1:1', '', '90'));
attempt(fn () => (new MemcachedStorage('127.0.0.1:1'))->listCircuits([]));
--EXPECT--
TypeError: Zeusi\CircuitBreaker\Storage\RedisStorage::__construct(): Argument #3 ($timeout) must be of type float, string given
TypeError: Zeusi\CircuitBreaker\Storage\RedisStorage::__construct(): Argument #2 ($prefix) must be of type string, array given
made Zeusi\CircuitBreaker\Storage\RedisStorage
TypeError: Zeusi\CircuitBreaker\Storage\RedisStorage::__construct(): Argument #3 ($timeout) must be of type float, stdClass given
TypeError: Zeusi\CircuitBreaker\Storage\MemcachedStorage::__construct(): Argument #3 ($timeout) must be of type float, string given
TypeError: Zeusi\CircuitBreaker\Storage\MemcachedStorage::__construct(): Argument #2 ($prefix) must be of type string, array given
made Zeusi\CircuitBreaker\Storage\MemcachedStorage
Zeusi\CircuitBreaker\Exception\InvalidConfigurationException: Invalid timeout: 90 given, expected 0.001 to 60 seconds
TypeError: Zeusi\CircuitBreaker\Storage\MemcachedStorage::listCircuits(): Argument #1 ($prefix) must be of type string, array given
