// Task reductions of the native runtime (task_reduction, reduction(task, ...), in_reduction):
// GOMP_taskgroup_reduction_register/_unregister, GOMP_task_reduction_remap,
// GOMP_parallel_reductions, GOMP_workshare_task_reduction_unregister, and the worksharing
// interface of state.h (ws_reductions_*) that GOMP_loop_start, GOMP_loop_ull_start,
// GOMP_sections2_start and GOMP_scope_start call.
//
// The compiler hands the runtime an array per construct in libgomp's layout (its task.c, read
// for the format and the rules, never copied), and reads the runtime's answers back from it:
//   data[0] number of entries            data[4] next array (on output: the enclosing one's)
//   data[1] bytes of one thread's copies data[5] the runtime's lookup table (here: Table)
//   data[2] alignment; on output the     data[6] on output: the end of the block
//           block of nthreads copies
//   data[3] allocator (-1: malloc)
//   then per entry (sorted by offset): [0] the original item's address, [1] its offset in a
//   thread's copies, [2] on output: the array it belongs to.
// Thread i's copy of an item is block + i * data[1] + offset; the compiler combines the copies
// itself after the construct and then calls GOMP_taskgroup_reduction_unregister (or
// GOMP_workshare_task_reduction_unregister). A task's copies are its executing thread's: with
// undeferred tasks (task.cpp) the encountering thread's.
//
// Registration chains the new arrays in front of the enclosing taskgroup's (data[4]); the lookup
// table holds the enclosing table's entries too, an inner registration of the same address
// hiding the outer one, so that in_reduction finds the innermost item. The members of a
// worksharing construct each register their own array, every one pointing at the block the
// first member allocated.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/xmalloc.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// An open-addressing table from an item's original address to its entry (3 words, above).
struct Table {
  size_t mask;   // slots - 1 (slots a power of two, at least twice the entries)
  size_t count;  // entries
  uintptr_t* slot[1];
};

size_t hash_address(uintptr_t a) { return static_cast<size_t>((a >> 3) * 0x9e3779b97f4a7c15ull); }

Table* table_new(size_t entries) {
  size_t slots = 8;
  while (slots < 2 * entries) slots *= 2;
  Table* t = static_cast<Table*>(xcalloc(1, sizeof(Table) + (slots - 1) * sizeof(uintptr_t*)));
  t->mask = slots - 1;
  return t;
}

// Inserts entry e (keyed by e[0]); an entry with the same address is replaced.
void table_put(Table* t, uintptr_t* e) {
  for (size_t i = hash_address(e[0]) & t->mask;; i = (i + 1) & t->mask) {
    if (t->slot[i] == nullptr) {
      t->slot[i] = e;
      ++t->count;
      return;
    }
    if (t->slot[i][0] == e[0]) {
      t->slot[i] = e;
      return;
    }
  }
}

uintptr_t* table_find(const Table* t, uintptr_t address) {
  if (t == nullptr) return nullptr;
  for (size_t i = hash_address(address) & t->mask;; i = (i + 1) & t->mask) {
    uintptr_t* e = t->slot[i];
    if (e == nullptr) return nullptr;
    if (e[0] == address) return e;
  }
}

uintptr_t* arr(uintptr_t v) { return reinterpret_cast<uintptr_t*>(v); }
uintptr_t word(const void* p) { return reinterpret_cast<uintptr_t>(p); }

void* alloc_block(uintptr_t align, size_t size) {
  size_t a = align < sizeof(void*) ? sizeof(void*) : static_cast<size_t>(align);
  void* p = xaligned_alloc(a, size == 0 ? 1 : size);
  memset(p, 0, size);
  return p;
}

// Registers the chain of arrays starting at data in front of old (the enclosing taskgroup's
// reductions), for a team of nthreads. orig: the first member's arrays of a worksharing
// construct, whose blocks this member's arrays share; nullptr to allocate them.
void register_arrays(uintptr_t* data, uintptr_t* old, uintptr_t* orig, unsigned nthreads) {
  size_t total = 0;
  uintptr_t* d = data;
  for (;;) {
    if (orig != nullptr) {
      d[2] = orig[2];
      d[6] = orig[6];
      orig = arr(orig[4]);
    } else {
      size_t size = d[1] * nthreads;
      d[2] = word(alloc_block(d[2], size));
      d[6] = d[2] + size;
    }
    d[5] = 0;
    total += d[0];
    if (d[4] == 0) {
      d[4] = word(old);
      break;
    }
    d = arr(d[4]);
  }
  const Table* old_table = old != nullptr ? reinterpret_cast<const Table*>(old[5]) : nullptr;
  if (old_table != nullptr) total += old_table->count;
  Table* t = table_new(total);
  if (old_table != nullptr)
    for (size_t i = 0; i <= old_table->mask; ++i)
      if (old_table->slot[i] != nullptr) table_put(t, old_table->slot[i]);
  for (d = data;; d = arr(d[4])) {
    for (size_t j = 0; j < d[0]; ++j) {
      uintptr_t* e = d + 7 + j * 3;
      e[2] = word(d);
      table_put(t, e);
    }
    if (d[4] == word(old)) break;
  }
  d[5] = word(t);
}

