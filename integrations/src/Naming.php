<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration;

use Psr\Http\Message\UriInterface;

/**
 * The default name of a request's breaker: its host and port, as the native
 * HTTP hooks name their circuits ("api.example.com:443", "127.0.0.1:8080").
 */
final class Naming
{
    /** The host:port of $uri (an absolute URL); null when it has no host. */
    public static function hostAndPort(UriInterface|string $uri): ?string
    {
        if ($uri instanceof UriInterface) {
            [$scheme, $host, $port] = [$uri->getScheme(), $uri->getHost(), $uri->getPort()];
        } else {
            $parts = parse_url($uri);
            if ($parts === false) {
                return null;
            }
            [$scheme, $host, $port] = [$parts['scheme'] ?? '', $parts['host'] ?? '', $parts['port'] ?? null];
        }
        if ($host === '') {
            return null;
        }
        $port ??= strtolower($scheme) === 'https' ? 443 : 80;
        return strtolower($host) . ':' . $port;
    }
}
