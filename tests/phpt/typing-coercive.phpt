--TEST--
Outside strict_types, int, float and string parameters coerce as PHP's internal functions do
--FILE--
<?php
require __DIR__ . '/typing.inc';

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

// The issue's examples: configuration read from environment variables.
$configuration = new Configuration('60', [new FailureRateRule('50', '10'), new FailureRateRule(50, minimumRequests: 10.0)], '30', new PermittedCallsPolicy('5', '2'));
var_dump($configuration->timeWindow, $configuration->openDuration, $configuration->openingRules[0]->threshold, $configuration->openingRules[0]->minimumRequests, $configuration->openingRules[1]->minimumRequests);
$breaker = new CircuitBreaker(42, $configuration, new InMemoryStorage());
var_dump($breaker->getService());
$breaker->registerSuccess('0.25');
$breaker->registerFailure(1);
echo "registered\n";

// What PHP does not coerce is a TypeError worded as PHP words it.
foreach ([
    fn () => new CircuitBreaker('api', 'configuration', new InMemoryStorage()),
    fn () => new CircuitBreaker('api', $configuration, new stdClass()),
    fn () => new CircuitBreaker('api', $configuration, new InMemoryStorage(), clock: 'now'),
    fn () => new Configuration(60, 'rules', 30, new PermittedCallsPolicy(5)),
    fn () => new FailureRateRule('half', 10),
    fn () => $breaker->registerFailure([]),
    fn () => (new PermittedCallsPolicy(5, 1.5))->permittedCalls,
    fn () => new Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier('no_such_function'),
    fn () => new Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier(fn () => null, [1, 2]),
    fn () => (new Zeusi\CircuitBreaker\Execution\CallExecutor($breaker))->execute('strlen'),
] as $call) {
    echo outcome($call, normalize: false), "\n";
}

compare('int', fn ($v) => (new ConsecutiveFailuresRule($v))->failures, fn ($v) => intdiv($v, 1));
compare('float', function ($v) {
    $clock = new MockClock(0);
    $clock->sleep($v);
    return (float) $clock->now()->format('U.u');
}, fn ($v) => fdiv($v, 1));
compare('string', fn ($v) => (new CircuitBreaker($v, $configuration, new InMemoryStorage()))->getService(), fn ($v) => str_repeat($v, 1));
?>
--EXPECT--
float(60)
float(30)
float(50)
int(10)
int(10)
string(2) "42"
registered
TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #2 ($configuration) must be of type Zeusi\CircuitBreaker\Configuration, string given
TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #3 ($storage) must be of type Zeusi\CircuitBreaker\Storage\StorageInterface, stdClass given
TypeError: Zeusi\CircuitBreaker\CircuitBreaker::__construct(): Argument #5 ($clock) must be of type ?Zeusi\CircuitBreaker\Clock\ClockInterface, string given
TypeError: Zeusi\CircuitBreaker\Configuration::__construct(): Argument #2 ($openingRules) must be of type array, string given
TypeError: Zeusi\CircuitBreaker\Opening\FailureRateRule::__construct(): Argument #1 ($threshold) must be of type float, string given
TypeError: Zeusi\CircuitBreaker\CircuitBreaker::registerFailure(): Argument #1 ($duration) must be of type ?float, array given
Deprecated: Implicit conversion from float 1.5 to int loses precision + 1
TypeError: Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier::__construct(): Argument #1 ($exceptionClassifier) must be a valid callback, function "no_such_function" not found or invalid function name
TypeError: Zeusi\CircuitBreaker\Execution\CallbackOutcomeClassifier::__construct(): Argument #2 ($resultClassifier) must be a valid callback or null, first array member is not a valid class name or object
ArgumentCountError: strlen() expects exactly 1 argument, 0 given
int 7: 7 | same
int '7': 7 | same
int ' 7': 7 | same
int '7 ': 7 | same
int '7\n': 7 | same
int '7.0': 7 | same
int '7.5': Deprecated: Implicit conversion from float-string "7.5" to int loses precision + 7 | same
int '7e0': 7 | same
int '1e1': 10 | same
int '0x7': TypeError: Argument must be of type int, string given | same
int '7abc': TypeError: Argument must be of type int, string given | same
int 'abc': TypeError: Argument must be of type int, string given | same
int '': TypeError: Argument must be of type int, string given | same
int 7.0: 7 | same
int 7.5: Deprecated: Implicit conversion from float 7.5 to int loses precision + 7 | same
int 1e30: TypeError: Argument must be of type int, float given | same
int NAN: TypeError: Argument must be of type int, float given | same
int true: 1 | same
int false: 0 | refused
int null: Deprecated: Passing null to parameter of type int is deprecated + 0 | refused
int []: TypeError: Argument must be of type int, array given | same
int stdClass: TypeError: Argument must be of type int, stdClass given | same
int Stringable: TypeError: Argument must be of type int, class@anonymous given | same
float 7: 7.0 | same
float '7': 7.0 | same
float ' 7': 7.0 | same
float '7 ': 7.0 | same
float '7\n': 7.0 | same
float '7.0': 7.0 | same
float '7.5': 7.5 | same
float '7e0': 7.0 | same
float '1e1': 10.0 | same
float '0x7': TypeError: Argument must be of type float, string given | same
float '7abc': TypeError: Argument must be of type float, string given | same
float 'abc': TypeError: Argument must be of type float, string given | same
float '': TypeError: Argument must be of type float, string given | same
float 7.0: 7.0 | same
float 7.5: 7.5 | same
float 1e30: 1.0E+30 | refused
float NAN: NAN | refused
float true: 1.0 | same
float false: 0.0 | same
float null: Deprecated: Passing null to parameter of type float is deprecated + 0.0 | same
float []: TypeError: Argument must be of type float, array given | same
float stdClass: TypeError: Argument must be of type float, stdClass given | same
float Stringable: TypeError: Argument must be of type float, class@anonymous given | same
string 7: '7' | same
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
string 7.0: '7' | same
string 7.5: '7.5' | same
string 1e30: '1.0E+30' | same
string NAN: 'NAN' | same
string true: '1' | same
string false: '' | same
string null: Deprecated: Passing null to parameter of type string is deprecated + '' | same
string []: TypeError: Argument must be of type string, array given | same
string stdClass: TypeError: Argument must be of type string, stdClass given | same
string Stringable: '7' | same
