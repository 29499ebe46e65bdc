--TEST--
ext/circuit_breaker.ini, the file make install puts in mods-available, lists every setting the extension registers, commented, with its default
--FILE--
<?php
$file = file_get_contents(__DIR__ . '/../../ext/circuit_breaker.ini');
$listed = [];
foreach (explode("\n", $file) as $line) {
    if (preg_match('/^;(circuit_breaker\.[a-z_]+) =\s*(.*)$/', $line, $match)) {
        $listed[$match[1]] = $match[2];
    }
}
// The defaults, from a PHP of its own: run-tests.php sets some (log_interval).
preg_match('#\S*circuit_breaker[^/\s]*\.so#', file_get_contents('/proc/self/maps'), $module);
$registered = json_decode(shell_exec(escapeshellarg(PHP_BINARY) . ' -n -d extension=' . escapeshellarg($module[0])
    . ' -r ' . escapeshellarg('echo json_encode(ini_get_all("circuit_breaker"));')), true);
foreach ($registered as $name => $setting) {
    if (!array_key_exists($name, $listed)) {
        echo "$name: missing\n";
    } elseif ($listed[$name] !== $setting['global_value']) {
        echo "$name: listed as '{$listed[$name]}', its default is '{$setting['global_value']}'\n";
    } else {
        echo "$name: listed with its default\n";
    }
}
foreach (array_diff_key($listed, $registered) as $name => $value) {
    echo "$name: listed, not a setting of the extension\n";
}
echo count($registered) >= 7 ? "every setting\n" : "too few settings registered\n";
// The file itself still only loads the extension: no active setting.
var_dump(preg_match_all('/^circuit_breaker\./m', $file));
?>
--EXPECT--
circuit_breaker.http_config: listed with its default
circuit_breaker.http_hosts: listed with its default
circuit_breaker.http_mode: listed with its default
circuit_breaker.log_interval: listed with its default
circuit_breaker.shm_max_share: listed with its default
circuit_breaker.shm_name: listed with its default
circuit_breaker.shm_size: listed with its default
every setting
int(0)
