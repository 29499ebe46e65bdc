--TEST--
HTTP guard: HttpGuard::standAside() runs a call with the hooks standing aside (its transfers neither refused nor counted), returns its result and lets its exception through; a curl handle set up during it stays the caller's when its transfer starts later (curl_multi), until curl_reset(), even one made during a call
--EXTENSIONS--
curl
--INI--
circuit_breaker.http_hosts=127.0.0.1
circuit_breaker.http_config={PWD}/fast-breakers.ini
error_log=/dev/null
--FILE--
<?php
require __DIR__ . '/upstream.inc';
use Zeusi\CircuitBreaker\Http\HttpGuard;

$upstream = new Upstream();
$service = "127.0.0.1:{$upstream->port}";
$fail = fn () => curl_exec(handle($upstream->url('/status/503')));

// Inside: not counted; the result comes back, the exception goes through.
echo HttpGuard::standAside(function () use ($fail) {
    $fail();
    $fail();
    $fail();
    return 'returned';
}), "\n";
var_dump(counters($service));
try {
    HttpGuard::standAside(function () use ($fail) {
        $fail();
        throw new DomainException('thrown');
    });
} catch (DomainException $e) {
    echo $e->getMessage(), "\n";
}
var_dump(counters($service));

// A handle set up inside, added to curl_multi outside: left alone.
$multi = curl_multi_init();
$handle = HttpGuard::standAside(fn () => handle($upstream->url('/status/503')));
$run = function ($handle) use ($multi) {
    curl_multi_add_handle($multi, $handle);
    do {
        curl_multi_exec($multi, $running);
        curl_multi_select($multi, 0.1);
    } while ($running);
    while (curl_multi_info_read($multi)) {
    }
    curl_multi_remove_handle($multi, $handle);
};
$run($handle);
$run($handle);
var_dump(counters($service));

// Reset outside: an ordinary handle again, counted by its host's circuit.
curl_reset($handle);
curl_setopt($handle, CURLOPT_URL, $upstream->url('/status/503'));
curl_setopt($handle, CURLOPT_RETURNTRANSFER, true);
$run($handle);
echo counters($service)['failures'], "\n";
// Reset during a standAside() call (as Guzzle pools a handle it is done
// with), then set up outside it: the hooks' again.
$pooled = HttpGuard::standAside(function () use ($upstream) {
    $handle = handle($upstream->url('/status/503'));
    curl_reset($handle);
    return $handle;
});
curl_setopt($pooled, CURLOPT_URL, $upstream->url('/status/503'));
curl_setopt($pooled, CURLOPT_RETURNTRANSFER, true);
$run($pooled);
echo counters($service)['failures'], "\n";
echo 'served: ', $upstream->served(), "\n";
try {
    HttpGuard::standAside('no_such_function');
} catch (TypeError $e) {
    echo get_class($e), "\n";
}
?>
--EXPECT--
returned
NULL
thrown
NULL
NULL
1
2
served: 8
TypeError
