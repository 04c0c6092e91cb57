// One exported OpenMP entry point (a row of symbols/openmp.def) and where its calls go.
//
// Each row has an exported trampoline (trampolines.cpp) and one Entry (forward.cpp).
// The trampoline knows no signature: it jumps to entry.target with every argument register as
// the caller left it, so one piece of code serves all 321 functions, variadic or not. The first
// call of a row finds target empty and takes the slow path, which saves the argument registers,
// asks openmp_resolve() for the target, restores them and jumps.
//
// Who writes target: openmp_resolve() only, once per row, with a release store of a value that
// never changes afterwards (two threads resolving the same row at once store the same address).
// The trampolines read it with a plain load (x86-64: an acquire). No lock: nothing to take before
// fork, and safe from any library's constructor. The layout is fixed: the assembly reads target
// at offset 0.
#pragma once
#include <atomic>
#include <cstddef>

namespace poolshim::abi::openmp {

struct Entry {
  std::atomic<void*> target;  // offset 0: where the trampoline jumps; nullptr = not resolved yet
  const char* name;           // "GOMP_parallel"
  const char* version;        // "GOMP_4.0"
};
static_assert(offsetof(Entry, target) == 0, "the trampolines read target at offset 0");

// Every row of the table, in its order, and their number.
extern Entry* const kEntries[];
extern const size_t kEntryCount;

// What a row's calls go to when no libgomp can be found (serial.cpp): the serial
// program's answer where OpenMP defines one, nullptr otherwise.
void* serial_fallback(const char* name);

// The native runtime's function for name@version (runtime_table.cpp), nullptr when the row has
// none: it then forwards to libgomp even by default (docs/openmp.md lists which rows).
void* runtime_function(const char* name, const char* version);

}  // namespace poolshim::abi::openmp

// The trampolines' slow path calls this with the row (C linkage: called from assembly).
extern "C" void* poolshim_openmp_resolve(poolshim::abi::openmp::Entry* entry);
