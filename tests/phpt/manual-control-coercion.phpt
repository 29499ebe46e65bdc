--TEST--
forceOpen(), forceClosed() and PrometheusExporter's $namespace (a Stringable) take their arguments as PHP's own functions do: numeric strings in coercive mode (an on-call script fed from $argv), a TypeError naming the argument under strict_types and for non-numeric strings
--FILE--
<?php
require __DIR__ . '/bootstrap.inc';
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Status\PrometheusExporter;

$clock = new MockClock(1_764_000_000.0);
$breaker = breaker(clock: $clock);
$left = fn () => (float) $breaker->getStatus()->until->format('U.u') - (float) $clock->now()->format('U.u');
$breaker->forceOpen('60');
echo $breaker->getState()->value, ' until +', $left(), "\n";
$breaker->forceClosed('30.5');
echo $breaker->getState()->value, ' until +', $left(), "\n";
try {
    $breaker->forceOpen('an hour');
} catch (TypeError $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
final class Name
{
    public function __toString(): string
    {
        return 'shop';
    }
}
$exporter = new PrometheusExporter(namespace: new Name());
echo explode("\n", $exporter->render([$breaker->getStatus()]))[1], "\n";

$strict = tempnam(sys_get_temp_dir(), 'cb-strict');
file_put_contents($strict, '<?php declare(strict_types=1);
return [
    fn ($breaker) => $breaker->forceOpen("60"),
    fn ($breaker) => $breaker->forceClosed("60"),
    fn ($breaker) => new Zeusi\CircuitBreaker\Status\PrometheusExporter(namespace: new Name()),
];');
foreach (require $strict as $call) {
    try {
        $call($breaker);
        echo "accepted\n";
    } catch (TypeError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}
unlink($strict);
?>
--EXPECTF--
open until +60
closed until +30.5
TypeError: %SforceOpen(): Argument #1 ($duration) must be of type float, string given
# TYPE shop_state gauge
TypeError: %SforceOpen(): Argument #1 ($duration) must be of type float, string given
TypeError: %SforceClosed(): Argument #1 ($duration) must be of type float, string given
TypeError: %S__construct(): Argument #2 ($namespace) must be of type ?string, Name given
