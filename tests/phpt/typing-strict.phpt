--TEST--
Under strict_types, int, float and string parameters take only their own type (and int for float), as PHP's internal functions do
--FILE--
<?php
declare(strict_types=1);

require __DIR__ . '/typing.inc';

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

$configuration = new Configuration(60, [new FailureRateRule(50, 10)], 30, new PermittedCallsPolicy(5, 2));
$breaker = new CircuitBreaker('api', $configuration, new InMemoryStorage());
foreach ([
    fn () => new Configuration('60', [], 30, new PermittedCallsPolicy(5)),
    fn () => new FailureRateRule(50, minimumRequests: 10.0),
    fn () => new CircuitBreaker(42, $configuration, new InMemoryStorage()),
    fn () => $breaker->registerSuccess('0.25'),
    fn () => $breaker->registerSuccess(null),
] as $call) {
    echo outcome($call, normalize: false), "\n";
}
$breaker->registerSuccess(1);
echo "an int is a float\n";

// The strictness is the caller's: a function declared in a file without
// strict_types, called from here, still coerces.
require __DIR__ . '/typing-coercive-caller.inc';
var_dump(coercive_rule('10')->failures);

compare('int', fn ($v) => (new ConsecutiveFailuresRule($v))->failures, fn ($v) => intdiv($v, 1));
compare('float', function ($v) {
    $clock = new MockClock(0);
    $clock->sleep($v);
    return (float) $clock->now()->format('U.u');
}, fn ($v) => fdiv($v, 1));
compare('string', fn ($v) => (new CircuitBreaker($v, $configuration, new InMemoryStorage()))->getService(), fn ($v) => str_repeat($v, 1));
?>
--EXPECT--
TypeError: Zeusi\CircuitBreaker\Configuration::__construct(): Argument #1 ($timeWindow) must be of type float, string given
TypeError: Zeusi\CircuitBreaker\Opening\FailureRateRule::__construct(): Argument #2 ($minimumRequests) must be of type int, float given
TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #1 ($service) must be of type string, int given
TypeError: Zeusi\CircuitBreaker\CircuitBreaker::registerSuccess(): Argument #1 ($duration) must be of type ?float, string given
NULL
an int is a float
int(10)
int 7: 7 | same
int '7': TypeError: Argument must be of type int, string given | same
int ' 7': TypeError: Argument must be of type int, string given | same
int '7 ': TypeError: Argument must be of type int, string given | same
int '7\n': TypeError: Argument must be of type int, string given | same
int '7.0': TypeError: Argument must be of type int, string given | same
int '7.5': TypeError: Argument must be of type int, string given | same
int '7e0': TypeError: Argument must be of type int, string given | same
int '1e1': TypeError: Argument must be of type int, string given | same
int '0x7': TypeError: Argument must be of type int, string given | same
int '7abc': TypeError: Argument must be of type int, string given | same
int 'abc': TypeError: Argument must be of type int, string given | same
int '': TypeError: Argument must be of type int, string given | same
int 7.0: TypeError: Argument must be of type int, float given | same
int 7.5: TypeError: Argument must be of type int, float given | same
int 1e30: TypeError: Argument must be of type int, float given | same
int NAN: TypeError: Argument must be of type int, float given | same
int true: TypeError: Argument must be of type int, bool given | same
int false: TypeError: Argument must be of type int, bool given | same
int null: TypeError: Argument must be of type int, null given | same
int []: TypeError: Argument must be of type int, array given | same
int stdClass: TypeError: Argument must be of type int, stdClass given | same
int Stringable: TypeError: Argument must be of type int, class@anonymous given | same
float 7: 7.0 | same
float '7': TypeError: Argument must be of type float, string given | same
float ' 7': TypeError: Argument must be of type float, string given | same
float '7 ': TypeError: Argument must be of type float, string given | same
float '7\n': TypeError: Argument must be of type float, string given | same
float '7.0': TypeError: Argument must be of type float, string given | same
float '7.5': TypeError: Argument must be of type float, string given | same
float '7e0': TypeError: Argument must be of type float, string given | same
float '1e1': TypeError: Argument must be of type float, string given | same
float '0x7': TypeError: Argument must be of type float, string given | same
float '7abc': TypeError: Argument must be of type float, string given | same
float 'abc': TypeError: Argument must be of type float, string given | same
float '': TypeError: Argument must be of type float, string given | same
float 7.0: 7.0 | same
float 7.5: 7.5 | same
float 1e30: 1.0E+30 | refused
float NAN: NAN | refused
float true: TypeError: Argument must be of type float, bool given | same
float false: TypeError: Argument must be of type float, bool given | same
float null: TypeError: Argument must be of type float, null given | same
float []: TypeError: Argument must be of type float, array given | same
float stdClass: TypeError: Argument must be of type float, stdClass given | same
float Stringable: TypeError: Argument must be of type float, class@anonymous given | same
string 7: TypeError: Argument must be of type string, int given | same
string '7': '7' | same
string ' 7': ' 7' | same
string '7 ': '7 ' | same
string '7\n': '7\n' | same
string '7.0': '7.0' | same
string '7.5': '7.5' | same
string '7e0': '7e0' | same
string '1e1': '1e1' | same
string '0x7': '0x7' | same
string '7abc': '7abc' | same
string 'abc': 'abc' | same
string '': '' | same
string 7.0: TypeError: Argument must be of type string, float given | same
string 7.5: TypeError: Argument must be of type string, float given | same
string 1e30: TypeError: Argument must be of type string, float given | same
string NAN: TypeError: Argument must be of type string, float given | same
string true: TypeError: Argument must be of type string, bool given | same
string false: TypeError: Argument must be of type string, bool given | same
string null: TypeError: Argument must be of type string, null given | same
string []: TypeError: Argument must be of type string, array given | same
string stdClass: TypeError: Argument must be of type string, stdClass given | same
string Stringable: TypeError: Argument must be of type string, class@anonymous given | same
