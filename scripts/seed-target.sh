#!/usr/bin/env bash
# A cargo target directory's profile (FROM, such as target/release) copied to
# TO without this crate's own artifacts, so that a build in TO compiles this
# crate and takes the dependencies as FROM compiled them, as a warm cache
# would: cargo's fingerprints still decide, and rebuild whatever is stale
# (cargo also moves the build scripts' output paths to TO; a build for
# another PHP reruns ext-php-rs' build script, which reads PHP_CONFIG, and
# compiles ext-php-rs again). The separate builds of the same sources (the
# `testing` feature's, the PIE build's, PHP 8.4's) would otherwise compile
# every dependency again, one to three minutes each.
# Does nothing when TO exists already or FROM has not been built.
#   seed-target.sh FROM TO
set -euo pipefail
from=${1:?usage: seed-target.sh FROM TO}
to=${2:?usage: seed-target.sh FROM TO}
if [ -e "$to" ] || [ ! -d "$from/deps" ]; then
    exit 0
fi
mkdir -p "$(dirname "$to")"
# Copied aside and moved in place last: an interrupted copy is not taken for
# a seeded directory by the next run.
partial=$to.partial.$$
trap 'rm -rf "$partial"' EXIT
cp -a "$from" "$partial"
rm -rf "$partial"/.fingerprint/circuit_breaker-* "$partial"/build/circuit_breaker-* \
    "$partial"/deps/*circuit_breaker* "$partial"/libcircuit_breaker.* "$partial"/incremental
mv "$partial" "$to"
