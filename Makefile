# The two commands of the README: `make demo` and `make test`.
# Every target installs what it needs first (scripts/install-deps.sh).

PHP        ?= php
EXTENSION  := $(CURDIR)/build/circuit_breaker.so

.PHONY: deps build lint test test-core test-phpt test-integration valgrind demo demo-cli bench install clean

deps:
	@scripts/install-deps.sh

# `install` and not `cp`: a running php-fpm maps the old file, and writing
# into it in place crashes its workers.
build: deps
	cargo build --release
	@mkdir -p build
	install -m 0755 target/release/libcircuit_breaker.so $(EXTENSION)

# Formatting and every clippy warning fail the test run.
lint: deps
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --all-targets --no-default-features -- -D warnings

test-core: deps
	cargo test --no-default-features

test-phpt: build
	scripts/run-phpt.sh $(EXTENSION)

# Real servers (php-fpm, redis-server standalone, TLS and cluster, memcached) on free loopback ports.
test-integration: build
	tests/integration/fpm-shared-memory.sh $(EXTENSION)
	tests/integration/fpm-exit.sh $(EXTENSION)
	tests/integration/redis.sh $(EXTENSION)
	tests/integration/memcached.sh $(EXTENSION)

test: lint test-core test-phpt test-integration

# The phpt suite under valgrind: fails on any invalid read or write. Slow
# (several minutes), so not part of `make test`.
valgrind: build
	scripts/valgrind-phpt.sh $(EXTENSION)

# The main job: PHP-FPM workers calling a failing upstream, with and without
# the breaker; writes build/demo/demo.svg.
demo: build
	demo/run.sh $(EXTENSION)

# A 3-second breaker in one CLI process.
demo-cli: build
	$(PHP) -n -d extension=$(EXTENSION) examples/cli-demo.php

bench: build
	bench/run.sh $(EXTENSION)

install: build
	install -m 0755 $(EXTENSION) $$(php-config --extension-dir)/circuit_breaker.so

clean:
	cargo clean
	rm -rf build