unsigned team_threads() {
  Team* t = me().team;
  return t != nullptr ? t->n : 1;
}

// The calling thread's innermost taskgroup, started if there is none (libgomp: the implicit
// team and taskgroup it makes for an orphaned registration).
TaskGroup* current_taskgroup() {
  if (me().taskgroup == nullptr) taskgroup_start();
  return me().taskgroup;
}

void unregister(uintptr_t* data) {
  free(reinterpret_cast<Table*>(data[5]));
  uintptr_t* d = data;
  do {
    free(arr(d[2]));
    d = arr(d[4]);
  } while (d != nullptr && d[5] == 0);
}

}  // namespace

void taskgroup_reduction_register(uintptr_t* data) {
  TaskGroup* g = current_taskgroup();
  register_arrays(data, g->reductions, nullptr, team_threads());
  g->reductions = data;
}

void ws_reductions_begin() {
  taskgroup_start();
  me().taskgroup->workshare = true;
}

void ws_reductions_first(WorkShare* ws, uintptr_t* reductions) {
  taskgroup_reduction_register(reductions);
  me().taskgroup->workshare = true;
  ws->task_reductions = reductions;
}

void ws_reductions_join(WorkShare* ws, uintptr_t* reductions) {
  TaskGroup* g = current_taskgroup();
  register_arrays(reductions, g->reductions, ws->task_reductions, team_threads());
  g->reductions = reductions;
}

}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

void psn_GOMP_taskgroup_reduction_register(uintptr_t* data) { taskgroup_reduction_register(data); }

void psn_GOMP_taskgroup_reduction_unregister(uintptr_t* data) { unregister(data); }

// For each of the cnt pointers (an original item's address, or the address of some thread's
// copy of it): the calling thread's copy; for the first cntorig also the original's address,
// in ptrs[cnt + i]. A pointer that no registered reduction knows stays as it is (libgomp stops
// the program with a message).
void psn_GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void** ptrs) {
  ThreadState& s = me();
  uintptr_t* data = s.taskgroup != nullptr ? s.taskgroup->reductions : nullptr;
  if (data == nullptr) return;
  uintptr_t id = s.num;
  const Table* t = reinterpret_cast<const Table*>(data[5]);
  for (size_t i = 0; i < cnt; ++i) {
    uintptr_t p = word(ptrs[i]);
    if (uintptr_t* e = table_find(t, p)) {
      uintptr_t* d = arr(e[2]);
      ptrs[i] = reinterpret_cast<void*>(d[2] + id * d[1] + e[1]);
      if (i < cntorig) ptrs[cnt + i] = reinterpret_cast<void*>(e[0]);
      continue;
    }
    uintptr_t* d = data;
    while (d != nullptr && !(p >= d[2] && p < d[6])) d = arr(d[4]);
    if (d == nullptr || d[1] == 0) continue;
    uintptr_t off = (p - d[2]) % d[1];
    ptrs[i] = reinterpret_cast<void*>(d[2] + id * d[1] + off);
    if (i >= cntorig) continue;
    size_t lo = 0, hi = d[0];  // entries sorted by offset: find the one at off
    while (lo < hi) {
      size_t m = (lo + hi) / 2;
      uintptr_t mo = d[7 + 3 * m + 1];
      if (mo < off) {
        lo = m + 1;
      } else if (mo > off) {
        hi = m;
      } else {
        ptrs[cnt + i] = reinterpret_cast<void*>(d[7 + 3 * m]);
        break;
      }
    }
  }
}

// parallel reduction(task, ...): the reductions are registered for the team about to start, in
// a taskgroup every member's implicit task starts in; the compiler unregisters them after.
unsigned psn_GOMP_parallel_reductions(void (*fn)(void*), void* data, unsigned num_threads,
                                      unsigned flags) {
  set_bind_clause(flags);
  unsigned n = team_size_for(num_threads);
  uintptr_t* rdata = *static_cast<uintptr_t**>(data);
  TaskGroup* g = new TaskGroup;
  register_arrays(rdata, nullptr, nullptr, n);
  g->reductions = rdata;
  run_parallel(fn, data, n, g);
  delete g;
  return n;
}

// The end of a worksharing construct with task reductions: the construct's taskgroup ends;
// member 0 frees the copies (the compiler has combined them), every member its lookup table;
// then the construct's barrier unless it was cancelled.
void psn_GOMP_workshare_task_reduction_unregister(bool cancelled) {
  ThreadState& s = me();
  uintptr_t* data = s.taskgroup != nullptr ? s.taskgroup->reductions : nullptr;
  taskgroup_end();
  if (data != nullptr) {
    if (s.num == 0)
      unregister(data);
    else
      free(reinterpret_cast<Table*>(data[5]));
  }
  if (!cancelled) team_barrier();
}

}  // extern "C"
