<?php
// One "host" of the FleetStorage tests: a PHP process (so a shared-memory
// segment of its own) forking WORKERS workers that share it, as the workers
// of one PHP-FPM master do. Every event goes to LOG as
// "<host> <worker> <event> <time>"; what the workers saw goes there too.
// Usage: php -d extension=... fleet-host.php HOST MODE STORE_JSON SERVICE LOG OUTCOMES [SYNC_INTERVAL [START]]
//   STORE_JSON: {"redis": DSN or [cluster nodes]} or {"memcached": "host:port"}
//   MODE split:   each worker registers up to OUTCOMES failures, one per 20 ms,
//                 then calls every 5 ms, until a call is rejected (10 s at most)
//   MODE count:   each worker registers OUTCOMES outcomes (every third a failure)
//   MODE outage:  each worker calls one call per 2 ms, succeeding or failing
//                 as the phase the test writes in LOG.phase says, until it
//                 says stop, and says how many calls were refused while failing
//                 (and, once, when that reached REFUSED_ENOUGH)

use Zeusi\CircuitBreaker\CircuitBreaker;
use Zeusi\CircuitBreaker\Configuration;
use Zeusi\CircuitBreaker\Event\EventInterface;
use Zeusi\CircuitBreaker\Event\EventListenerInterface;
use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
use Zeusi\CircuitBreaker\Opening\FailureRateRule;
use Zeusi\CircuitBreaker\Storage\FleetStorage;
use Zeusi\CircuitBreaker\Storage\MemcachedStorage;
use Zeusi\CircuitBreaker\Storage\RedisStorage;

const WORKERS = 2;
// MODE outage: a worker that refused this many calls while failing says so
// (once), and the test waits for it before the store comes back.
const REFUSED_ENOUGH = 11;
[, $host, $mode, $storeJson, $service, $log, $outcomes] = $argv;
$outcomes = (int) $outcomes;
$syncInterval = (float) ($argv[7] ?? 0.05);
$start = (float) ($argv[8] ?? microtime(true));
$store = json_decode($storeJson, true);

final class LogListener implements EventListenerInterface
{
    public function __construct(private string $log, private string $who) {}
    public function handleEvent(EventInterface $event): void
    {
        write_log($this->log, sprintf('%s %s %.3f', $this->who, (new ReflectionClass($event))->getShortName(), $event->getTime()));
    }
}

function write_log(string $log, string $line): void
{
    file_put_contents($log, "$line\n", FILE_APPEND | LOCK_EX);
}

$configuration = match ($mode) {
    // The fleet opens at 70 outcomes; a host alone makes 2 x OUTCOMES.
    'split' => new Configuration(
        timeWindow: 60,
        openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 70)],
        openDuration: 30,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    ),
    // Never opens: the counts are all there is to see.
    'count' => new Configuration(
        timeWindow: 3600,
        openingRules: [new FailureRateRule(threshold: 100, minimumRequests: 1_000_000)],
        openDuration: 30,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    ),
    // Opens on 20 failures: each host alone reaches it in a few ms.
    'outage' => new Configuration(
        timeWindow: 60,
        openingRules: [new FailureRateRule(threshold: 50, minimumRequests: 20)],
        openDuration: 60,
        halfOpenPolicy: PermittedCallsPolicy::createSingleTrial(maxDuration: 30),
    ),
};

function fleet_store(array $store): FleetStorage
{
    global $syncInterval;
    $fleet = isset($store['redis'])
        ? new RedisStorage($store['redis'], timeout: 0.5)
        : new MemcachedStorage($store['memcached'], timeout: 0.5);
    return new FleetStorage($fleet, syncInterval: $syncInterval);
}

$children = [];
for ($worker = 0; $worker < WORKERS; $worker++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        $who = "$host $worker";
        $breaker = new CircuitBreaker($service, $configuration, fleet_store($store), new LogListener($log, $who));
        switch ($mode) {
            case 'split':
                $rejectedAt = null;
                $registered = 0;
                $deadline = microtime(true) + 10;
                while (microtime(true) < $deadline) {
                    if (!$breaker->acquirePermission()) {
                        $rejectedAt = microtime(true);
                        break;
                    }
                    if ($registered < $outcomes) {
                        $breaker->registerFailure();
                        write_log($log, sprintf('%s failure %.3f', $who, microtime(true)));
                        $registered++;
                        usleep(20_000);
                    } else {
                        usleep(5_000);
                    }
                }
                write_log($log, sprintf('%s rejected %s', $who, $rejectedAt === null ? 'never' : sprintf('%.3f', $rejectedAt)));
                break;
            case 'count':
                for ($i = 0; $i < $outcomes; $i++) {
                    $breaker->acquirePermission();
                    $i % 3 === 0 ? $breaker->registerFailure() : $breaker->registerSuccess();
                }
                break;
            case 'outage':
                // The test sets the phase in LOG.phase as it sees the hosts
                // react (no schedule: a loaded machine only makes it slower):
                // "ok", successes; "failing", failures; "stop". The first
                // call through the store says the worker started.
                $refused = 0;
                $started = false;
                $deadline = microtime(true) + 60;
                while (($phase = @file_get_contents("$log.phase")) !== 'stop' && microtime(true) < $deadline) {
                    $failing = $phase === 'failing';
                    if ($breaker->acquirePermission()) {
                        $failing ? $breaker->registerFailure() : $breaker->registerSuccess();
                    } elseif ($failing && ++$refused === REFUSED_ENOUGH) {
                        write_log($log, "$who refusing");
                    }
                    if (!$started) {
                        write_log($log, "$who started");
                        $started = true;
                    }
                    usleep(2_000);
                }
                write_log($log, "$who refused $refused");
                break;
        }
        exit(0);
    }
    $children[] = $pid;
}
foreach ($children as $pid) {
    pcntl_waitpid($pid, $status);
}
if ($mode === 'count') {
    // The last sync of this host: its window as the workers left it.
    usleep((int) ($syncInterval * 1e6) + 10_000);
    $breaker = new CircuitBreaker($service, $configuration, fleet_store($store));
    $breaker->getState();
}
