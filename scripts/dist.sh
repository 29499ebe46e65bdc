#!/usr/bin/env bash
# The pre-packaged binary PIE downloads for the PHP of php-config: a zip named
# as PIE's PrePackagedBinaryAssetName names it,
#   php_circuit_breaker-VERSION_phpX.Y-ARCH-linux-LIBC[-debug]-nts.zip
# (VERSION: Cargo.toml's, which the release tag repeats, v stripped), holding
# circuit_breaker.so stripped of its symbols at its root. A target with no
# such asset (another PHP version, musl, ZTS) falls back to PIE's source
# build (download-url-method in composer.json). See docs/releasing.md.
# Usage: dist.sh PATH/TO/circuit_breaker.so [OUTPUT_DIR (dist)]; prints the archive's path.
set -euo pipefail
module=${1:?usage: dist.sh PATH/TO/circuit_breaker.so [OUTPUT_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$root/dist}
php_config=${PHP_CONFIG:-php-config}
php=$("$php_config" --php-binary)

version=$(sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$root/Cargo.toml")
php_version=$("$php" -n -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;')
case $(uname -m) in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "dist.sh: no PIE asset name for the architecture $(uname -m)" >&2; exit 1 ;;
esac
if ldd --version 2>&1 | grep -qi musl; then libc=musl; else libc=glibc; fi
debug=$("$php" -n -r 'echo PHP_DEBUG ? "-debug" : "";')
if [ "$("$php" -n -r 'echo PHP_ZTS;')" = 1 ]; then
    echo "dist.sh: the extension does not support ZTS builds of PHP" >&2
    exit 1
fi
name="php_circuit_breaker-${version}_php${php_version}-${arch}-linux-${libc}${debug}-nts.zip"

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
install -m 0755 "$module" "$staging/circuit_breaker.so"
strip --strip-all "$staging/circuit_breaker.so"
mkdir -p "$out"
rm -f "$out/$name"
(cd "$staging" && zip -q -X "$out/$name" circuit_breaker.so)
echo "$out/$name"
