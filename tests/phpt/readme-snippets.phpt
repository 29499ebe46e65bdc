--TEST--
Every ```php block of README.md and of docs/*.md (but integrations.md, the companion package's) runs: each is written to a file of its own and included, with the `use` statements and the objects ($breaker, $gateway, $client...) it assumes defined around it; a block marked <!-- readme-check: skip, REASON --> is only parsed
--FILE--
<?php
require __DIR__ . '/seed-readme.inc';

// The README and the pages it sends its readers to, but the companion
// package's page: its blocks need the package and the clients it decorates
// (Guzzle, Symfony HttpClient), which tests/integrations/ installs.
$pages = array_merge(
    [__DIR__ . '/../../README.md'],
    array_filter(glob(__DIR__ . '/../../docs/*.md'), fn (string $page) => basename($page) !== 'integrations.md'),
);
$blocks = [];
foreach ($pages as $path) {
    $page = file_get_contents($path);
    preg_match_all('/(?:<!-- readme-check: (?<marker>[^>]*) -->\n)?```php\n(?<code>.*?)\n```/s', $page, $found, PREG_SET_ORDER | PREG_OFFSET_CAPTURE);
    foreach ($found as $block) {
        $block['where'] = basename(dirname($path)) === 'docs' ? 'docs/' . basename($path) : basename($path);
        $block['line'] = substr_count($page, "\n", 0, $block['code'][1]) + 1;
        $blocks[] = $block;
    }
}

// What the blocks assume: the classes the README names without importing
// them each time, and the objects of the surrounding text.
$assumedClasses = [
    'CircuitBreaker', 'Configuration', 'Outcome', 'State',
    'Execution\CallExecutor', 'Execution\CallGate', 'Execution\CallbackOutcomeClassifier',
    'Exception\CallNotPermittedException', 'Exception\InvalidConfigurationException',
    'HalfOpen\RampPolicy', 'HalfOpen\PermittedCallsPolicy',
    'Opening\FailureRateRule', 'Opening\SlowCallRateRule', 'Opening\FailureOrSlowCallRateRule', 'Opening\ConsecutiveFailuresRule', 'Opening\AdaptiveThrottlingRule',
    'Storage\StorageInterface', 'Storage\KeyValueStoreInterface', 'Storage\SharedMemoryStorage', 'Storage\ApcuStorage', 'Storage\InMemoryStorage',
    'Storage\RedisStorage', 'Storage\MemcachedStorage', 'Storage\FleetStorage',
];
final class GatewayUnavailable extends RuntimeException {}
final class TransportException extends RuntimeException {}
final class Order {}
final class AnsweringGateway
{
    public function charge(Order $order): array { return ['id' => 'ch_1']; }
}
final class AnsweringClient
{
    public function request(string $method, string $url): object
    {
        return new class { public function toArray(): array { return ['id' => 'ch_1']; } };
    }
}
$objects = fn () => [
    'breaker' => breaker(),
    'gateway' => new AnsweringGateway(),
    'client' => new AnsweringClient(),
    'order' => new Order(),
    'fallback' => 'fallback',
];

set_error_handler(function (int $level, string $message, string $file, int $line) {
    throw new ErrorException($message, 0, $level, $file, $line);
});
$ran = $skipped = 0;
foreach ($blocks as $index => $block) {
    $code = $block['code'][0];
    $line = "{$block['where']} line {$block['line']}";
    preg_match_all('/^use\s+[\w\\\\]+\\\\(\w+);/m', $code, $imported);
    $uses = '';
    foreach ($assumedClasses as $class) {
        $short = basename(str_replace('\\', '/', $class));
        if (!in_array($short, $imported[1], true)) {
            $uses .= "use Zeusi\\CircuitBreaker\\$class;\n";
        }
    }
    $file = example_file($code, $uses);
    exec(escapeshellarg(PHP_BINARY) . ' -n -l ' . escapeshellarg($file), $lint, $status);
    if ($status !== 0) {
        echo "$line: does not parse: ", implode(' ', $lint), "\n";
        continue;
    }
    if (($block['marker'][0] ?? '') !== '' && str_starts_with($block['marker'][0], 'skip')) {
        $skipped++;
        continue;
    }
    // Tests only ever talk to this machine: a block naming another address
    // or a host name must be marked, never run.
    if (preg_match('~(?:\d{1,3}\.){3}\d{1,3}|://(?!127\.|localhost|\[::1\])[a-z]~i', $code, $address)
        && !preg_match('~^127\.~', $address[0])) {
        echo "$line: names {$address[0]}, not this machine: mark it <!-- readme-check: skip, REASON -->\n";
        continue;
    }
    // What a block prints is the reader's, not this test's.
    ob_start();
    try {
        run_example($file, $objects());
        $ran++;
    } catch (Throwable $e) {
        $failure = "$line: " . get_class($e) . ': ' . $e->getMessage() . "\n";
    } finally {
        ob_end_clean();
    }
    echo $failure ?? '';
    $failure = null;
}
echo "$ran blocks ran, $skipped skipped (marked), of ", count($blocks), "\n";
echo $ran >= 5 ? "at least the 5 blocks of the README when this test was written\n" : "fewer blocks than expected: did the extraction break?\n";
?>
--EXPECTF--
%d blocks ran, %d skipped (marked), of %d
at least the 5 blocks of the README when this test was written
