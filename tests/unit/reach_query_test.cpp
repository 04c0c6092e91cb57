// The ABI layer's questions (reach/query.h) and poolshim_get_modules(), on fixture modules
// loaded into this test process. This process has NO shim preloaded, which the answers must
// reflect: a module loaded RTLD_NOW has already bound its calls to its own copy (GOT evidence,
// Reason::resolved_to_self), while one loaded RTLD_LAZY and not yet called is judged from its ELF
// data alone (the prediction for a preloaded process). The process tests cover the preload.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "reach/query.h"
#include "elf_test_util.h"
#include "poolshim/poolshim.h"

using namespace poolshim::reach;
using namespace poolshim_elf_test;

namespace {

// Loads build/lib/variants/<name>.so and returns its handle (kept open for the process). Each
// module is always loaded with the same flags by every test of this file.
void* load(const std::string& name, int bind = RTLD_NOW) {
  void* h = dlopen(variant(name + ".so").c_str(), bind | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << dlerror() << " (build the fixtures first)";
  return h;
}

// An address inside the module's code: one of its fixture entry points.
const void* code_of(void* handle, const std::string& entry) {
  const void* p = handle ? dlsym(handle, entry.c_str()) : nullptr;
  EXPECT_NE(p, nullptr) << entry;
  return p;
}

}  // namespace

TEST(ElfQuery, OwnDefinitionIsTheCallersCopy) {
  void* a = load("variant_default");
  void* b = load("variant_lto_interposable", RTLD_LAZY);
  const void* in_a = code_of(a, "variant_default_pool_id");
  const void* in_b = code_of(b, "variant_lto_interposable_pool_id");
  const void* def_a = module_own_definition(in_a, kGetThreadpool);
  const void* def_b = module_own_definition(in_b, kGetThreadpool);
  EXPECT_EQ(def_a, dlsym(a, kGetThreadpool));
  EXPECT_EQ(def_b, dlsym(b, kGetThreadpool));
  EXPECT_NE(def_a, def_b);  // each module's own copy, never another's
  // Data symbols too (the entry points are functions; module_own_definition takes any name).
  EXPECT_EQ(module_own_definition(in_a, "variant_default_work"), dlsym(a, "variant_default_work"));
}

TEST(ElfQuery, OwnDefinitionRefusesWhatIsNotAnExportedDefinition) {
  void* a = load("variant_default");
  void* hidden = load("variant_hidden");
  const void* in_a = code_of(a, "variant_default_pool_id");
  EXPECT_EQ(module_own_definition(in_a, "no_such_symbol"), nullptr);
  EXPECT_EQ(module_own_definition(in_a, kGuardFlag), nullptr);            // TLS: no address
  EXPECT_EQ(module_own_definition(in_a, "pthreadpool_create"), nullptr);  // undefined (imported)
  EXPECT_EQ(module_own_definition(in_a, ""), nullptr);
  EXPECT_EQ(module_own_definition(in_a, nullptr), nullptr);
  EXPECT_EQ(module_own_definition(nullptr, kGetThreadpool), nullptr);
  int on_stack = 0;
  EXPECT_EQ(module_own_definition(&on_stack, kGetThreadpool), nullptr);
  // A hidden copy is not in .dynsym: there is nothing to forward to by name.
  EXPECT_EQ(module_own_definition(code_of(hidden, "variant_hidden_pool_id"), kGetThreadpool),
            nullptr);
}

TEST(ElfQuery, PthreadpoolReachability) {
  void* def =
      load("variant_ptp_default", RTLD_LAZY);  // PLT slots not bound yet: the ELF prediction
  void* hidden = load("variant_ptp_hidden");
  void* bound = load("variant_ptp_symbolic_functions");
  void* client = load("variant_default");  // calls Debian's libpthreadpool through the PLT
  EXPECT_TRUE(
      pthreadpool_calls_reach_shim(code_of(def, "variant_ptp_default_pthreadpool_private")));
  EXPECT_FALSE(
      pthreadpool_calls_reach_shim(code_of(hidden, "variant_ptp_hidden_pthreadpool_private")));
  EXPECT_FALSE(pthreadpool_calls_reach_shim(
      code_of(bound, "variant_ptp_symbolic_functions_pthreadpool_private")));
  EXPECT_TRUE(pthreadpool_calls_reach_shim(code_of(client, "variant_default_work")));
  EXPECT_TRUE(pthreadpool_calls_reach_shim(nullptr));
  int on_stack = 0;
  EXPECT_TRUE(pthreadpool_calls_reach_shim(&on_stack));
  // The test executable carries no pthreadpool copy.
  EXPECT_TRUE(
      pthreadpool_calls_reach_shim(reinterpret_cast<const void*>(&pthreadpool_calls_reach_shim)));
}

// Cached answers stay right when many threads ask at once, first time included.
TEST(ElfQuery, ConcurrentQueriesAgree) {
  void* hidden = load("variant_ptp_hidden");
  void* def = load("variant_ptp_default", RTLD_LAZY);
  const void* h = code_of(hidden, "variant_ptp_hidden_pthreadpool_private");
  const void* d = code_of(def, "variant_ptp_default_pthreadpool_private");
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        if (pthreadpool_calls_reach_shim(h)) ++wrong;
        if (!pthreadpool_calls_reach_shim(d)) ++wrong;
        if (module_own_definition(d, "pthreadpool_create") == nullptr) ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ElfQuery, ModulesApiListsTheLoadedCopies) {
  load("variant_hidden");
  load("variant_default");                      // RTLD_NOW, no preload: bound to its own copy
  load("variant_lto_interposable", RTLD_LAZY);  // not bound yet: the ELF prediction
  load("variant_ptp_symbolic_functions");
  size_t total = poolshim_get_modules(nullptr, 0);
  ASSERT_GE(total, 3u);
  std::vector<poolshim_module> mods(total + 4);
  size_t again = poolshim_get_modules(mods.data(), mods.size());
  EXPECT_EQ(again, total);
  auto find = [&](const char* suffix) -> const poolshim_module* {
    for (size_t i = 0; i < total; ++i) {
      size_t n = strlen(mods[i].path), m = strlen(suffix);
      if (n >= m && strcmp(mods[i].path + n - m, suffix) == 0) return &mods[i];
    }
    return nullptr;
  };
  const poolshim_module* hidden = find("/variant_hidden.so");
  ASSERT_NE(hidden, nullptr);
  EXPECT_EQ(hidden->executorch, POOLSHIM_UNREACHABLE);
  EXPECT_EQ(hidden->pthreadpool, POOLSHIM_ABSENT);
  EXPECT_STREQ(hidden->reason, "hidden copy");
  const poolshim_module* def = find("/variant_default.so");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->executorch, POOLSHIM_UNREACHABLE);
  EXPECT_NE(strstr(def->reason, "resolve to its own copy"), nullptr) << def->reason;
  const poolshim_module* lazy = find("/variant_lto_interposable.so");
  ASSERT_NE(lazy, nullptr);
  EXPECT_EQ(lazy->executorch, POOLSHIM_REDIRECTED);
  EXPECT_STREQ(lazy->reason, "");
  const poolshim_module* bound = find("/variant_ptp_symbolic_functions.so");
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(bound->pthreadpool, POOLSHIM_UNREACHABLE);
  EXPECT_NE(strstr(bound->reason, "bound locally"), nullptr);
  // cap smaller than the count: only cap entries written, the count still returned.
  poolshim_module one[2];
  memset(one, 0, sizeof one);
  EXPECT_EQ(poolshim_get_modules(one, 1), total);
  EXPECT_NE(one[0].path, nullptr);
  EXPECT_EQ(one[1].path, nullptr);
}

// The question behind get_pthreadpool() on the tail-call path: a private pthreadpool copy only
// matters in a module that also carries the ExecuTorch surface (no fixture module here has both,
// so only the "no" side is asserted; a module with a pthreadpool copy alone must not count).
TEST(ElfQuery, PrivatePthreadpoolAloneIsNotAnExecutorchModule) {
  load("variant_ptp_hidden");
  load("variant_ptp_symbolic_functions");
  load("variant_default");
  EXPECT_FALSE(executorch_module_with_unreachable_pthreadpool_loaded());
}
