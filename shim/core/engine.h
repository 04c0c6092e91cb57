// The engine: Debian's pthreadpool (libpthreadpool.so.0), opened privately so that none of its
// symbols enter the global scope (DESIGN.md section 4: a normally linked engine would interpose
// the private pthreadpool copies of legacy modules, with a different struct layout).
#pragma once
#include <cstddef>
#include <cstdint>

namespace poolshim::core::engine {

struct Api {
  void* (*create)(size_t threads);
  void (*destroy)(void* pool);
  size_t (*threads_count)(void* pool);
  void (*parallelize_1d)(void* pool, void (*task)(void*, size_t), void* ctx, size_t range,
                         uint32_t flags);
};

// The bound engine, or nullptr when libpthreadpool.so.0 cannot be opened (then every call runs
// serially; the reason is logged once at warn). Binds on first call.
const Api* api();

}  // namespace poolshim::core::engine
