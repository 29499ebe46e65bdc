--TEST--
MockClock refuses times its now() could not show (PHP_INT_MAX, 1e300, before 1970, past year 9999), at construction and in sleep()
--FILE--
<?php
use Zeusi\CircuitBreaker\Clock\MockClock;
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;

foreach ([PHP_INT_MAX, 1e300, -1, 253402300800, '@253402300800', new DateTimeImmutable('-0001-01-01')] as $now) {
    try {
        $clock = new MockClock($now);
        echo 'accepted: ', var_export($clock->now(), true), "\n";
    } catch (InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
$clock = new MockClock(253402300799);
echo $clock->now()->format('Y-m-d H:i:s'), "\n";
$clock = new MockClock(253402300000);
foreach ([1e300, INF, 800.0, 799.0] as $seconds) {
    try {
        $clock->sleep($seconds);
        echo 'slept ', $seconds, ': ', $clock->now()->format('Y-m-d H:i:s'), "\n";
    } catch (InvalidConfigurationException $e) {
        echo $e->getMessage(), "\n";
    }
}
?>
--EXPECT--
Invalid now: 9223372036854775807 given, expected a Unix timestamp from 0 to 253402300799 (9999-12-31 23:59:59 UTC), a date string or a DateTimeImmutable in that range
Invalid now: 1e300 given, expected a Unix timestamp from 0 to 253402300799 (9999-12-31 23:59:59 UTC), a date string or a DateTimeImmutable in that range
Invalid now: -1 given, expected a Unix timestamp from 0 to 253402300799 (9999-12-31 23:59:59 UTC), a date string or a DateTimeImmutable in that range
Invalid now: 253402300800 given, expected a Unix timestamp from 0 to 253402300799 (9999-12-31 23:59:59 UTC), a date string or a DateTimeImmutable in that range
Invalid now: '@253402300800' given, expected a Unix timestamp from 0 to 253402300799 (9999-12-31 23:59:59 UTC), a date string or a DateTimeImmutable in that range
Invalid now: DateTimeImmutable given, expected a Unix timestamp from 0 to 253402300799 (9999-12-31 23:59:59 UTC), a date string or a DateTimeImmutable in that range
9999-12-31 23:59:59
Invalid seconds: 1e300 (the clock is at 253402300000) given, expected a number of seconds, at least 0, that keeps the clock at a time from 0 to 253402300799 (9999-12-31 23:59:59 UTC)
Invalid seconds: INF (the clock is at 253402300000) given, expected a number of seconds, at least 0, that keeps the clock at a time from 0 to 253402300799 (9999-12-31 23:59:59 UTC)
Invalid seconds: 800 (the clock is at 253402300000) given, expected a number of seconds, at least 0, that keeps the clock at a time from 0 to 253402300799 (9999-12-31 23:59:59 UTC)
slept 799: 9999-12-31 23:59:59
