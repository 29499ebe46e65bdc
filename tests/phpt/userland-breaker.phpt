--TEST--
Execution helpers accept any CircuitBreakerInterface, such as a test double
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreakerInterface;
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Execution\CallExecutor;
use Zeusi\CircuitBreaker\State;

final class FakeBreaker implements CircuitBreakerInterface
{
    public array $log = [];
    public function __construct(private bool $permit) {}
    public function acquirePermission(): bool { $this->log[] = 'acquire'; return $this->permit; }
    public function registerSuccess(?float $duration = null): void { $this->log[] = 'success ' . ($duration === null ? 'null' : 'timed'); }
    public function registerFailure(?float $duration = null): void { $this->log[] = 'failure'; }
    public function getState(): State { return $this->permit ? State::Closed : State::Open; }
    public function getService(): string { return 'fake'; }
}

$breaker = new FakeBreaker(true);
echo (new CallExecutor($breaker))->execute(fn () => 'result'), "\n";
echo implode(', ', $breaker->log), "\n";

try {
    (new CallExecutor(new FakeBreaker(false)))->execute(fn () => 'never');
} catch (CallNotPermittedException $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
result
acquire, success timed
Circuit 'fake' is open: this call was not permitted
