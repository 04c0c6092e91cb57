// The memory of an exception the shim's own C++ code throws, taken from malloc when it is thrown.
//
// Why: libstdc++ is linked into the shim statically (shim/CMakeLists.txt). Left to the linker,
// the shim's copy brings libstdc++'s eh_alloc.o, whose static constructor mallocs an emergency
// pool (about 72 KiB, for exceptions thrown while malloc fails) when the shim is loaded: in every
// host the shim is preloaded into, before the host's main, whether or not anything ever throws.
// For a C host that never allocated, that is its first malloc (the heap's brk, the tcache's
// getrandom) and a page or two of heap (docs/bench.md, "Nothing written at load").
//
// So the shim defines the four functions of the Itanium C++ ABI (section 2.4) that libstdc++'s
// throw, rethrow and exception_ptr code call for that memory, and the linker takes them instead
// of eh_alloc.o. They do what libstdc++'s do when its pool is not needed: malloc the header and
// the object together, header zeroed, and free them.
//  - They are hidden (not in exports.map), so only the shim's copy of libstdc++ binds to them:
//    an exception the host throws is allocated and freed by the host's runtime, also when it
//    crosses the shim's frames (its cleanup is the thrower's, _Unwind_DeleteException).
//  - An exception_ptr the shim releases frees through __cxa_free_exception, whichever runtime
//    allocated the object: libstdc++'s own copy does the same (its pool is its own, and memory
//    outside it goes to free), so nothing changes there.
//  - Without a pool, a throw while malloc fails calls std::terminate, which libstdc++ does too
//    once its pool is spent. The shim allocates an exception only on a caller's thread: where it
//    hands a task's exception back to its caller (std::rethrow_exception, a dependent header), or
//    where libstdc++ throws for it (std::bad_alloc); a worker only catches and stores.
#include <unwind.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace {

// The headers the ABI puts before every thrown object, spelled from its field lists so that their
// sizes are computed, not copied. Only the sizes are used: libstdc++ fills the fields.
// The fields both headers share, the unwinder's header last.
struct SharedFields {
  void (*unexpected_handler)();
  void (*terminate_handler)();
  void* next_exception;
  int handler_count;
  int handler_switch_value;
  const unsigned char* action_record;
  const unsigned char* language_specific_data;
  void* catch_temp;
  void* adjusted_ptr;
  _Unwind_Exception unwind_header;
};
struct CxaException {  // __cxa_exception
  void* exception_type;
  void (*exception_destructor)(void*);
  SharedFields shared;
};
struct RefcountedException {  // libstdc++'s __cxa_refcounted_exception
  int reference_count;
  CxaException exception;
};
// __cxa_dependent_exception (std::rethrow_exception's header): the primary exception's address
// for the type, and the destructor's slot unused, so the shared fields sit where they sit above.
struct DependentException {
  void* primary_exception;
  void (*unused)(void*);
  SharedFields shared;
};

#if defined(__x86_64__) || defined(__aarch64__)
// The sizes libstdc++ is built with on the 64-bit targets (its unwind-cxx.h).
static_assert(sizeof(RefcountedException) == 128, "libstdc++'s exception header is 128 bytes");
static_assert(sizeof(DependentException) == 112, "libstdc++'s dependent header is 112 bytes");
#endif

void* zeroed_block(std::size_t size) {
  void* block = std::malloc(size);
  if (block == nullptr) std::terminate();  // what libstdc++ does once its pool is spent
  std::memset(block, 0, size);
  return block;
}

}  // namespace

extern "C" {

void* __cxa_allocate_exception(std::size_t thrown_size) noexcept {
  auto* header = static_cast<char*>(zeroed_block(thrown_size + sizeof(RefcountedException)));
  return header + sizeof(RefcountedException);
}

void __cxa_free_exception(void* thrown_object) noexcept {
  std::free(static_cast<char*>(thrown_object) - sizeof(RefcountedException));
}

// Returns the header itself: libstdc++ finds the object through primary_exception.
void* __cxa_allocate_dependent_exception() noexcept {
  return zeroed_block(sizeof(DependentException));
}

void __cxa_free_dependent_exception(void* header) noexcept { std::free(header); }

}  // extern "C"
