--TEST--
exit() and fatal errors in PHP code the extension calls end the script as they would without it
--DESCRIPTION--
Each scenario runs in a child process: the exit status and output are those
of PHP itself (exit(N) gives status N, a fatal error 255 with its message),
nothing after the exit runs, nothing is registered for it (a failure would
open the circuit), and shutdown functions run and can still use the breaker.
--SKIPIF--
<?php if (!is_readable('/proc/self/maps')) die('skip needs /proc/self/maps'); ?>
--FILE--
<?php
require __DIR__ . '/subprocess.inc';
$scenarios = [
    ['executor', '3'], ['executor', '0'], ['executor', 'fatal'],
    ['executor-classifier', '4'], ['attempt-classifier', '4'],
    ['listener', '5'], ['listener', 'fatal'],
    ['clock', '6'], ['clock', 'fatal'],
    ['curve', '7'], ['curve', 'fatal'],
    ['storage', '8', 'increment'], ['storage', '8', 'getMultiple'], ['storage', '8', 'compareAndSet'],
    ['storage', 'fatal', 'increment'], ['storage', 'fatal', 'getMultiple'],
    ['userland-breaker', '9'], ['userland-breaker', 'fatal'],
    ['conversion', '10'], ['conversion', 'fatal'],
];
foreach ($scenarios as $arguments) {
    [$status, $output] = run_php(__DIR__ . '/exit-scenarios.inc', ...$arguments);
    $output = preg_replace('~Allowed memory size of \d+ bytes exhausted .*~', 'Allowed memory size exhausted', $output);
    echo implode(' ', $arguments), ": status $status\n", preg_replace('/^(?=.)/m', '  ', trim($output)), "\n";
}
?>
--EXPECT--
executor 3: status 3
  before
  shutdown: closed
executor 0: status 0
  before
  shutdown: closed
executor fatal: status 255
  before

  Fatal error: Allowed memory size exhausted
  shutdown: closed
executor-classifier 4: status 4
  before
  shutdown: closed
attempt-classifier 4: status 4
  before
  shutdown: closed
listener 5: status 5
  before
  event CircuitOpened
  shutdown: open
listener fatal: status 255
  before
  event CircuitOpened

  Fatal error: Allowed memory size exhausted
  shutdown: open
clock 6: status 6
  before
  shutdown: closed
clock fatal: status 255
  before

  Fatal error: Allowed memory size exhausted
  shutdown: closed
curve 7: status 7
  before
  shutdown: half_open
curve fatal: status 255
  before

  Fatal error: Allowed memory size exhausted
  shutdown: half_open
storage 8 increment: status 8
  before
  shutdown: closed
storage 8 getMultiple: status 8
  before
  shutdown: closed
storage 8 compareAndSet: status 8
  before
  shutdown: closed
storage fatal increment: status 255
  before

  Fatal error: Allowed memory size exhausted
  shutdown: closed
storage fatal getMultiple: status 255
  before

  Fatal error: Allowed memory size exhausted
  shutdown: closed
userland-breaker 9: status 9
  before
  shutdown: closed []
userland-breaker fatal: status 255
  before

  Fatal error: Allowed memory size exhausted
  shutdown: closed []
conversion 10: status 10
  before
  shutdown: closed
conversion fatal: status 255
  before

  Fatal error: Allowed memory size exhausted
  shutdown: closed
