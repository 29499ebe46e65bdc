# Appended to the Makefile that phpize's configure writes (see config.m4).

CARGO_TARGET_DIR ?= $(CIRCUIT_BREAKER_CRATE)/target
STUBS_DIR = $(prefix)/share/php/circuit_breaker

all: modules/circuit_breaker.so

# cargo decides what to rebuild; the PHP it binds to is the one of php-config.
modules/circuit_breaker.so: FORCE
	PHP_CONFIG="$(CIRCUIT_BREAKER_PHP_CONFIG)" PHP="$(PHP_EXECUTABLE)" $(CARGO) build --release --locked \
		--manifest-path "$(CIRCUIT_BREAKER_CRATE)/Cargo.toml" --target-dir "$(CARGO_TARGET_DIR)"
	@mkdir -p modules
	install -m 0755 "$(CARGO_TARGET_DIR)/release/libcircuit_breaker.so" $@

install: install-circuit-breaker-stubs

install-circuit-breaker-stubs:
	$(mkinstalldirs) $(INSTALL_ROOT)$(STUBS_DIR)
	$(INSTALL_DATA) $(CIRCUIT_BREAKER_CRATE)/php-stubs/circuit_breaker.php $(INSTALL_ROOT)$(STUBS_DIR)/circuit_breaker.stub.php

# `make test` runs the phpt suite of the crate (tests/phpt) against the module
# just built: the tests live beside the sources, not in this directory, and
# cargo leaves no .la file for phpize's rule to find the module by. The
# error log's periodic lines are off, as in scripts/run-phpt.sh.
TESTS = $(CIRCUIT_BREAKER_CRATE)/tests/phpt
PHP_TEST_SHARED_EXTENSIONS = -d extension=$(top_builddir)/modules/circuit_breaker.so -d circuit_breaker.log_interval=0

FORCE:
.PHONY: FORCE install-circuit-breaker-stubs
