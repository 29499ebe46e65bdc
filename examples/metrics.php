<?php
// /metrics for Prometheus, served by the php-fpm pool of the application
// (route it in the web server: `location = /metrics { fastcgi_pass ...;
// fastcgi_param SCRIPT_FILENAME /path/to/metrics.php; }`). It reads the
// shared-memory segment of the pool: one pass over it, no lock, nothing
// written, so a scrape costs the application's calls nothing.

use Zeusi\CircuitBreaker\Status\PrometheusExporter;
use Zeusi\CircuitBreaker\Storage\SharedMemoryStorage;

const STORAGE_PREFIX = 'shop:';     // the prefix the application's breakers use

$exporter = new PrometheusExporter(['host' => gethostname(), 'prefix' => STORAGE_PREFIX]);
header('Content-Type: ' . PrometheusExporter::CONTENT_TYPE);
echo $exporter->render((new SharedMemoryStorage(STORAGE_PREFIX))->listCircuits());
