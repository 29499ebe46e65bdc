<?php

declare(strict_types=1);

namespace Zeusi\CircuitBreaker\Integration\Log;

use Psr\Log\LoggerInterface;
use Psr\Log\LogLevel;
use Zeusi\CircuitBreaker\Event\CallRejected;
use Zeusi\CircuitBreaker\Event\CircuitClosed;
use Zeusi\CircuitBreaker\Event\CircuitForced;
use Zeusi\CircuitBreaker\Event\CircuitHalfOpened;
use Zeusi\CircuitBreaker\Event\CircuitOpened;
use Zeusi\CircuitBreaker\Event\CircuitReset;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Event\StorageRecovered;
use Zeusi\CircuitBreaker\State;

/**
 * The breakers' events in a PSR-3 log, each line naming its circuit, with
 * the event's details in the context (service, event, and per event
 * previous_state, open_duration, rule, matching, evaluated, duration,
 * exception, rejected):
 *
 * | event              | level   |
 * |--------------------|---------|
 * | CircuitOpened      | warning |
 * | CircuitHalfOpened  | info    |
 * | CircuitClosed      | notice  |
 * | CircuitForced      | warning (open), notice (closed) |
 * | CircuitReset       | notice  |
 * | StorageFailed      | error   |
 * | StorageRecovered   | notice  |
 * | rejected calls     | notice, counted |
 *
 * Rejected calls are never logged one by one: they are counted per circuit,
 * and the count is logged at most once per $rejectionInterval seconds of the
 * breaker's clock, on the first rejection after the interval, and given with
 * the circuit's next transition ("half-open: trial calls go through; 153
 * calls were rejected"). A null interval logs counts only with transitions.
 * Override a level with $levels (keys: opened, half_opened, closed,
 * forced_open, forced_closed, reset, storage_failed, storage_recovered,
 * rejected).
 */
final class LoggingEventListener implements EventListenerInterface
{
    private const LEVELS = [
        'opened' => LogLevel::WARNING,
        'half_opened' => LogLevel::INFO,
        'closed' => LogLevel::NOTICE,
        'forced_open' => LogLevel::WARNING,
        'forced_closed' => LogLevel::NOTICE,
        'reset' => LogLevel::NOTICE,
        'storage_failed' => LogLevel::ERROR,
        'storage_recovered' => LogLevel::NOTICE,
        'rejected' => LogLevel::NOTICE,
    ];

    /** @var array<string, string> */
    private readonly array $levels;
    /** @var array<string, array{count: int, since: float}> rejections not logged yet, per circuit */
    private array $rejections = [];

    /**
     * @param float|null $rejectionInterval seconds between two counts of rejections of one circuit; null: only with transitions
     * @param array<string, string> $levels PSR-3 levels by event, over the defaults
     */
    public function __construct(
        private readonly LoggerInterface $logger,
        private readonly ?float $rejectionInterval = 60.0,
        array $levels = [],
    ) {
        if ($rejectionInterval !== null && !($rejectionInterval > 0)) {
            throw new \InvalidArgumentException("the rejection interval must be positive seconds or null, $rejectionInterval given");
        }
        $unknown = array_diff_key($levels, self::LEVELS);
        if ($unknown !== []) {
            throw new \InvalidArgumentException('unknown event in the levels: ' . implode(', ', array_keys($unknown)));
        }
        $this->levels = $levels + self::LEVELS;
    }

    public function handleEvent(EventInterface $event): void
    {
        $service = $event->getService();
        $class = $event::class;
        $context = ['service' => $service, 'event' => substr($class, strrpos($class, '\\') + 1)];
        if ($event instanceof CallRejected) {
            $this->countRejection($service, $event->getTime(), $context);
            return;
        }
        [$key, $message] = match (true) {
            $event instanceof CircuitOpened => ['opened', $this->opened($event, $context)],
            $event instanceof CircuitHalfOpened => ['half_opened', "Circuit breaker '$service' is half-open: trial calls go through"],
            $event instanceof CircuitClosed => ['closed', "Circuit breaker '$service' closed"],
            $event instanceof CircuitForced => $this->forced($event, $context),
            $event instanceof CircuitReset => ['reset', "Circuit breaker '$service' was reset: closed"],
            $event instanceof StorageFailed => ['storage_failed', $this->storageFailed($event, $context)],
            $event instanceof StorageRecovered => ['storage_recovered', "The storage of circuit breaker '$service' works again"],
            default => [null, null],
        };
        if ($key === null) {
            return;
        }
        if ($key !== 'storage_failed' && $key !== 'storage_recovered' && isset($this->rejections[$service])) {
            $count = $this->rejections[$service]['count'];
            unset($this->rejections[$service]);
            $context['rejected'] = $count;
            $message .= sprintf('; %d %s rejected', $count, $count === 1 ? 'call was' : 'calls were');
        }
        $this->logger->log($this->levels[$key], $message, $context);
    }

    private function countRejection(string $service, float $now, array $context): void
    {
        $pending = $this->rejections[$service] ?? ['count' => 0, 'since' => $now];
        $pending['count']++;
        if ($this->rejectionInterval === null || $now - $pending['since'] < $this->rejectionInterval) {
            $this->rejections[$service] = $pending;
            return;
        }
        unset($this->rejections[$service]);
        $seconds = $now - $pending['since'];
        $this->logger->log(
            $this->levels['rejected'],
            sprintf("Circuit breaker '%s' rejected %d %s in the last %s s", $service, $pending['count'], $pending['count'] === 1 ? 'call' : 'calls', round($seconds, 1)),
            $context + ['rejected' => $pending['count'], 'seconds' => $seconds],
        );
    }

    private function opened(CircuitOpened $event, array &$context): string
    {
        $cause = $event->openingCause;
        $rule = (new \ReflectionClass($cause->openingRule))->getShortName();
        $context += [
            'previous_state' => $event->previousState->value,
            'open_duration' => $event->openDuration,
            'rule' => $rule,
            'matching' => $cause->matchingOutcomes,
            'evaluated' => $cause->evaluatedOutcomes,
        ];
        $after = $event->previousState === State::HalfOpen ? ' again, its trial failed' : '';
        return sprintf(
            "Circuit breaker '%s' opened%s: %d of %d calls matched its %s; open for %s s",
            $event->getService(),
            $after,
            $cause->matchingOutcomes,
            $cause->evaluatedOutcomes,
            $rule,
            round($event->openDuration, 3),
        );
    }

    /** @return array{string, string} */
    private function forced(CircuitForced $event, array &$context): array
    {
        $open = $event->state === State::Open;
        $context += ['state' => $event->state->value, 'duration' => $event->duration];
        return [
            $open ? 'forced_open' : 'forced_closed',
            sprintf("Circuit breaker '%s' forced %s for %s s", $event->getService(), $open ? 'open' : 'closed', round($event->duration, 3)),
        ];
    }

    private function storageFailed(StorageFailed $event, array &$context): string
    {
        $context['exception'] = $event->exception;
        return sprintf(
            "The storage of circuit breaker '%s' failed, its calls go through (fail open): %s",
            $event->getService(),
            $event->exception->getMessage(),
        );
    }
}
