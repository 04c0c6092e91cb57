// Thread-local storage on hot paths. In a shared library the default TLS model goes through
// __tls_get_addr on every access (several calls per task item in the pool). initial-exec
// makes each access one %fs-relative load; it needs the shim's TLS block in the static TLS area,
// which is where it is when the shim is preloaded or linked, and glibc's surplus covers the few
// bytes when a program dlopen()s it later.
#pragma once

#define POOLSHIM_FAST_TLS __attribute__((tls_model("initial-exec")))
