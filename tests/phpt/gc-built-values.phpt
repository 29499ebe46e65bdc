--TEST--
Values given to the constructors of a status or an event are reported to the cycle collector: a DateTimeImmutable (or StorageException) subclass holding the status (or event) it was given to is collected by gc_collect_cycles(), not kept until the request ends
--FILE--
<?php
use Zeusi\CircuitBreaker\Event\StorageFailed;
use Zeusi\CircuitBreaker\Exception\StorageException;
use Zeusi\CircuitBreaker\State;
use Zeusi\CircuitBreaker\Status\CircuitStatus;

final class HoldingDate extends DateTimeImmutable
{
    public mixed $held = null;
    public function __destruct() { echo "date freed\n"; }
}
final class HoldingException extends StorageException
{
    public mixed $held = null;
    public function __destruct() { echo "exception freed\n"; }
}

foreach (['since', 'until'] as $parameter) {
    $date = new HoldingDate('@1800000000');
    $status = $parameter === 'since'
        ? new CircuitStatus(service: 'payments', state: State::Open, since: $date)
        : new CircuitStatus(service: 'payments', state: State::Open, until: $date, remaining: 1.0);
    $date->held = $status;
    unset($date, $status);
    $collected = gc_collect_cycles();
    echo "$parameter: ", $collected > 0 ? 'collected' : 'NOT collected', "\n";
}
$exception = new HoldingException('down');
$event = new StorageFailed(service: 'payments', time: 1800000000.0, exception: $exception);
$exception->held = $event;
unset($exception, $event);
$collected = gc_collect_cycles();
echo 'StorageFailed: ', $collected > 0 ? 'collected' : 'NOT collected', "\n";
echo "end\n";
?>
--EXPECT--
date freed
since: collected
date freed
until: collected
exception freed
StorageFailed: collected
end
