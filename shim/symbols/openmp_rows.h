// The rows of openmp.def as constant data: each row's name and version, numbered in the table's
// order (row 0 is the first POOLSHIM_OMP_ENTRY).
//
// Why not an array of `const char*`: in a shared library every pointer in a table is a
// relocation that the dynamic linker applies at load time, reading 24 bytes of .rela.dyn and
// writing a page of the table for each, in every process that loads the shim, whether or not it
// ever calls OpenMP. Here the strings sit in one char array and the rows hold 16-bit offsets
// into it, computed at compile time: nothing to relocate, nothing touched until read.
#pragma once
#include <cstddef>
#include <cstdint>

namespace poolshim::symbols::openmp_rows {

namespace detail {
// Only read during constant evaluation (below): never emitted, so never relocated.
constexpr const char* kNames[] = {
#define POOLSHIM_OMP_ENTRY(name, tag, version, binding) #name,
#include "symbols/openmp.def"
#undef POOLSHIM_OMP_ENTRY
};
constexpr const char* kVersions[] = {
#define POOLSHIM_OMP_ENTRY(name, tag, version, binding) version,
#include "symbols/openmp.def"
#undef POOLSHIM_OMP_ENTRY
};
}  // namespace detail

constexpr size_t kCount = sizeof detail::kNames / sizeof detail::kNames[0];

namespace detail {

constexpr size_t length(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  return n;
}

constexpr bool same(const char* a, const char* b) {
  size_t i = 0;
  while (a[i] != '\0' && a[i] == b[i]) ++i;
  return a[i] == b[i];
}

constexpr size_t text_size() {
  size_t n = 0;
  for (size_t i = 0; i < kCount; ++i) n += length(kNames[i]) + 1 + length(kVersions[i]) + 1;
  return n;
}

struct Table {
  char text[text_size() + 1]{};  // a last NUL beyond the last string (GCC's overread warning)
  uint16_t name[kCount]{};
  uint16_t version[kCount]{};
};

constexpr size_t append(Table& t, size_t at, const char* s) {
  for (size_t i = 0; s[i] != '\0'; ++i) t.text[at++] = s[i];
  t.text[at++] = '\0';
  return at;
}

constexpr Table make_table() {
  static_assert(text_size() <= UINT16_MAX, "the offsets are 16 bits");
  Table t{};
  size_t at = 0;
  for (size_t i = 0; i < kCount; ++i) {
    t.name[i] = static_cast<uint16_t>(at);
    at = append(t, at, kNames[i]);
    t.version[i] = static_cast<uint16_t>(at);
    at = append(t, at, kVersions[i]);
  }
  return t;
}

inline constexpr Table kTable = make_table();

}  // namespace detail

// Row `row`'s function name ("GOMP_parallel") and symbol version ("GOMP_4.0"); row < kCount.
// (GCC's -Wstringop-overread cannot see that every offset starts a NUL-terminated string.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
inline const char* name(size_t row) { return detail::kTable.text + detail::kTable.name[row]; }
inline const char* version(size_t row) { return detail::kTable.text + detail::kTable.version[row]; }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The first row named `fn` (at compile time, for tables keyed by row): kCount when none is, which
// a table's static_assert turns into a build error.
constexpr size_t row_of(const char* fn) {
  for (size_t i = 0; i < kCount; ++i)
    if (detail::same(detail::kNames[i], fn)) return i;
  return kCount;
}
// The row named `fn` with version `ver`; kCount when none is.
constexpr size_t row_of(const char* fn, const char* ver) {
  for (size_t i = 0; i < kCount; ++i)
    if (detail::same(detail::kNames[i], fn) && detail::same(detail::kVersions[i], ver)) return i;
  return kCount;
}

namespace detail {
constexpr size_t first_libomp_row() {
  size_t i = 0;
  while (i < kCount && !same(kVersions[i], "VERSION")) ++i;
  for (size_t j = i; j < kCount; ++j)
    if (!same(kVersions[j], "VERSION")) return kCount;  // kmpc.def's rows come last, together
  return i;
}
}  // namespace detail

// The first of LLVM libomp's rows (kmpc.def: __kmpc_* and omp_*, all in libomp's node VERSION),
// after every libgomp row.
inline constexpr size_t kFirstLibompRow = detail::first_libomp_row();
static_assert(kFirstLibompRow < kCount, "libomp's rows come last in openmp.def, together");

// A row number found at compile time, as a table keyed by row stores it: checked<row_of(...)>()
// does not build when the name is not in openmp.def.
template <size_t kRow>
constexpr uint16_t checked() {
  static_assert(kRow < kCount, "a name (or version) that symbols/openmp.def does not have");
  return static_cast<uint16_t>(kRow);
}

}  // namespace poolshim::symbols::openmp_rows
