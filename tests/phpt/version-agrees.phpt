--TEST--
One version: Cargo.toml's (built in as CARGO_PKG_VERSION) is the extension's (phpversion(), php --ri), composer.json's, integrations/composer.json's and the latest release of CHANGELOG.md; a 0.x.y
--FILE--
<?php
$root = __DIR__ . '/../..';
preg_match('/^\[package\].*?^version = "([^"]+)"/ms', file_get_contents("$root/Cargo.toml"), $cargo);
$versions = [
    'Cargo.toml' => $cargo[1] ?? null,
    'phpversion()' => phpversion('circuit_breaker'),
    'composer.json' => json_decode(file_get_contents("$root/composer.json"), true)['version'] ?? null,
    'integrations/composer.json' => json_decode(file_get_contents("$root/integrations/composer.json"), true)['version'] ?? null,
];
ob_start();
(new ReflectionExtension('circuit_breaker'))->info();
preg_match('/^version => (\S+)$/m', ob_get_clean(), $info);
$versions['php --ri'] = $info[1] ?? null;
preg_match('/^## \[(\d[^\]]*)\]/m', file_get_contents("$root/CHANGELOG.md"), $changelog);
$versions['CHANGELOG.md'] = $changelog[1] ?? null;
foreach ($versions as $where => $version) {
    echo $where, ': ', $version === $versions['Cargo.toml'] ? 'agrees' : "differs ($version, Cargo.toml says {$versions['Cargo.toml']})", "\n";
}
var_dump((bool) preg_match('/^0\.\d+\.\d+$/', $versions['Cargo.toml']));
?>
--EXPECT--
Cargo.toml: agrees
phpversion(): agrees
composer.json: agrees
integrations/composer.json: agrees
php --ri: agrees
CHANGELOG.md: agrees
bool(true)
