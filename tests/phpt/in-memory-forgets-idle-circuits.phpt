--TEST--
InMemoryStorage forgets idle circuits once their time to live has passed on its clock: 300 000 names do not stay in memory
--SKIPIF--
<?php
if (!is_readable('/proc/self/status')) die('skip needs /proc/self/status');
// Under valgrind (run with USE_ZEND_ALLOC=0) 600 000 breakers take minutes,
// and resident memory means something else.
if (getenv('USE_ZEND_ALLOC') === '0') die('skip measures resident memory with the Zend allocator');
?>
--FILE--
<?php
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;

// The storage allocates outside PHP's allocator: only the process sees it.
function resident_mb(): float
{
    preg_match('/^VmRSS:\s+(\d+) kB/m', file_get_contents('/proc/self/status'), $match);
    return $match[1] / 1024;
}

$clock = new MockClock(1_764_000_000.0);
$storage = new InMemoryStorage($clock);
$configuration = new Configuration(
    timeWindow: 10,
    openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 4)],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$busy = new CircuitBreaker('busy', $configuration, $storage, null, $clock);

function touch_names(string $batch, Configuration $configuration, InMemoryStorage $storage, MockClock $clock): void
{
    for ($i = 0; $i < 300_000; $i++) {
        (new CircuitBreaker("$batch-$i", $configuration, $storage, null, $clock))->registerFailure();
    }
}

$start = resident_mb();
touch_names('first', $configuration, $storage, $clock);
$grown = resident_mb() - $start;
// A closed circuit lives 10 + 30 + 11 s after its last use.
$clock->sleep(60);
// Every call drops a few expired circuits: a busy circuit's calls sweep them.
for ($i = 0; $i < 10_000; $i++) {
    $busy->acquirePermission();
    $busy->registerSuccess();
}
$afterSweep = resident_mb() - $start;
touch_names('second', $configuration, $storage, $clock);
$afterSecond = resident_mb() - $start;
$clock->sleep(60);
for ($i = 0; $i < 10_000; $i++) {
    $busy->acquirePermission();
}
$afterSecondSweep = resident_mb() - $start;

echo "300 000 names take memory: ", $grown > 50 ? "yes" : "no ($grown MB)", "\n";
// Within a tenth of what they took, after each sweep: the memory of
// forgotten circuits goes back to the system (0 MB left in practice).
foreach (['first' => $afterSweep, 'second' => $afterSecondSweep] as $batch => $left) {
    printf("after the %s batch expired, memory is back near its start: %s\n", $batch, $left < 0.1 * $grown ? 'yes' : sprintf('no (%.0f MB of %.0f MB left)', $left, $grown));
}
// And whatever stays is reused, not added to.
echo "the second batch reuses the first's memory: ", $afterSecond < 1.5 * $grown ? "yes" : sprintf("no (%.0f MB, then %.0f MB)", $grown, $afterSecond), "\n";
?>
--EXPECT--
300 000 names take memory: yes
after the first batch expired, memory is back near its start: yes
after the second batch expired, memory is back near its start: yes
the second batch reuses the first's memory: yes
