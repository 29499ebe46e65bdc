#!/bin/sh

export NO_INTERACTION='1'
export REPORT_EXIT_STATUS='1'
export SHELL='/bin/bash'
export IS_SANDBOX='yes'
export CB_REDIS_FAULTY_CLUSTER_PIDS='29313,29324,29335'
export PYTHONUNBUFFERED='1'
export CB_REDIS_RESTART_PORT='35515'
export CB_REDIS_ADDRESS='127.0.0.1:44251'
export TF_CLI_CONFIG_FILE='/root/.terraformrc'
export CB_REDIS_TLS_DSN='rediss://127.0.0.1:43287'
export NODE_EXTRA_CA_CERTS='/etc/ssl/certs/ca-certificates.crt'
export CB_REDIS_FAULTY_CLUSTER='redis://127.0.0.1:43715,redis://127.0.0.1:37637,redis://127.0.0.1:42823'
export CB_REDIS_DSN='redis://:test-secret@127.0.0.1:44251'
export CONTAINER_NAME='past-watch-bkrjnd-drttgr'
export PWD='/work/wt/redis'
export CB_REDIS_PASSWORD='test-secret'
export CB_REDIS_CLUSTER='redis://127.0.0.1:33731,redis://127.0.0.1:39907,redis://127.0.0.1:35315'
export HOME='/root'
export GIT_SSL_CAINFO='/etc/ssl/certs/ca-certificates.crt'
export LANG='C.UTF-8'
export CB_REDIS_FREE_PORT='42985'
export CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE='/etc/ssl/certs/ca-certificates.crt'
export SSL_CERT_DIR='/etc/ssl/certs'
export NIX_SSL_CERT_FILE='/etc/ssl/certs/ca-certificates.crt'
export PIP_DEFAULT_TIMEOUT='180'
export TERM='xterm'
export RUSTUP_AUTO_INSTALL='0'
export CURL_CA_BUNDLE='/etc/ssl/certs/ca-certificates.crt'
export PIP_DISABLE_PIP_VERSION_CHECK='1'
export SHLVL='3'
export CB_REDIS_SLOW_PORT='32913'
export PYTHONDONTWRITEBYTECODE='1'
export CLOUD_SDK_VERSION='528.0.0'
export SSL_CERT_FILE='/tmp/tmp.ayrov1fC6h/ca.crt'
export CB_REDIS_PID='29215'
export NVPL_BLAS_DEBUG_CPU_TYPE='1'
export PYENV_ROOT='/root/.pyenv'
export PIP_CERT='/etc/ssl/certs/ca-certificates.crt'
export REQUESTS_CA_BUNDLE='/etc/ssl/certs/ca-certificates.crt'
export AWS_CA_BUNDLE='/etc/ssl/certs/ca-certificates.crt'
export PIP_FIND_LINKS='/opt/wheels'
export PATH='/root/.cargo/bin:/root/.cargo/bin:/root/.pyenv/plugins/pyenv-virtualenv/shims:/root/.pyenv/shims:/root/.pyenv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
export HTTPLIB2_CA_CERTS='/etc/ssl/certs/ca-certificates.crt'
export RUST_BACKTRACE='1'
export GRPC_DEFAULT_SSL_ROOTS_FILE_PATH='/etc/ssl/certs/ca-certificates.crt'
export DEBIAN_FRONTEND='noninteractive'
export OLDPWD='/work/wt/redis'
export _='/usr/bin/php'
export SSH_CLIENT='deleted'
export SSH_AUTH_SOCK='deleted'
export SSH_TTY='deleted'
export SSH_CONNECTION='deleted'
export TEMP='/tmp'
export TEST_PHP_EXECUTABLE='/usr/bin/php'
export TEST_PHP_CGI_EXECUTABLE=''
export TEST_PHPDBG_EXECUTABLE=''
export REDIRECT_STATUS='1'
export QUERY_STRING=''
export PATH_TRANSLATED='/work/wt/redis/tests/redis/cluster-node-down.php'
export SCRIPT_FILENAME='/work/wt/redis/tests/redis/cluster-node-down.php'
export REQUEST_METHOD='GET'
export CONTENT_TYPE=''
export CONTENT_LENGTH=''
export TZ=''
export TEST_PHP_EXTRA_ARGS=' -n  -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/work/baseline/circuit_breaker.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "opcache.preload_user=root"'
export HTTP_COOKIE=''

case "$1" in
"gdb")
    gdb --args /usr/bin/php  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/work/baseline/circuit_breaker.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "opcache.preload_user=root" -f "/work/wt/redis/tests/redis/cluster-node-down.php"  2>&1
    ;;
"lldb")
    lldb -- /usr/bin/php  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/work/baseline/circuit_breaker.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "opcache.preload_user=root" -f "/work/wt/redis/tests/redis/cluster-node-down.php"  2>&1
    ;;
"valgrind")
    USE_ZEND_ALLOC=0 valgrind $2 /usr/bin/php  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/work/baseline/circuit_breaker.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "opcache.preload_user=root" -f "/work/wt/redis/tests/redis/cluster-node-down.php"  2>&1
    ;;
"rr")
    rr record $2 /usr/bin/php  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/work/baseline/circuit_breaker.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "opcache.preload_user=root" -f "/work/wt/redis/tests/redis/cluster-node-down.php"  2>&1
    ;;
*)
    /usr/bin/php  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/work/baseline/circuit_breaker.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "opcache.preload_user=root" -f "/work/wt/redis/tests/redis/cluster-node-down.php"  2>&1
    ;;
esac