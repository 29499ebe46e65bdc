--TEST--
The README's CallExecutor example, as written there, against a real upstream that answers 500 through Symfony HttpClient (no HTTP guard): the 5xx count as failures and open the circuit; a 404 counts as a success
--SKIPIF--
<?php
if (!is_dir('/usr/share/php/Symfony/Component/HttpClient')) die('skip Symfony HttpClient (php-symfony-http-client) is not installed');
?>
--FILE--
<?php
require __DIR__ . '/upstream.inc';
require '/usr/share/php/Symfony/Component/HttpClient/autoload.php';
use Zeusi\CircuitBreaker\{CircuitBreaker, Configuration, Outcome};
use Zeusi\CircuitBreaker\Execution\{CallExecutor, CallbackOutcomeClassifier};
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

// The README's block that builds $executor, and runs a call through it.
$readme = file_get_contents(__DIR__ . '/../../README.md');
preg_match_all('/```php\n(.*?)\n```/s', $readme, $blocks);
$block = array_values(array_filter($blocks[1], fn ($code) => str_contains($code, '$executor = new CallExecutor($breaker')))[0];
// eval'd code sees no import of this file: the README's own, and the
// classes the README names without importing them in each block.
$code = "use Zeusi\\CircuitBreaker\\Outcome;\nuse Zeusi\\CircuitBreaker\\Execution\\{CallExecutor, CallbackOutcomeClassifier};\nuse Zeusi\\CircuitBreaker\\Exception\\CallNotPermittedException;\n" . $block;

function run_readme_example(string $code, CircuitBreaker $breaker, object $client): string
{
    try {
        eval($code);
        return 'answered';
    } catch (CallNotPermittedException) {
        return 'refused';
    } catch (Throwable $e) {
        return (new ReflectionClass($e))->getShortName();
    }
}

$upstream = new Upstream(500);
$client = Symfony\Component\HttpClient\HttpClient::createForBaseUri($upstream->url('/'));
$breaker = new CircuitBreaker('payments', new Configuration(10, [new ConsecutiveFailuresRule(5)], 60, new PermittedCallsPolicy(10, 1)), new InMemoryStorage());
$seen = [];
// The block catches the refusal itself ('answered' then): nothing reaches
// the upstream once the circuit is open.
for ($i = 0; $i < 15; $i++) {
    $seen[] = run_readme_example($code, $breaker, $client);
}
$counts = array_count_values($seen);
echo implode(' ', array_map(fn ($k, $v) => "{$k}×{$v}", array_keys($counts), $counts)), "\n";
echo $breaker->getState()->value, ', served: ', $upstream->served(), "\n";

// A 4xx is an answer: a success.
$upstream = new Upstream(404);
$client = Symfony\Component\HttpClient\HttpClient::createForBaseUri($upstream->url('/'));
$breaker = new CircuitBreaker('payments-4xx', new Configuration(10, [new ConsecutiveFailuresRule(5)], 60, new PermittedCallsPolicy(10, 1)), new InMemoryStorage());
for ($i = 0; $i < 10; $i++) {
    run_readme_example($code, $breaker, $client);
}
echo $breaker->getState()->value, "\n";
?>
--EXPECT--
ServerException×5 answered×10
open, served: 5
closed
