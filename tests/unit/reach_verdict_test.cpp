// Verdicts on the fixture variants (files), the direct-call evidence, the text helpers and the
// main executable's precedence. The process tests (tests/process/elf.cmake) check that
// these predictions hold in real processes.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "elf/direct_calls.h"
#include "elf/mapped_file.h"
#include "elf/reader.h"
#include "reach/surface.h"
#include "reach/verdict.h"
#include "symbols/openmp_rows.h"
#include "elf_test_util.h"

using namespace poolshim::elf;
using namespace poolshim::reach;
using namespace poolshim_elf_test;

namespace {

ModuleVerdict judge_file(const std::string& path, bool main = false) {
  MappedFile f;
  Reader r;
  EXPECT_TRUE(f.open(path.c_str())) << path << " (build the fixtures first)";
  r.open_file(f.data(), f.size());
  return judge(r, main);
}

struct Case {
  const char* file;
  Verdict executorch;
  Verdict pthreadpool;
  Reason reason;  // of the unreachable surface, none when nothing is unreachable
};

constexpr Verdict A = Verdict::absent, R = Verdict::redirected, U = Verdict::unreachable;

const Case kCases[] = {
    {"variant_default.so", R, A, Reason::none},
    {"variant_hidden.so", U, A, Reason::hidden_copy},
    {"variant_protected.so", U, A, Reason::protected_visibility},
    {"variant_symbolic.so", U, A, Reason::symbolic},
    {"variant_symbolic_functions.so", U, A, Reason::bound_locally},
    {"variant_lto.so", U, A, Reason::bound_locally},
    {"variant_lto_interposable.so", R, A, Reason::none},
    {"variant_ptp_default.so", A, R, Reason::none},
    {"variant_ptp_hidden.so", A, U, Reason::hidden_copy},
    {"variant_ptp_symbolic_functions.so", A, U, Reason::bound_locally},
    {"variant_default_stripped.so", R, A, Reason::none},
    {"variant_hidden_stripped.so", A, A, Reason::none},  // invisible once stripped (documented)
    {"variant_lto_stripped.so", U, A, Reason::bound_locally},
    {"variant_ptp_symbolic_functions_stripped.so", A, U, Reason::bound_locally},
};

}  // namespace

TEST(ElfVerdict, EveryVariant) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.file);
    ModuleVerdict v = judge_file(variant(c.file));
    EXPECT_EQ(v.surface[kExecutorch].verdict, c.executorch);
    EXPECT_EQ(v.surface[kPthreadpool].verdict, c.pthreadpool);
    Reason got = v.surface[kExecutorch].verdict == Verdict::unreachable
                     ? v.surface[kExecutorch].reason
                     : v.surface[kPthreadpool].reason;
    EXPECT_EQ(got, c.reason);
    EXPECT_EQ(v.any_unreachable(), c.reason != Reason::none);
    EXPECT_EQ(v.stripped, strstr(c.file, "_stripped") != nullptr);
    EXPECT_FALSE(v.main_executable);
    EXPECT_FALSE(v.provider);
  }
}

TEST(ElfVerdict, NamesTheSymbolBehindTheReason) {
  ModuleVerdict hidden = judge_file(variant("variant_hidden.so"));
  EXPECT_STREQ(hidden.surface[kExecutorch].symbol, kGetThreadpool);
  ModuleVerdict ptp = judge_file(variant("variant_ptp_hidden.so"));
  EXPECT_STREQ(ptp.surface[kPthreadpool].symbol, "pthreadpool_create");
  // Bound locally: the symbol is one the code calls directly.
  ModuleVerdict sf = judge_file(variant("variant_ptp_symbolic_functions.so"));
  EXPECT_EQ(strncmp(sf.surface[kPthreadpool].symbol, "pthreadpool_", 12), 0);
}

