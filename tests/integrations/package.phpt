--TEST--
The package: composer.json requires the extension and maps Zeusi\CircuitBreaker\Integration\ to src/ (PSR-4); every file of src/ declares the class its path names, and none declares anything in a Psr\ namespace (nothing impersonates a PSR package)
--FILE--
<?php
$root = __DIR__ . '/../../integrations';
$composer = json_decode(file_get_contents("$root/composer.json"), true, flags: JSON_THROW_ON_ERROR);
echo $composer['name'], ' ', $composer['type'], "\n";
var_dump(isset($composer['require']['ext-circuit_breaker']), $composer['autoload']['psr-4']);
$files = new RecursiveIteratorIterator(new RecursiveDirectoryIterator("$root/src", FilesystemIterator::SKIP_DOTS));
$bad = [];
$count = 0;
foreach ($files as $file) {
    $path = substr($file->getPathname(), strlen("$root/src/"));
    $code = file_get_contents($file->getPathname());
    preg_match('/^namespace ([^;]+);/m', $code, $namespace);
    preg_match('/^(?:final |abstract )?(?:class|interface|trait|enum) (\w+)/m', $code, $declared);
    $expected = 'Zeusi\\CircuitBreaker\\Integration\\' . str_replace('/', '\\', substr($path, 0, -4));
    $count++;
    if (($namespace[1] ?? '') . '\\' . ($declared[1] ?? '') !== $expected || preg_match('/^namespace Psr\b/m', $code)) {
        $bad[] = $path;
    }
}
echo $count > 15 ? "files: ok\n" : "files: $count\n";
var_dump($bad);
?>
--EXPECT--
zeusi/circuit-breaker-integrations library
bool(true)
array(1) {
  ["Zeusi\CircuitBreaker\Integration\"]=>
  string(4) "src/"
}
files: ok
array(0) {
}
