// The exported OpenMP entry points (the rows of symbols/openmp.def) and where their calls go.
//
// Each row has an exported trampoline (trampolines.cpp) and a target word,
// poolshim_omp_targets[row]. The trampoline knows no signature: it jumps to its target with
// every argument register as the caller left it, so one piece of code serves every row,
// variadic or not. The first call of a row finds the word empty and takes the slow path, which
// saves the argument registers, asks poolshim_openmp_resolve() for the target, restores them
// and jumps. A row's name and version are symbols/openmp_rows.h's.
//
// Who writes a target: poolshim_openmp_resolve() only, once per row, with a release store of a
// value that never changes afterwards (two threads resolving the same row at once store the
// same address). The trampolines read it with a plain load (x86-64: an acquire). No lock:
// nothing to take before fork, and safe from any library's constructor. The words live in the
// trampolines' .bss: no relocation at load, no page touched before a row's first call.
#pragma once
#include <atomic>
#include <cstddef>

namespace poolshim::abi::openmp {

// poolshim_omp_targets[row] (defined by trampolines.cpp's assembly), and its row number.
extern "C" __attribute__((visibility("hidden"))) std::atomic<void*> poolshim_omp_targets[];
inline size_t row_of_target(const std::atomic<void*>* target) {
  return static_cast<size_t>(target - poolshim_omp_targets);
}

// What a row's calls go to when no libgomp can be found (serial.cpp): the serial
// program's answer where OpenMP defines one, nullptr otherwise.
void* serial_fallback(const char* name);

// The native runtime's function for a row (runtime_table.cpp), nullptr when the row has none:
// it then forwards to libgomp even by default (docs/openmp.md lists which rows).
void* runtime_function(size_t row);

}  // namespace poolshim::abi::openmp

// The trampolines' slow path calls this with the row's target word (C linkage: called from
// assembly).
extern "C" void* poolshim_openmp_resolve(std::atomic<void*>* target);