TEST(ElfVerdict, ExecutablesAreUnreachable) {
  std::string bin = std::string(POOLSHIM_BINARY_DIR) + "/bin/";
  ModuleVerdict exe = judge_file(bin + "variant_exe");
  EXPECT_TRUE(exe.main_executable);
  EXPECT_EQ(exe.kind, Kind::executable);
  EXPECT_EQ(exe.surface[kExecutorch].verdict, Verdict::unreachable);
  EXPECT_EQ(exe.surface[kExecutorch].reason, Reason::main_executable);
  EXPECT_FALSE(exe.exports_entry[kExecutorch]);  // its copy is in .symtab only

  ModuleVerdict exported = judge_file(bin + "variant_exe_exported");
  EXPECT_TRUE(exported.exports_entry[kExecutorch]);

  // Its exported copy comes before the preload for every other module of the process.
  ModuleVerdict lib = judge_file(variant("variant_default.so"));
  apply_executable_precedence(&lib, exported);
  EXPECT_EQ(lib.surface[kExecutorch].verdict, Verdict::unreachable);
  EXPECT_EQ(lib.surface[kExecutorch].reason, Reason::executable_first);
  ModuleVerdict lib2 = judge_file(variant("variant_default.so"));
  apply_executable_precedence(&lib2, exe);  // not exported: no effect
  EXPECT_EQ(lib2.surface[kExecutorch].verdict, Verdict::redirected);
}

// The shim itself is the provider of the surfaces, not a copy of them.
TEST(ElfVerdict, TheShimIsTheProvider) {
  ModuleVerdict v = judge_file(std::string(POOLSHIM_BINARY_DIR) + "/lib/libpoolshim.so");
  EXPECT_TRUE(v.provider);
  EXPECT_FALSE(v.carries_surface());
  EXPECT_FALSE(v.any_unreachable());
}

// A library that defines pthreadpool but never calls its own copy only serves other modules:
// the preload takes over its callers. Debian's libpthreadpool.so.0 is one.
TEST(ElfVerdict, UnusedCopyIsNotUnreachable) {
  MappedFile probe;
  const char* path = "/usr/lib/x86_64-linux-gnu/libpthreadpool.so.0";
  if (!probe.open(path)) path = "/usr/lib/aarch64-linux-gnu/libpthreadpool.so.0";
  if (!probe.open(path)) GTEST_SKIP() << "no Debian libpthreadpool.so.0";
  ModuleVerdict v = judge_file(path);
  EXPECT_EQ(v.surface[kPthreadpool].verdict, Verdict::redirected);
  EXPECT_TRUE(v.surface[kPthreadpool].unused_copy);
  EXPECT_FALSE(v.carries_surface());
}

TEST(ElfVerdict, DirectCallsAreFoundOnlyWhereTheyAre) {
  MappedFile f, g;
  Reader bound, plt;
  ASSERT_TRUE(f.open(variant("variant_symbolic_functions.so").c_str()));
  ASSERT_TRUE(bound.open_file(f.data(), f.size()));
  ASSERT_TRUE(g.open(variant("variant_default.so").c_str()));
  ASSERT_TRUE(plt.open_file(g.data(), g.size()));
  Symbol s;
  ASSERT_NE(bound.find_dynsym(kGetThreadpool, &s), 0u);
  uint64_t targets[] = {1, s.value, 3};
  DirectCalls d = find_direct_calls(bound, targets, 3);
  EXPECT_TRUE(d.code_readable);
  EXPECT_EQ(d.hits, 1u);
  EXPECT_EQ(d.first_target, 1u);
  ASSERT_NE(plt.find_dynsym(kGetThreadpool, &s), 0u);
  uint64_t plt_targets[] = {s.value};
  DirectCalls none = find_direct_calls(plt, plt_targets, 1);
  EXPECT_TRUE(none.code_readable);
  EXPECT_EQ(none.hits, 0u);  // every call goes through the PLT
}

TEST(ElfVerdict, TextHelpers) {
  ModuleVerdict v;
  char buf[256];
  EXPECT_STREQ(describe_verdict(v, buf, sizeof buf), "");
  EXPECT_STREQ(describe_reasons(v, buf, sizeof buf), "");
  v.surface[kExecutorch].verdict = Verdict::redirected;
  v.surface[kPthreadpool].verdict = Verdict::unreachable;
  v.surface[kPthreadpool].reason = Reason::hidden_copy;
  EXPECT_STREQ(describe_verdict(v, buf, sizeof buf),
               "executorch redirected; pthreadpool unreachable (hidden copy)");
  EXPECT_STREQ(describe_reasons(v, buf, sizeof buf), "hidden copy");
  v.surface[kExecutorch].verdict = Verdict::unreachable;
  v.surface[kExecutorch].reason = Reason::symbolic;
  EXPECT_STREQ(describe_reasons(v, buf, sizeof buf),
               "executorch: linked -Bsymbolic; pthreadpool: hidden copy");
  v.surface[kExecutorch].reason = Reason::hidden_copy;
  EXPECT_STREQ(describe_reasons(v, buf, sizeof buf), "hidden copy");
  describe_verdict(v, buf, 10);
  EXPECT_EQ(strlen(buf), 9u);
  EXPECT_STREQ(verdict_text(Verdict::absent), "absent");
  EXPECT_STREQ(reason_text(Reason::none), "");
}

