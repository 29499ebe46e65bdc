--TEST--
Status\PrometheusExporter: statuses of shared memory and InMemoryStorage rendered in the text format 0.0.4 and parsed back line by line (names, labels with escapes, float values, one TYPE per family, families not interleaved), service names with quotes, backslashes, line feeds and UTF-8 round-tripping; counters as the breakers counted
--FILE--
<?php
require __DIR__ . '/prometheus-format.inc';
use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Opening\SlowCallRateRule;
use Zeusi\CircuitBreaker\Status\CircuitStatus;
use Zeusi\CircuitBreaker\Status\PrometheusExporter;
use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

$configuration = new Configuration(
    timeWindow: 60,
    openingRules: [
        new FailureRateRule(threshold: 50, minimumRequests: 4),
        new SlowCallRateRule(slowCallDuration: 1.0, threshold: 100, minimumRequests: 1000),
    ],
    openDuration: 10,
    halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
);
$services = [
    'quoted' => 'say "hi"',
    'backslash' => 'C:\\path\\',
    'newline' => "two\nlines",
    'utf8' => 'paiements-€-日本',
    'all' => "\\\"\n\\n",
];
$expected = [];

/** Drives a breaker: $failures failures (slow), $successes successes, then $rejected calls while open. */
function drive(CircuitBreaker $breaker, int $successes, int $failures, int $attempts): void
{
    for ($i = 0; $i < $successes; $i++) {
        if ($breaker->acquirePermission()) {
            $breaker->registerSuccess(0.01);
        }
    }
    for ($i = 0; $i < $failures; $i++) {
        if ($breaker->acquirePermission()) {
            $breaker->registerFailure(2.0);
        }
    }
    for ($i = 0; $i < $attempts; $i++) {
        $breaker->acquirePermission();
    }
}

// Shared memory: a closed, an open (6 failures: opens at the 4th), a forced circuit.
$shm = new SharedMemoryStorage('metrics-test:');
drive(new CircuitBreaker($services['quoted'], $configuration, $shm), 3, 0, 0);
drive(new CircuitBreaker($services['backslash'], $configuration, $shm), 0, 6, 2);
$forced = new CircuitBreaker($services['newline'], $configuration, $shm);
drive($forced, 1, 0, 0);
$forced->forceOpen(120);
drive($forced, 0, 0, 1);
$expected['shm'] = [
    $services['quoted'] => ['closed', 0, null, [3, 0, 3, 0, 0, 0]],
    $services['backslash'] => ['open', 0, 10.0, [4, 4, 0, 4, 4, 1]],
    $services['newline'] => ['open', 1, 120.0, [1, 1, 1, 0, 0, 0]],
];

// In memory, on a mock clock: exact times. Half-open after 10 s.
$clock = new MockClock(1_764_000_000);
$memory = new InMemoryStorage($clock);
drive(new CircuitBreaker($services['utf8'], $configuration, $memory, null, $clock), 2, 4, 3);
$clock->sleep(3);
drive(new CircuitBreaker($services['all'], $configuration, $memory, null, $clock), 0, 4, 0);
$clock->sleep(7.5);
$expected['memory'] = [
    // opened 10.5 s ago: half-open now (a listing without configuration says so at its end)
    $services['utf8'] => ['half_open', 0, null, [4, 5, 2, 2, 2, 1]],
    $services['all'] => ['open', 0, 2.5, [4, 0, 0, 4, 4, 1]],
];

