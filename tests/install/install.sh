#!/usr/bin/env bash
# What an administrator does: `make install DESTDIR=...` stages the extension,
# its stubs and the Debian ini file, and nothing else; PIE's build (phpize,
# ./configure, make, make install in ext/) of a scratch copy of the sources
# yields a module that PHP loads and that protects a call, and its own
# `make test` runs the phpt suite against it; `make dist` builds the archive PIE
# downloads, named as PIE names it, holding the stripped module.
# Prints "install: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0
check() { # check DESCRIPTION COMMAND...
    local description=$1; shift
    if "$@"; then passed=$((passed + 1)); echo "PASS $description"; else failed=$((failed + 1)); echo "FAIL $description"; fi
}

extension_dir=$(php-config --extension-dir)
prefix=$(php-config --prefix)
ini_dir=$(php-config --ini-dir)
mods_available=${ini_dir%/*/conf.d}/mods-available

# A scenario that needs the extension working: a failure opens the circuit.
smoke() { # smoke PATH/TO/circuit_breaker.so
    php -n -d "extension=$1" -r '
        use Zeusi\CircuitBreaker\{CircuitBreaker, Configuration, State};
        use Zeusi\CircuitBreaker\Opening\ConsecutiveFailuresRule;
        use Zeusi\CircuitBreaker\HalfOpen\PermittedCallsPolicy;
        use Zeusi\CircuitBreaker\Storage\InMemoryStorage;
        $breaker = new CircuitBreaker("smoke", new Configuration(60, [new ConsecutiveFailuresRule(1)], 10, new PermittedCallsPolicy(1, 1)), new InMemoryStorage());
        $breaker->registerFailure();
        exit($breaker->getState() === State::Open ? 0 : 1);'
}

# 1. make install DESTDIR=...
staged=$scratch/staged
make -s -C "$root" install DESTDIR="$staged" >"$scratch/install.log" 2>&1
check "make install DESTDIR succeeds" test $? -eq 0 || cat "$scratch/install.log"
expected=("$staged$extension_dir/circuit_breaker.so" "$staged$prefix/share/php/circuit_breaker/circuit_breaker.stub.php")
[ -d "$mods_available" ] && expected+=("$staged$mods_available/circuit_breaker.ini")
installed=$(cd / && find "$staged" -type f | sort)
want=$(printf '%s\n' "${expected[@]}" | sort)
check "make install stages the module, the stubs and the ini file, nothing else" test "$installed" = "$want"
[ "$installed" = "$want" ] || diff <(echo "$want") <(echo "$installed")
check "the staged module works" smoke "$staged$extension_dir/circuit_breaker.so"
check "the ini file loads circuit_breaker.so" grep -qx 'extension=circuit_breaker.so' "$staged$mods_available/circuit_breaker.ini"

# 2. PIE: phpize && ./configure && make && make install, in ext/ of a copy of
# the sources (tracked and new files, as a package would hold them).
copy=$scratch/copy
mkdir -p "$copy"
(cd "$root" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) | tar -xf - -C "$copy"
# Its own target directory: cargo would take this checkout's artifacts as fresh
# for the copy, and the copy's sources would never be compiled. It starts
# from this checkout's dependencies, without this crate (seed-target.sh):
# the copy's sources are compiled, the same dependencies are not again.
"$root/scripts/seed-target.sh" "$root/target/release" "$scratch/target/release"
(cd "$copy/ext" && phpize && ./configure && CARGO_TARGET_DIR="$scratch/target" make && make install INSTALL_ROOT="$scratch/pie") \
    >"$scratch/pie.log" 2>&1
status=$?
check "phpize, ./configure, make, make install succeed" test $status -eq 0 || tail -30 "$scratch/pie.log"
check "the PIE build compiles the copy's sources" grep -q "Compiling circuit_breaker v.* ($copy)" "$scratch/pie.log"
check "the PIE build installs modules/circuit_breaker.so" test -f "$scratch/pie$extension_dir/circuit_breaker.so"
check "the PIE-built module works" smoke "$scratch/pie$extension_dir/circuit_breaker.so"
check "the PIE build installs the stubs" test -f "$scratch/pie$prefix/share/php/circuit_breaker/circuit_breaker.stub.php"
# The PIE build's own `make test`: the phpt suite against modules/circuit_breaker.so.
(cd "$copy/ext" && NO_INTERACTION=1 REPORT_EXIT_STATUS=1 CARGO_TARGET_DIR="$scratch/target" make test) >"$scratch/make-test.log" 2>&1
status=$?
phpt_count=$(find "$root/tests/phpt" -name '*.phpt' | wc -l)
check "make test of the PIE build passes" test $status -eq 0 || grep -E '^(FAIL|SKIP)' "$scratch/make-test.log" | head -20
check "make test of the PIE build runs every phpt of tests/phpt" \
    grep -Eq "^Number of tests : *$phpt_count " "$scratch/make-test.log"
check "make test of the PIE build fails none" grep -Eq '^Tests failed +: +0 ' "$scratch/make-test.log"

# 3. make dist: php_circuit_breaker-VERSION_phpX.Y-ARCH-linux-LIBC-nts.zip, as
# PIE's PrePackagedBinaryAssetName names it for this PHP.
version=$(sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$root/Cargo.toml")
want_name=$(php -n -r '
    $arch = ["x86_64" => "x86_64", "aarch64" => "arm64"][php_uname("m")] ?? php_uname("m");
    printf("php_circuit_breaker-%s_php%d.%d-%s-linux-glibc%s%s.zip", $argv[1], PHP_MAJOR_VERSION, PHP_MINOR_VERSION,
        $arch, PHP_DEBUG ? "-debug" : "", PHP_ZTS ? "-zts" : "-nts");' "$version")
make -s -C "$root" dist DIST_DIR="$scratch/dist" >"$scratch/dist.log" 2>&1
check "make dist succeeds" test $? -eq 0 || cat "$scratch/dist.log"
check "make dist builds one archive, named as PIE expects ($want_name)" \
    test "$(ls "$scratch/dist")" = "$want_name"
mkdir -p "$scratch/unzipped"
unzip -q "$scratch/dist/$want_name" -d "$scratch/unzipped"
check "the archive holds circuit_breaker.so, nothing else" test "$(cd "$scratch/unzipped" && find . -type f)" = "./circuit_breaker.so"
check "the archived module is stripped" test -z "$(readelf -S "$scratch/unzipped/circuit_breaker.so" | grep -E '\.symtab|\.debug_')"
check "the archived module is smaller than the built one" \
    test "$(stat -c %s "$scratch/unzipped/circuit_breaker.so")" -lt "$(stat -c %s "$root/build/circuit_breaker.so")"
check "the archived module works" smoke "$scratch/unzipped/circuit_breaker.so"
check "the archived module's version is the archive's" \
    test "$(php -n -d "extension=$scratch/unzipped/circuit_breaker.so" -r 'echo phpversion("circuit_breaker");')" = "$version"
check "composer.json asks PIE for the binary first, the source build as fallback" php -r '
    $package = json_decode(file_get_contents($argv[1]), true, flags: JSON_THROW_ON_ERROR);
    exit($package["php-ext"]["download-url-method"] === ["pre-packaged-binary", "composer-default"] ? 0 : 1);' "$root/composer.json"
check "composer.json declares the extension for PIE" php -r '
    $package = json_decode(file_get_contents($argv[1]), true, flags: JSON_THROW_ON_ERROR);
    exit($package["type"] === "php-ext" && $package["php-ext"]["extension-name"] === "circuit_breaker"
        && $package["php-ext"]["build-path"] === "ext" && $package["php-ext"]["support-zts"] === false ? 0 : 1);' "$root/composer.json"

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