// The export tables the surfaces are worked out from (shim/symbols/*.def), as names.
const char* const kExecutorchTable[] = {
#define X(kind, ns, ident, mangled, demangled) mangled,
#include "symbols/executorch.def"
#undef X
};
const char* const kPthreadpoolTable[] = {
#define X(ident) "pthreadpool_" #ident,
#include "symbols/pthreadpool.def"
#undef X
};

// Every exported name belongs to its surface, so does the whole namespace of an entry point and
// any overload of the table's free functions; names outside stay out.
TEST(Surface, NamesComeFromTheExportTables) {
  for (const char* name : kExecutorchTable)
    EXPECT_TRUE(is_surface_symbol(kExecutorch, name)) << name;
  for (const char* name : kPthreadpoolTable)
    EXPECT_TRUE(is_surface_symbol(kPthreadpool, name)) << name;
  // Not exported by the shim, yet a module's copy of them is a copy of the surface.
  EXPECT_TRUE(
      is_surface_symbol(kExecutorch, "_ZN10executorch9extension10threadpool10ThreadPoolC2Em"));
  EXPECT_TRUE(
      is_surface_symbol(kExecutorch, "_ZNK5torch10executorch10threadpool10ThreadPool4sizeEv"));
  EXPECT_TRUE(is_surface_symbol(
      kExecutorch, "_ZN10executorch9extension12parallel_forEllNS_7runtime11FunctionRefIFvllEEE"));
  EXPECT_TRUE(is_surface_symbol(kPthreadpool, "pthreadpool_allocate"));
  // Neighbours that are not.
  EXPECT_FALSE(is_surface_symbol(kExecutorch, "_ZN10executorch9extension6ModuleC2Ev"));
  EXPECT_FALSE(is_surface_symbol(kExecutorch, "_ZN10executorch9extension13parallel_forsEv"));
  EXPECT_FALSE(
      is_surface_symbol(kExecutorch, "_ZN10executorch7runtime11FunctionRefIFvmEE4callEPvm"));
  EXPECT_FALSE(is_surface_symbol(kExecutorch, "pthreadpool_create"));
  EXPECT_FALSE(is_surface_symbol(kPthreadpool, kGetThreadpool));
  EXPECT_FALSE(is_surface_symbol(kExecutorch, nullptr));
}

TEST(Surface, EntryPointsAreHowAModuleObtainsAPool) {
  size_t entries = 0;
  for (const char* name : kExecutorchTable) entries += is_entry_symbol(kExecutorch, name);
  EXPECT_EQ(entries, 4u);  // get_threadpool() and get_pthreadpool(), in both namespaces
  EXPECT_TRUE(is_entry_symbol(kExecutorch, kGetThreadpool));
  EXPECT_TRUE(is_entry_symbol(kExecutorch, "_ZN5torch10executorch10threadpool15get_pthreadpoolEv"));
  entries = 0;
  for (const char* name : kPthreadpoolTable) entries += is_entry_symbol(kPthreadpool, name);
  EXPECT_EQ(entries, 1u);
  EXPECT_TRUE(is_entry_symbol(kPthreadpool, "pthreadpool_create"));
  EXPECT_FALSE(is_entry_symbol(kPthreadpool, "xpthreadpool_create"));
}

