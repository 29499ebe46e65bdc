--TEST--
FleetStorage over a network store: two hosts (two processes, two workers each) open the fleet circuit on failures split across them, once; counts exact after 4 x 10 000 outcomes
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/store.inc';
require __DIR__ . '/../integration/fleet.inc';

run_fleet_hosts([store() => shared_target()], fn (string $service) => fleet_windows(shared_address(), $service));
?>
--EXPECT--
CircuitOpened: 1
workers rejected: 4 of 4
no host past 50 failures, at least 70 in the fleet: true
hosts: 2, successes: 26664, failures: 13336
events: 0
