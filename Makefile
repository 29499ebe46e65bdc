# The two commands of the README: `make demo` and `make test`.
# Every target installs what it needs first (scripts/install-deps.sh): the
# build only its build dependencies, the tests and the demo their servers too.

PHP        ?= php
PHP_CONFIG ?= php-config
EXTENSION  := $(CURDIR)/build/circuit_breaker.so
# The same with the `testing` feature (Cargo.toml), for tests/testing/ only,
# built in a cargo target directory of its own: with one, every switch of
# the feature would rebuild this crate.
TESTING_EXTENSION := $(CURDIR)/build/testing/circuit_breaker.so
TESTING_TARGET    := $(CURDIR)/target/with-testing
# The PHP the extension is built for. ext-php-rs reads PHP_CONFIG and PHP;
# every cargo command here, and the phpize build in ext/, give it the same
# absolute paths, so that none of them regenerates the others' bindings.
CARGO      = PHP_CONFIG="$$(command -v $(PHP_CONFIG))" PHP="$$($(PHP_CONFIG) --php-binary)" cargo

# PHP 8.4 (NTS), tested beside Debian 12's 8.2: Debian 13's php8.4 source,
# built once into a cache outside the checkout (scripts/php84.sh). Its
# extension has a cargo target directory of its own: the two PHPs' bindings
# differ, and one build would regenerate the other's. It starts from the
# 8.2 builds' crates (scripts/seed-target.sh): only ext-php-rs, whose
# bindings are 8.4's, and this crate are compiled again.
PHP84_PREFIX  := $(shell scripts/php84.sh --prefix)
PHP84         := $(PHP84_PREFIX)/bin/php
PHP84_CONFIG  := $(PHP84_PREFIX)/bin/php-config
EXTENSION84   := $(CURDIR)/build/php8.4/circuit_breaker.so
CARGO84        = PHP_CONFIG="$(PHP84_CONFIG)" PHP="$(PHP84)" CARGO_TARGET_DIR="$(CURDIR)/target/php8.4" cargo
# The test scripts run the PHP they find on PATH (php, php-config) and the
# php-fpm of PHP_FPM; CB_PHP_ONLY leaves out what no PHP takes part in (the
# conformance suite over Redis and Memcached), run once with 8.2.
WITH_PHP84     = env PATH="$(PHP84_PREFIX)/bin:$$PATH" PHP_FPM="$(PHP84_PREFIX)/sbin/php-fpm" CB_PHP_ONLY=1

.PHONY: deps deps-build build build-testing dist lint test test-core test-phpt test-integration test-install valgrind demo demo-cli bench install clean
.PHONY: php84 build84 dist84 lint84 test84 test-phpt84 test-integration84

deps:
	@scripts/install-deps.sh

deps-build:
	@scripts/install-deps.sh build

# `install` and not `cp`: a running php-fpm maps the old file, and writing
# into it in place crashes its workers.
build: deps-build
	$(CARGO) build --release
	@mkdir -p build
	install -m 0755 target/release/libcircuit_breaker.so $(EXTENSION)

# The extension with what only tests use (the `testing` feature:
# circuit_breaker_test_panic()), beside the one `make build` ships, which
# stays without it. Its target directory starts from the release build's
# dependencies (scripts/seed-target.sh), the same crates built the same way.
build-testing: build
	@scripts/seed-target.sh target/release $(TESTING_TARGET)/release
	CARGO_TARGET_DIR=$(TESTING_TARGET) $(CARGO) build --release --features testing
	@mkdir -p build/testing
	install -m 0755 $(TESTING_TARGET)/release/libcircuit_breaker.so $(TESTING_EXTENSION)

# The pre-packaged binary PIE downloads for this PHP, stripped, named as PIE
# expects (docs/releasing.md): dist/php_circuit_breaker-VERSION_phpX.Y-ARCH-linux-LIBC-nts.zip.
DIST_DIR ?= $(CURDIR)/dist
dist: build
	PHP_CONFIG="$$(command -v $(PHP_CONFIG))" scripts/dist.sh $(EXTENSION) $(DIST_DIR)

php84:
	@scripts/php84.sh

build84: php84 deps-build
	@scripts/seed-target.sh target/release target/php8.4/release
	$(CARGO84) build --release
	@mkdir -p build/php8.4
	install -m 0755 target/php8.4/release/libcircuit_breaker.so $(EXTENSION84)

dist84: build84
	PHP_CONFIG="$(PHP84_CONFIG)" scripts/dist.sh $(EXTENSION84) $(DIST_DIR)

# Formatting and every clippy warning fail the test run.
lint: deps-build
	cargo fmt --check
	$(CARGO) clippy --all-targets -- -D warnings
	$(CARGO) clippy --all-targets --no-default-features -- -D warnings