$check = function (string $label, string $text, array $expected, array $extraLabels = [], string $namespace = 'circuit_breaker') {
    $families = parse_exposition($text);
    $counters = ['calls_permitted_total', 'calls_rejected_total', 'successes_total', 'failures_total', 'slow_calls_total', 'openings_total'];
    $names = array_map(fn ($suffix) => "{$namespace}_$suffix", ['state', 'forced', 'state_remaining_seconds', 'open_duration_seconds', ...$counters]);
    $missing = array_diff($names, array_keys($families));
    $unknown = array_diff(array_keys($families), $names);
    if ($missing || $unknown) {
        echo "$label: families missing ", implode(',', $missing), ' unknown ', implode(',', $unknown), "\n";
    }
    foreach ($families as $name => $family) {
        if ($family['help'] === null) {
            echo "$label: $name has no HELP\n";
        }
        $type = str_ends_with($name, '_total') ? 'counter' : 'gauge';
        if ($family['type'] !== $type) {
            echo "$label: $name is a {$family['type']}\n";
        }
        foreach ($family['samples'] as $sample) {
            $labels = $sample['labels'];
            $service = $labels['service'] ?? null;
            if (!array_key_exists($service, $expected)) {
                echo "$label: $name has an unexpected service ", json_encode($service), "\n";
                continue;
            }
            foreach ($extraLabels as $extra => $value) {
                if (($labels[$extra] ?? null) !== $value) {
                    echo "$label: $name lacks $extra\n";
                }
            }
            [$state, $forced, $remaining, $counts] = $expected[$service];
            $value = $sample['value'];
            $want = match ($name) {
                "{$namespace}_state" => (float) ($labels['state'] === $state),
                "{$namespace}_forced" => (float) $forced,
                "{$namespace}_state_remaining_seconds" => $remaining,
                "{$namespace}_open_duration_seconds" => $state === 'open' && !$forced ? 10.0 : $value,
                default => (float) $counts[array_search(substr($name, strlen($namespace) + 1), $counters, true)],
            };
            // Shared memory runs on the system clock: its remaining time
            // is at most the duration, and the test takes far less than 5 s.
            $close = $label !== 'memory' && $name === "{$namespace}_state_remaining_seconds"
                ? $value <= $want && $value > $want - 5
                : $value === $want;
            if (!$close) {
                echo "$label: $name ", json_encode($labels), " is $value, expected ", json_encode($want), "\n";
            }
        }
    }
    $states = $families["{$namespace}_state"]['samples'];
    echo "$label: ", count($families), ' families, ', count($states) / 3, " circuits, 3 state lines each, ",
        count(array_filter($states, fn ($s) => $s['value'] === 1.0)), " in a state\n";
    $remaining = array_map(fn ($s) => $s['labels']['service'], $families["{$namespace}_state_remaining_seconds"]['samples']);
    sort($remaining);
    echo "$label: a remaining time for ", json_encode($remaining, JSON_UNESCAPED_UNICODE), "\n";
};

$exporter = new PrometheusExporter();
$check('shm', $exporter->render($shm->listCircuits()), $expected['shm']);
$check('memory', $exporter->render($memory->listCircuits()), $expected['memory']);

// Breakers' getStatus() (a generator of them works too), with labels and a namespace.
$statuses = (function () use ($services, $configuration, $shm) {
    foreach (['quoted', 'backslash', 'newline'] as $key) {
        yield $key => (new CircuitBreaker($services[$key], $configuration, $shm))->getStatus();
    }
})();
$labelled = new PrometheusExporter(['host' => "web-1 \"eu\"\n", 'prefix' => 'metrics-test:'], 'shop_cb');
$check('breakers', $labelled->render($statuses), $expected['shm'], ['host' => "web-1 \"eu\"\n", 'prefix' => 'metrics-test:'], 'shop_cb');

// A storage that keeps no counters (one written in PHP, as Redis and
// Memcached): counters null, and the _total families have no sample.
final class PhpStorage implements Zeusi\CircuitBreaker\Storage\StorageInterface
{
    private array $values = [];
    public function increment(string $key, int $ttl): int { return $this->values[$key] = (int) ($this->values[$key] ?? 0) + 1; }
    public function getMultiple(array $keys): array { return array_intersect_key($this->values, array_flip($keys)); }
    public function compareAndSet(string $key, ?string $expected, string $value, int $ttl): bool
    {
        if (($this->values[$key] ?? null) !== $expected) {
            return false;
        }
        $this->values[$key] = $value;
        return true;
    }
}
$php = new CircuitBreaker('php', $configuration, new PhpStorage());
drive($php, 0, 4, 1);
$status = $php->getStatus();
echo 'a storage without counters: ', json_encode([$status->state->value, $status->counters]), "\n";
$families = parse_exposition($exporter->render([$status]));
echo json_encode(array_map(fn ($family) => count($family['samples']), $families)), "\n";

