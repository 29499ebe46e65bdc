--TEST--
php-stubs/ declares exactly the API of the loaded extension
--FILE--
<?php
require __DIR__ . '/../../scripts/reflect-extension.php';

// Load the stubs under another namespace, so they do not clash with the
// extension, then describe both the same way.
$stubs = file_get_contents(__DIR__ . '/../../php-stubs/circuit_breaker.php');
$stubs = preg_replace('/^<\?php/', '', $stubs);
// strtr, not str_replace: a replaced name must not be replaced again.
$stubs = strtr($stubs, [
    'namespace Zeusi\\' => 'namespace StubCheck\\Zeusi\\',
    'use Zeusi\\' => 'use StubCheck\\Zeusi\\',
    '\\Zeusi\\' => '\\StubCheck\\Zeusi\\',
]);
eval($stubs);

$extension = describe_namespace('Zeusi\\CircuitBreaker\\');
$declared = describe_namespace('StubCheck\\Zeusi\\CircuitBreaker\\', 'StubCheck\\');
if ($extension === $declared) {
    echo "stubs match\n";
} else {
    $a = explode("\n", $extension);
    $b = explode("\n", $declared);
    foreach (array_diff($a, $b) as $line) echo "extension only: $line\n";
    foreach (array_diff($b, $a) as $line) echo "stubs only:     $line\n";
}
?>
--EXPECT--
stubs match
