// The module registry (see registry.h).
//
// Concurrency: records live in a fixed array. g_count is the number of published records: a
// writer fills records[n] completely under g_mutex, then stores n + 1 with release order;
// readers load g_count with acquire order and only look below it, without the mutex. g_mutex is
// only ever held for that append (never across a call into the dynamic linker), so taking it
// inside a dl_iterate_phdr callback cannot deadlock. Judging a module (the slow part) happens
// before the mutex is taken; two threads may judge the same module at once and the second
// simply finds the first one's record.
#include "reach/registry.h"

#include "base/fork_hooks.h"
#include "elf/mapped_file.h"
#include "elf/reader.h"
#include "reach/query.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

namespace poolshim::reach {

using base::LoadedModule;
using elf::MappedFile;
using elf::Reader;
using elf::Symbol;

namespace {

constexpr size_t kMaxRecords = kMaxJudged;  // query.h

ModuleRecord g_records[kMaxRecords];
std::atomic<size_t> g_count{0};
pthread_mutex_t& g_mutex = base::g_fork_locks.module_registry;  // enrolled in lifecycle/fork.cpp
// The main executable's record: written once (release) under g_mutex, read with acquire.
std::atomic<const ModuleRecord*> g_main{nullptr};

// Strings that live as long as the process. A bump allocator over mmap'ed chunks (no malloc:
// the registry may be reached from inside a host's allocator or a loader callback). Only used
// under g_mutex.
char* g_arena = nullptr;
size_t g_arena_left = 0;

const char* keep(const char* s) {
  if (s == nullptr || *s == '\0') return "";
  size_t n = strlen(s) + 1;
  if (n > g_arena_left) {
    size_t chunk = n > 65536 ? (n + 4095) & ~size_t{4095} : 65536;
    void* p = mmap(nullptr, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return "";
    g_arena = static_cast<char*>(p);
    g_arena_left = chunk;
  }
  char* out = g_arena;
  memcpy(out, s, n);
  g_arena += n;
  g_arena_left -= n;
  return out;
}

bool same_module(const ModuleRecord& r, const LoadedModule& m) {
  return r.bias == m.bias && r.phdr == static_cast<const void*>(m.phdr) &&
         strcmp(r.path, m.name) == 0;
}

// FNV-1a over the program headers and a few dynamic symbols, read from memory (cheap; no file).
uint64_t fingerprint(const LoadedModule& m) {
  uint64_t h = 1469598103934665603ull;
  auto add = [&h](uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  for (size_t i = 0; i < m.phnum; ++i) {
    const ElfW(Phdr)& p = m.phdr[i];
    add(p.p_type);
    add(p.p_offset);
    add(p.p_vaddr);
    add(p.p_filesz);
    add(p.p_memsz);
  }
  Reader r;
  if (r.open_loaded(m.bias, m.phdr, m.phnum)) {
    size_t n = r.dynsym_count();
    add(n);
    size_t probes[] = {n / 3, n / 2, n - 1};
    for (size_t i : probes) {
      Symbol sym;
      if (n == 0 || !r.dynsym(i, &sym)) continue;
      add(sym.value);
      for (const char* c = sym.name; c != nullptr && *c; ++c) add(static_cast<unsigned char>(*c));
    }
  }
  return h;
}

// The newest record in [from, to) that describes the module m as loaded now. A record made
// before a module was unloaded is only taken after its fingerprint matched again.
const ModuleRecord* find(const LoadedModule& m, size_t from, size_t to) {
  bool have_fp = false;
  uint64_t fp = 0;
  for (size_t i = to; i-- > from;) {
    const ModuleRecord& r = g_records[i];
    if (!same_module(r, m)) continue;
    if (r.confirmed_unloads.load(std::memory_order_relaxed) == m.unloads) return &r;
    if (!have_fp) {
      fp = fingerprint(m);
      have_fp = true;
    }
    if (fp == r.fingerprint) {
      r.confirmed_unloads.store(m.unloads, std::memory_order_relaxed);
      return &r;
    }
  }
  return nullptr;
}

// True when the file on disk is the build that is loaded: same dynamic symbol table (count, and
// name and value of a few entries). A file replaced since it was loaded must not lend its .symtab.
bool same_build(const Reader& mem, const Reader& file) {
  size_t n = mem.dynsym_count();
  if (n == 0 || n != file.dynsym_count()) return false;
  size_t probes[] = {n / 3, n / 2, n - 1};
  for (size_t i : probes) {
    Symbol a, b;
    if (!mem.dynsym(i, &a) || !file.dynsym(i, &b) || a.value != b.value) return false;
    if ((a.name == nullptr) != (b.name == nullptr) || (a.name && strcmp(a.name, b.name) != 0))
      return false;
  }
  return true;
}

// Judges from memory, borrowing .symtab from the module's file when it has one (a hidden copy
// is only visible there; .symtab is never loaded). Only reads and maps: no loader calls.
ModuleVerdict judge_alone(const LoadedModule& m) {
  Reader r;
  r.open_loaded(m.bias, m.phdr, m.phnum);
  MappedFile file;
  Reader fr;
  const Reader* symtab = nullptr;
  const char* path = m.main_executable ? "/proc/self/exe" : m.name;
  if (r.ok() && file.open(path) && fr.open_file(file.data(), file.size()) && fr.has_symtab() &&
      same_build(r, fr))
    symtab = &fr;
  return judge(r, m.main_executable, symtab);
}

ModuleVerdict with_precedence(const ModuleVerdict& alone) {
  ModuleVerdict v = alone;
  if (const ModuleRecord* main = g_main.load(std::memory_order_acquire))
    apply_executable_precedence(&v, main->alone);
  return v;
}

void judge_main_executable(const LoadedModule& m, void*) { record_for(m); }

}  // namespace

// fork (lifecycle/fork.h): g_mutex is only held for an append, so prepare never waits long.
void registry_atfork_prepare() { pthread_mutex_lock(&g_mutex); }
void registry_atfork_parent() { pthread_mutex_unlock(&g_mutex); }
void registry_atfork_child() { pthread_mutex_unlock(&g_mutex); }

const ModuleRecord* record_for(const LoadedModule& m) {
  size_t n = g_count.load(std::memory_order_acquire);
  if (const ModuleRecord* r = find(m, 0, n)) return r;
  if (n >= kMaxRecords) return nullptr;

  ModuleVerdict alone = judge_alone(m);
  char display[512] = "";
  if (m.main_executable) {
    ssize_t len = readlink("/proc/self/exe", display, sizeof display - 1);
    display[len > 0 ? len : 0] = '\0';
  }

  pthread_mutex_lock(&g_mutex);
  size_t now = g_count.load(std::memory_order_relaxed);
  const ModuleRecord* found = find(m, n, now);
  if (found == nullptr && now < kMaxRecords) {
    ModuleRecord& r = g_records[now];
    r.bias = m.bias;
    r.phdr = m.phdr;
    r.path = keep(m.name);
    r.display = m.main_executable ? keep(display) : r.path;
    r.alone = alone;
    r.effective = m.main_executable ? alone : with_precedence(alone);
    char reason[256];
    r.reason = keep(describe_reasons(r.effective, reason, sizeof reason));
    r.fingerprint = fingerprint(m);
    r.confirmed_unloads.store(m.unloads, std::memory_order_relaxed);
    g_count.store(now + 1, std::memory_order_release);
    if (m.main_executable) g_main.store(&r, std::memory_order_release);
    found = &r;
  }
  pthread_mutex_unlock(&g_mutex);
  return found;
}

ModuleVerdict judge_loaded(const LoadedModule& m) {
  ModuleVerdict alone = judge_alone(m);
  return m.main_executable ? alone : with_precedence(alone);
}

void ensure_main_executable_judged() {
  if (g_main.load(std::memory_order_acquire) != nullptr) return;
  base::with_main_executable(judge_main_executable, nullptr);
}

size_t record_count() { return g_count.load(std::memory_order_acquire); }

const ModuleRecord* record_at(size_t i) {
  return i < g_count.load(std::memory_order_acquire) ? &g_records[i] : nullptr;
}

}  // namespace poolshim::reach
