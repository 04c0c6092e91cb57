// Which rows of symbols/openmp.def the native runtime implements (the default mode), and with
// which of its functions (runtime/entry_points.h, whose prototypes the definitions are compiled
// against). Every other row forwards to libgomp in both modes: the omp_* functions that do not
// depend on the team (locks, clocks, devices, allocators, ...) are right there; the
// team-dependent rows listed as "not native" in docs/openmp.md are not, inside a native region.
//
// The rows are symbols/openmp_native.def: one per name (and version, where only one version of
// a name is native: the OMP_3.0 nest locks, owned by tasks; the OMP_1.0 ones are owned by threads
// and forward), in symbols/openmp.def's order. An AS row shares another function: the nonmonotonic
// spellings run their schedule's code, and every *_next of a loop whose construct holds its
// schedule (the runtime schedules, the ull loops) is one function.
#include <string.h>

#include "abi/openmp/entry.h"
#include "symbols/openmp_rows.h"

namespace poolshim::abi::openmp {
namespace {

namespace rows = symbols::openmp_rows;

// A row's number (symbols/openmp_rows.h, found at compile time: a name the table lacks does not
// build) and whether only that row's version is native.
struct Row {
  uint16_t row;  // the name's first row in openmp.def, or with exact its one native version's
  bool exact;    // only that row's version (else every version of the name)
};

constexpr Row kNative[] = {
#define R(name) {rows::checked<rows::row_of(#name)>(), false},
#define AS(name, fn) {rows::checked<rows::row_of(#name)>(), false},
#define RV(name, version) {rows::checked<rows::row_of(#name, version)>(), true},
#include "symbols/openmp_native.def"
#undef R
#undef AS
#undef RV
};
constexpr size_t kNativeCount = sizeof kNative / sizeof kNative[0];

}  // namespace

// kNative's functions, in the same order, as offsets from the table itself: a table of
// function pointers would need a relocation per row at load time, in every process; the
// assembler and the static linker resolve these (the psn_ functions are hidden). An undefined
// psn_ name fails the link.
extern "C" __attribute__((visibility("hidden"))) const int32_t poolshim_native_offsets[];
asm(".section .rodata\n"
    ".p2align 2\n"
    ".globl poolshim_native_offsets\n"
    ".hidden poolshim_native_offsets\n"
    ".type poolshim_native_offsets, @object\n"
    "poolshim_native_offsets:\n"
#define R(name) ".long psn_" #name " - poolshim_native_offsets\n"
#define AS(name, fn) ".long psn_" #fn " - poolshim_native_offsets\n"
#define RV(name, version) ".long psn_" #name " - poolshim_native_offsets\n"
#include "symbols/openmp_native.def"
#undef R
#undef AS
#undef RV
    ".size poolshim_native_offsets, .-poolshim_native_offsets\n"
    ".text\n");

namespace {

void* native_function(size_t i) {
  return const_cast<char*>(reinterpret_cast<const char*>(poolshim_native_offsets)) +
         poolshim_native_offsets[i];
}

}  // namespace

void* runtime_function(size_t row) {
  const char* name = rows::name(row);
  for (size_t i = 0; i < kNativeCount; ++i) {
    const Row& r = kNative[i];
    if (r.exact ? r.row == row : strcmp(rows::name(r.row), name) == 0) return native_function(i);
  }
  return nullptr;
}

}  // namespace poolshim::abi::openmp
