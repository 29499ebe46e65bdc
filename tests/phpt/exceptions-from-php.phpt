--TEST--
The exceptions can be constructed, thrown and subclassed from PHP
--FILE--
<?php
use Zeusi\CircuitBreaker\Exception\CallNotPermittedException;
use Zeusi\CircuitBreaker\Exception\InvalidConfigurationException;
use Zeusi\CircuitBreaker\Exception\StorageException;

final class PaymentsDown extends CallNotPermittedException
{
    public function __construct()
    {
        parent::__construct('payments are down', 7);
        $this->service = 'payments';
        $this->state = Zeusi\CircuitBreaker\State::Open;
        $this->retryAfter = 3.0;
    }
}

try {
    throw new PaymentsDown();
} catch (CallNotPermittedException $e) {
    var_dump($e->getMessage(), $e->getCode(), $e->getService(), $e->getState(), $e->getRetryAfter(), $e->getLine());
}
$plain = new CallNotPermittedException('plain');
var_dump($plain->getService(), $plain->getState(), $plain->getRetryAfter());
$storage = new StorageException('redis down', 0, new RuntimeException('refused'));
var_dump($storage->getPrevious()->getMessage(), $storage instanceof RuntimeException);
$invalid = new InvalidConfigurationException('bad');
var_dump($invalid instanceof InvalidArgumentException);
?>
--EXPECT--
string(17) "payments are down"
int(7)
string(8) "payments"
enum(Zeusi\CircuitBreaker\State::Open)
float(3)
int(18)
string(0) ""
NULL
NULL
string(7) "refused"
bool(true)
bool(true)