test-core: deps-build
	cargo test --no-default-features

test-phpt: deps build build-testing
	scripts/run-phpt.sh $(EXTENSION)
	scripts/run-phpt.sh $(TESTING_EXTENSION) tests/testing testing
	scripts/run-phpt.sh $(EXTENSION) tests/http http
	scripts/run-phpt.sh $(EXTENSION) tests/integrations integrations

# Real servers (php-fpm, redis-server standalone, TLS and cluster, memcached) on free loopback ports.
# Each script runs under no-leftovers.php, which fails when a process it
# started is still running once it ended; demo-leftovers.sh does the same
# for `make demo`, to its end and interrupted.
NO_LEFTOVERS = $(PHP) -d ffi.enable=1 tests/integration/no-leftovers.php
test-integration: deps build
	$(NO_LEFTOVERS) tests/integration/fpm-shared-memory.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/fpm-pool-extension.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/fpm-named-segment.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/fpm-cli.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/fpm-exit.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/fpm-bulkhead.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/fpm-metrics.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/fpm-http.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/fpm-http-pools.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/redis.sh $(EXTENSION)
	$(NO_LEFTOVERS) tests/integration/memcached.sh $(EXTENSION)
	tests/integration/demo-leftovers.sh $(EXTENSION)

# The same suites on PHP 8.4: the phpt tests (those needing Debian's
# phpredis or php-memcached, packaged for 8.2 only, skip), and the php-fpm,
# Redis and Memcached ones.
test-phpt84: deps build84
	$(WITH_PHP84) scripts/run-phpt.sh $(EXTENSION84) tests/phpt phpt-8.4
	$(WITH_PHP84) scripts/run-phpt.sh $(EXTENSION84) tests/http http-8.4
	$(WITH_PHP84) scripts/run-phpt.sh $(EXTENSION84) tests/integrations integrations-8.4

test-integration84: deps build84
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/fpm-shared-memory.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/fpm-pool-extension.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/fpm-named-segment.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/fpm-cli.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/fpm-exit.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/fpm-bulkhead.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/fpm-metrics.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/fpm-http.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/fpm-http-pools.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/redis.sh $(EXTENSION84)
	$(NO_LEFTOVERS) $(WITH_PHP84) tests/integration/memcached.sh $(EXTENSION84)

# clippy on PHP 8.4's bindings too (the core without PHP is the same).
lint84: php84 deps-build
	@scripts/seed-target.sh target/debug target/php8.4/debug
	$(CARGO84) clippy --all-targets -- -D warnings

test84: lint84 test-phpt84 test-integration84

test: lint test-core test-phpt test-integration test-install test84

# The phpt suite under valgrind: fails on any invalid read or write. Slow
# (several minutes), so not part of `make test`.
valgrind: build
	@scripts/install-deps.sh valgrind
	scripts/valgrind-phpt.sh $(EXTENSION)

# The main job: PHP-FPM workers calling a failing upstream, with and without
# the breaker; writes build/demo/demo.svg.
demo: deps build
	demo/run.sh $(EXTENSION)

# A 3-second breaker in one CLI process.
demo-cli: build
	$(PHP) -n -d extension=$(EXTENSION) examples/cli-demo.php

bench: deps build
	bench/run.sh $(EXTENSION)

# Installs the extension, its stubs and, on Debian and Ubuntu, the ini file
# that `phpenmod circuit_breaker` enables; nothing else. DESTDIR (or
# INSTALL_ROOT) stages it; PHP_CONFIG picks the PHP.
DESTDIR       ?= $(INSTALL_ROOT)
MODS_AVAILABLE = $(shell d=$$($(PHP_CONFIG) --ini-dir 2>/dev/null); d=$${d%/*/conf.d}/mods-available; [ -d "$$d" ] && echo "$$d")

install: build
	install -D -m 0755 $(EXTENSION) $(DESTDIR)$$($(PHP_CONFIG) --extension-dir)/circuit_breaker.so
	install -D -m 0644 php-stubs/circuit_breaker.php $(DESTDIR)$$($(PHP_CONFIG) --prefix)/share/php/circuit_breaker/circuit_breaker.stub.php
	$(if $(MODS_AVAILABLE),install -D -m 0644 ext/circuit_breaker.ini $(DESTDIR)$(MODS_AVAILABLE)/circuit_breaker.ini)

# `make install` into a scratch root, and the PIE build (phpize, configure,
# make, make install in ext/) of a scratch copy of the sources.
test-install: build
	tests/install/install.sh

clean:
	cargo clean
	rm -rf build dist