echo PrometheusExporter::CONTENT_TYPE, "\n";
echo json_encode($exporter->render([])), "\n";
foreach ([
    fn () => $exporter->render([$shm->listCircuits()[0], 'not a status']),
    fn () => $exporter->render('abc'),
    fn () => new PrometheusExporter(['state' => 'x']),
    fn () => new PrometheusExporter(['__name__' => 'x']),
    fn () => new PrometheusExporter(['bad-name' => 'x']),
    fn () => new PrometheusExporter(['host' => 42]),
    fn () => new PrometheusExporter([], 'bad name'),
] as $bad) {
    try {
        $bad();
        echo "accepted\n";
    } catch (TypeError|ValueError $e) {
        echo get_class($e), ': ', $e->getMessage(), "\n";
    }
}

// The parser itself rejects what breaks the grammar.
foreach ([
    "a{service=\"x\\q\"} 1\n",
    "a{service=\"x\"} one\n",
    "# TYPE a gauge\n# TYPE a gauge\na 1\n",
    "a 1\nb 1\na 2\n",
    "1a 1\n",
    "a{service=\"x\" 1\n",
] as $broken) {
    try {
        parse_exposition($broken);
        echo "parsed: ", json_encode($broken), "\n";
    } catch (ExpositionError $e) {
        echo 'rejected: ', $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
shm: 10 families, 3 circuits, 3 state lines each, 3 in a state
shm: a remaining time for ["C:\\path\\","two\nlines"]
memory: 10 families, 2 circuits, 3 state lines each, 2 in a state
memory: a remaining time for ["\\\"\n\\n"]
breakers: 10 families, 3 circuits, 3 state lines each, 3 in a state
breakers: a remaining time for ["C:\\path\\","two\nlines"]
a storage without counters: ["open",null]
{"circuit_breaker_state":3,"circuit_breaker_forced":1,"circuit_breaker_state_remaining_seconds":1,"circuit_breaker_open_duration_seconds":1}
text/plain; version=0.0.4; charset=utf-8
""
TypeError: PrometheusExporter::render(): Argument #1 ($statuses) must hold only Zeusi\CircuitBreaker\Status\CircuitStatus objects, string given at key 1
TypeError: Zeusi\CircuitBreaker\Status\PrometheusExporter::render(): Argument #1 ($statuses) must be of type Traversable|array, string given
ValueError: PrometheusExporter::__construct(): Argument #1 ($labels) must have label names matching [a-zA-Z_][a-zA-Z0-9_]*, not starting with __ and other than 'service' and 'state': 'state' given
ValueError: PrometheusExporter::__construct(): Argument #1 ($labels) must have label names matching [a-zA-Z_][a-zA-Z0-9_]*, not starting with __ and other than 'service' and 'state': '__name__' given
ValueError: PrometheusExporter::__construct(): Argument #1 ($labels) must have label names matching [a-zA-Z_][a-zA-Z0-9_]*, not starting with __ and other than 'service' and 'state': 'bad-name' given
TypeError: PrometheusExporter::__construct(): Argument #1 ($labels) must have string values, int given for 'host'
ValueError: PrometheusExporter::__construct(): Argument #2 ($namespace) must match [a-zA-Z_][a-zA-Z0-9_]*, 'bad name' given
rejected: line 1: invalid escape \q
rejected: line 1: 'one' is not a float
rejected: line 2: second TYPE for a
rejected: line 3: family a interleaved with another
rejected: line 1: a metric name expected: 1a 1
rejected: line 1: , or } expected after a label value
