#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine, and nothing when
# it is already there. Safe to run again.
#   install-deps.sh build   what building the extension needs
#   install-deps.sh valgrind  that, and valgrind (make valgrind)
#   install-deps.sh php84   what building PHP 8.4 from source needs (scripts/php84.sh)
#   install-deps.sh         that, and the servers the tests and the demo start
set -euo pipefail

packages=(build-essential php8.2-dev php8.2-cli libclang-dev)
case "${1:-all}" in
    build) ;;
    valgrind) packages+=(valgrind) ;;
    # Bookworm's libraries for the extensions scripts/php84.sh builds;
    # dpkg-dev unpacks the Debian source package.
    php84) packages=(build-essential pkg-config dpkg-dev xz-utils libssl-dev libcurl4-openssl-dev libffi-dev) ;;
    # php8.2-redis and php8.2-memcached: the tests that build storages from
    # the clients an application already has (phpredis, php-memcached);
    # php8.2-curl, Guzzle, Symfony HttpClient and the PSR packages: the HTTP
    # guard's tests, with the clients applications use; with the PSR-7, PSR-17
    # and PSR-3 packages, the tests of integrations/.
    *) packages+=(php8.2-fpm libfcgi-bin redis-server redis-sentinel redis-tools memcached openssl php8.2-redis php8.2-memcached php8.2-curl php-guzzlehttp-guzzle php-symfony-http-client php-nyholm-psr7 php-psr-http-client php-psr-http-message php-psr-http-factory php-psr-log) ;;
esac
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "Installing: ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo is missing: install Rust (1.88 or later) with rustup" >&2
    exit 1
fi
