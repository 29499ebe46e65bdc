--TEST--
HTTP guard with max_concurrent_calls: of 4 transfers started at once in one curl_multi, 2 go and 2 are refused as refused connections (result 7, nothing sent) with HttpGuard::lastRefusal() saying BulkheadFull; a transfer's permit is given back when its end is read, or its handle removed
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/bulkhead-breakers.ini
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/upstream.inc';
use Zeusi\CircuitBreaker\Http\HttpGuard;

$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";

function run_multi(array $handles): array
{
    $multi = curl_multi_init();
    foreach ($handles as $handle) {
        curl_multi_add_handle($multi, $handle);
    }
    $results = [];
    do {
        curl_multi_exec($multi, $running);
        curl_multi_select($multi, 0.1);
        while (($done = curl_multi_info_read($multi)) !== false) {
            $results[] = $done['result'];
        }
    } while ($running > 0);
    foreach ($handles as $handle) {
        curl_multi_remove_handle($multi, $handle);
    }
    sort($results);
    return $results;
}

$served = $upstream->served();
echo implode(' ', run_multi(array_map(fn () => handle($upstream->url('/delay/100')), range(1, 4)))), "\n";
echo 'sent upstream: ', $upstream->served() - $served, "\n";
$refusal = HttpGuard::lastRefusal();
echo $refusal->getMessage(), "\n";
var_dump($refusal->getReason(), $refusal->getState());
$status = HttpGuard::breaker($upstream->url('/'))->getStatus();
echo "in flight {$status->callsInFlight}, rejected {$status->bulkheadRejections}, outcomes {$status->calls}\n";

// Given back: two more go at once, then one after the other.
echo implode(' ', run_multi([handle($upstream->url('/')), handle($upstream->url('/'))])), "\n";
foreach (range(1, 3) as $i) {
    $handle = handle($upstream->url('/'));
    echo curl_exec($handle) !== false ? 'ok ' : 'refused ';
}
echo "\n";

// A handle added, then removed unread: its permit goes back too.
$multi = curl_multi_init();
$first = handle($upstream->url('/delay/100'));
$second = handle($upstream->url('/delay/100'));
curl_multi_add_handle($multi, $first);
curl_multi_add_handle($multi, $second);
echo 'in flight while added: ', HttpGuard::breaker($upstream->url('/'))->getStatus()->callsInFlight, "\n";
curl_multi_remove_handle($multi, $first);
curl_multi_remove_handle($multi, $second);
echo 'in flight once removed: ', HttpGuard::breaker($upstream->url('/'))->getStatus()->callsInFlight, "\n";
?>
--EXPECTF--
0 0 7 7
sent upstream: 2
Circuit '127.0.0.1:%d' has 2 calls in flight, as many as its bulkhead lets through: this call was not permitted
enum(Zeusi\CircuitBreaker\RejectionReason::BulkheadFull)
enum(Zeusi\CircuitBreaker\State::Closed)
in flight 0, rejected 2, outcomes 2
0 0
ok ok ok 
in flight while added: 2
in flight once removed: 0