#!/usr/bin/env bash
# PHP 8.4 (NTS) for the tests beside Debian 12's PHP 8.2: Debian 13's php8.4
# source package, built once into a cache directory outside the checkout and
# reused on later runs.
#   php84.sh --prefix   prints where it is (or will be) installed
#   php84.sh            builds it there unless a complete build is already there
#
# The cache: ${CIRCUIT_BREAKER_CACHE:-$HOME/.cache/circuit-breaker}/php-VERSION.
# A build is complete only once its marker file (.complete, holding the
# configure options) is written, last: an interrupted build is thrown away,
# and so is one made with other options.
set -euo pipefail

# Debian 13.0's php8.4. The trixie index names a newer point release, but
# the mirror reachable here serves the files of this one only; pinning it
# also keeps the cache valid until this line changes. The .dsc is checked
# against this hash, and dpkg-source checks the tarballs against the .dsc.
debian_version=8.4.11-1
dsc_sha256=497332f6aa8c1db08fb4d2e8e047eccd4c403654a1cd3a69791692d7cd8e71ae
version=${debian_version%-*}
pool=http://deb.debian.org/debian/pool/main/p/php8.4
cache=${CIRCUIT_BREAKER_CACHE:-$HOME/.cache/circuit-breaker}
prefix=$cache/php-$debian_version

if [ "${1:-}" = --prefix ]; then
    echo "$prefix"
    exit 0
fi

# What the tests use and nothing more, built in or shared as Debian's PHP
# 8.2 has them, so that `php -n` loads the same and a test's --EXTENSIONS--
# the same files: the CLI and FPM; pcntl (the fork tests), posix and FFI
# (no-leftovers.php), curl (tests/http), openssl (the TLS Redis tests' own
# client), sockets, opcache (fpm-pool-extension.sh loads it; its JIT is
# left out, the longest part of the build), and what the Guzzle, Symfony
# and PSR packages of tests/integrations need (ctype, filter, tokenizer).
# json, pcre, hash, random and spl are always built in.
options=(
    --prefix="$prefix"
    --disable-all --disable-cgi --disable-phpdbg
    --enable-cli --enable-fpm
    --enable-pcntl --enable-filter --with-openssl
    --with-curl=shared --with-ffi=shared --enable-posix=shared --enable-sockets=shared
    --enable-ctype=shared --enable-tokenizer=shared
    --enable-opcache --disable-opcache-jit
    --with-config-file-path="$prefix/etc"
)
# Debian's PHP libraries (Guzzle, Symfony, the PSR packages of tests/http and
# tests/integrations) load one another through the include path, which
# Debian's PHP starts as ".:/usr/share/php": configure takes that default
# from PEAR_INSTALLDIR, left unset without PEAR.
environment=(PEAR_INSTALLDIR=/usr/share/php)
marker=$prefix/.complete

complete() { [ -f "$marker" ] && [ "$(cat "$marker")" = "${environment[*]} ${options[*]}" ]; }

mkdir -p "$cache"
# Two runs on one machine build it once: the second waits for the first.
exec 9> "$cache/php-$debian_version.lock"
flock 9
if complete; then
    exit 0
fi

"$(dirname "$0")/install-deps.sh" php84
echo "Building PHP $debian_version into $prefix (once: later runs reuse it)"
started=$SECONDS
work=$cache/php-$debian_version.build
rm -rf "$prefix" "$work"
mkdir -p "$work"
cd "$work"
# apt's own downloader, with the hashes checked as apt checks them; the
# system's apt lists are left as they are.
/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file "$pool/php8.4_$debian_version.dsc" "php8.4_$debian_version.dsc" "SHA256:$dsc_sha256"
sed -n '/^Checksums-Sha256:/,/^[^ ]/s/^ \([0-9a-f]\{64\}\) [0-9]* \(.*\)$/\1 \2/p' "php8.4_$debian_version.dsc" |
    while read -r sha256 file; do
        /usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file "$pool/$file" "$file" "SHA256:$sha256"
    done
# PHP's own sources as upstream released them: Debian's patches adapt PHP to
# Debian's packaging (paths, system libraries) that this build does not use.
dpkg-source --skip-patches -x "php8.4_$debian_version.dsc" source > /dev/null
cd source
env "${environment[@]}" ./configure "${options[@]}" > "$work/configure.log" 2>&1 || { tail -40 "$work/configure.log"; exit 1; }
make -j"$(nproc)" > "$work/make.log" 2>&1 || { tail -40 "$work/make.log"; exit 1; }
make install > "$work/install.log" 2>&1 || { tail -40 "$work/install.log"; exit 1; }
# The phpt runner of this PHP, where php-config's --prefix finds it.
install -D -m 0644 run-tests.php "$prefix/lib/php/build/run-tests.php"
# The build tree stays, beside the install: removing its thousands of files
# takes minutes on a disk that discards on unlink, and a rebuild removes it.
printf '%s' "${environment[*]} ${options[*]}" > "$marker"
echo "PHP $debian_version built in $((SECONDS - started)) s"
