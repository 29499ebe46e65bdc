<?php
// The few PSR-7, PSR-15 and PSR-17 interfaces FailFastMiddleware uses,
// declared only when the real packages are not installed: enough to run
// the example and its test without Composer. With the packages installed,
// these declarations are skipped and the real interfaces are used.

namespace Psr\Http\Message {
    if (!interface_exists(ResponseInterface::class)) {
        interface MessageInterface
        {
            public function getHeaderLine(string $name): string;

            public function withHeader(string $name, $value): static;
        }

        interface ResponseInterface extends MessageInterface
        {
            public function getStatusCode(): int;
        }

        interface ServerRequestInterface extends MessageInterface
        {
        }

        interface ResponseFactoryInterface
        {
            public function createResponse(int $code = 200, string $reasonPhrase = ''): ResponseInterface;
        }
    }
}

namespace Psr\Http\Server {
    use Psr\Http\Message\ResponseInterface;
    use Psr\Http\Message\ServerRequestInterface;

    if (!interface_exists(MiddlewareInterface::class)) {
        interface RequestHandlerInterface
        {
            public function handle(ServerRequestInterface $request): ResponseInterface;
        }

        interface MiddlewareInterface
        {
            public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface;
        }
    }
}
