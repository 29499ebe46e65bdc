dnl The build that phpize and PIE run: `phpize && ./configure && make && make install`
dnl in this directory. The extension is Rust: `make` runs cargo on the crate one
dnl directory up and leaves the library where phpize's install rule takes it,
dnl modules/circuit_breaker.so.

PHP_ARG_ENABLE([circuit-breaker],
  [whether to build the circuit_breaker extension],
  [AS_HELP_STRING([--disable-circuit-breaker], [Do not build the circuit_breaker extension])],
  [yes], [no])

PHP_ARG_WITH([cargo],
  [for the cargo to build with],
  [AS_HELP_STRING([--with-cargo=PATH], [The cargo binary (default: cargo on PATH, then ~/.cargo/bin/cargo)])],
  [no], [no])

if test "$PHP_CIRCUIT_BREAKER" != "no"; then
  if test "$PHP_CARGO" != "no" && test "$PHP_CARGO" != "yes"; then
    CARGO="$PHP_CARGO"
  else
    AC_PATH_PROG([CARGO], [cargo], [no], [$PATH:$HOME/.cargo/bin])
  fi
  if test "$CARGO" = "no" || test ! -x "$CARGO"; then
    AC_MSG_ERROR([cargo was not found: install a Rust toolchain, 1.88 or later (rustup), or pass --with-cargo=PATH])
  fi

  AC_MSG_CHECKING([that PHP is not thread-safe (ZTS is not supported yet)])
  if test "`$PHP_EXECUTABLE -n -r 'echo PHP_ZTS;' 2>/dev/null`" = "1"; then
    AC_MSG_RESULT([no])
    AC_MSG_ERROR([circuit_breaker does not support ZTS builds of PHP yet])
  fi
  AC_MSG_RESULT([yes])

  AC_MSG_CHECKING([for libclang, which the PHP bindings are generated with])
  circuit_breaker_libclang="$LIBCLANG_PATH"
  for candidate in /usr/lib/llvm-*/lib/libclang*.so* /usr/lib/libclang*.so* /usr/lib/*/libclang*.so*; do
    test -f "$candidate" && circuit_breaker_libclang="$candidate"
  done
  if test -n "$circuit_breaker_libclang"; then
    AC_MSG_RESULT([yes])
  else
    AC_MSG_RESULT([no])
    AC_MSG_ERROR([libclang was not found: install libclang-dev (Debian, Ubuntu) or clang-devel, or set LIBCLANG_PATH])
  fi

  CIRCUIT_BREAKER_CRATE=`cd "$abs_srcdir/.." && pwd`
  dnl ext-php-rs reads PHP_CONFIG and PHP: give it absolute paths, the same
  dnl ones the project's own Makefile gives, so neither build redoes the other's.
  CIRCUIT_BREAKER_PHP_CONFIG=`command -v "$PHP_CONFIG"`
  PHP_SUBST([CARGO])
  PHP_SUBST([CIRCUIT_BREAKER_CRATE])
  PHP_SUBST([CIRCUIT_BREAKER_PHP_CONFIG])
  PHP_SUBST([PHP_EXECUTABLE])
  PHP_ADD_MAKEFILE_FRAGMENT([$abs_srcdir/Makefile.frag], [$abs_srcdir], [$abs_builddir])
fi