// OpenMP: openmp.def's GOMP_*/omp_* names (not OpenACC, not a look-alike); the entry points are
// what starts a team (GOMP_parallel*, GOMP_teams*), not GOMP_parallel_end, which libgomp's own
// GOMP_parallel calls directly.
TEST(Surface, OpenmpNamesAndEntryPoints) {
  const char* const kOpenmpTable[] = {
#define POOLSHIM_OMP_ENTRY(name, tag, version, binding) #name,
#include "symbols/openmp.def"
#undef POOLSHIM_OMP_ENTRY
  };
  // libgomp's rows; libomp's (kmpc.def, from kFirstLibompRow) are not a surface of the audit.
  for (size_t i = 0; i < poolshim::symbols::openmp_rows::kFirstLibompRow; ++i)
    EXPECT_TRUE(is_surface_symbol(kOpenmp, kOpenmpTable[i])) << kOpenmpTable[i];
  EXPECT_FALSE(is_surface_symbol(kOpenmp, "__kmpc_fork_call"));
  EXPECT_FALSE(is_surface_symbol(kOpenmp, "GOACC_parallel_keyed"));
  EXPECT_FALSE(is_surface_symbol(kOpenmp, "omp_not_a_function"));
  EXPECT_FALSE(is_surface_symbol(kOpenmp, "GOMP_PLUGIN_malloc"));
  EXPECT_FALSE(is_surface_symbol(kPthreadpool, "GOMP_parallel"));
  EXPECT_FALSE(is_surface_symbol(kOpenmp, "pthreadpool_create"));
  EXPECT_FALSE(is_surface_symbol(kOpenmp, nullptr));
  EXPECT_TRUE(is_entry_symbol(kOpenmp, "GOMP_parallel"));
  EXPECT_TRUE(is_entry_symbol(kOpenmp, "GOMP_parallel_start"));
  EXPECT_TRUE(is_entry_symbol(kOpenmp, "GOMP_parallel_loop_dynamic"));
  EXPECT_TRUE(is_entry_symbol(kOpenmp, "GOMP_teams_reg"));
  EXPECT_FALSE(is_entry_symbol(kOpenmp, "GOMP_parallel_end"));
  EXPECT_FALSE(is_entry_symbol(kOpenmp, "GOMP_barrier"));
  EXPECT_FALSE(is_entry_symbol(kOpenmp, "omp_get_thread_num"));
  EXPECT_STREQ(surface_name(kOpenmp), "openmp");
}

// A private copy (local in .symtab, not exported) is judged by the entry points, and for OpenMP
// also by LLVM's __kmpc_fork_call (libomp.a linked in); the __kmpc names are no surface names.
TEST(Surface, PrivateCopiesOfLlvmOpenmp) {
  EXPECT_TRUE(is_private_copy_entry(kOpenmp, "__kmpc_fork_call"));
  EXPECT_TRUE(is_private_copy_entry(kOpenmp, "GOMP_parallel"));
  EXPECT_FALSE(is_private_copy_entry(kOpenmp, "__kmpc_barrier"));
  EXPECT_FALSE(is_private_copy_entry(kPthreadpool, "__kmpc_fork_call"));
  EXPECT_FALSE(is_private_copy_entry(kOpenmp, nullptr));
  EXPECT_FALSE(is_entry_symbol(kOpenmp, "__kmpc_fork_call"));
  EXPECT_FALSE(is_surface_symbol(kOpenmp, "__kmpc_fork_call"));
}

// An unreachable OpenMP copy is always named with its surface (poolshim_module has no openmp
// field, so the reason must say it).
TEST(ElfVerdict, OpenmpReasonsNameTheSurface) {
  ModuleVerdict v;
  char buf[256];
  v.surface[kOpenmp].verdict = Verdict::unreachable;
  v.surface[kOpenmp].reason = Reason::symbolic;
  EXPECT_STREQ(describe_verdict(v, buf, sizeof buf), "openmp unreachable (linked -Bsymbolic)");
  EXPECT_STREQ(describe_reasons(v, buf, sizeof buf), "openmp: linked -Bsymbolic");
  v.surface[kPthreadpool].verdict = Verdict::unreachable;
  v.surface[kPthreadpool].reason = Reason::symbolic;
  EXPECT_STREQ(describe_reasons(v, buf, sizeof buf),
               "pthreadpool: linked -Bsymbolic; openmp: linked -Bsymbolic");
  EXPECT_TRUE(v.any_unreachable());
  EXPECT_TRUE(v.carries_surface());
}
