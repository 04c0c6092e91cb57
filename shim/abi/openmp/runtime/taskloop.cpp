// Native taskloop: GOMP_taskloop (long) and GOMP_taskloop_ull (unsigned long long).
//
// The iterations are split into tasks exactly as libgomp's taskloop.c splits them (read for the
// arithmetic, never copied): grainsize(g) gives n / g tasks of g iterations or more (strict:
// tasks of g, the last one the rest), num_tasks(k) (default: the team's size) k tasks, the first
// n % k of them one iteration longer. As libgomp's, the tasks are deferred (queued in the team,
// task_queue.cpp) when the if clause is true, the team has more than one member, the
// encountering task is not final and the team's pending tasks with these stay within 64 per
// member; else they run undeferred, one after the other, on the encountering thread. Each task
// gets its own copy of the data, as libgomp's do (undeferred with a copy function: all copies
// are made first, then the tasks run), so a task's firstprivate changes never reach the next
// task. Unless nogroup, the tasks run in a taskgroup, in which a reduction clause's array is
// registered (task_reduction.cpp).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/task_wait.h"
#include "abi/openmp/runtime/xmalloc.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// gomp-constants.h
constexpr unsigned kFlagFinal = 1u << 1;
constexpr unsigned kFlagUp = 1u << 8;
constexpr unsigned kFlagGrainsize = 1u << 9;
constexpr unsigned kFlagIf = 1u << 10;
constexpr unsigned kFlagNogroup = 1u << 11;
constexpr unsigned kFlagReduction = 1u << 12;
constexpr unsigned kFlagStrict = 1u << 14;

// The task body's data starts with its bounds; with a reduction clause, then the array.
template <typename T>
struct DataHead {
  T start, end;
  uintptr_t* reductions;
};

// The number of iterations (0: none). long: signed arithmetic with the step's sign; ull: the
// direction from GOMP_TASK_FLAG_UP.
unsigned long iterations(long start, long end, long step, unsigned) {
  long s = step;
  if (step > 0) {
    if (start >= end) return 0;
    --s;
  } else {
    if (start <= end) return 0;
    ++s;
  }
  return static_cast<unsigned long>((end - start + s) / step);
}
unsigned long long iterations(unsigned long long start, unsigned long long end,
                              unsigned long long step, unsigned flags) {
  if ((flags & kFlagUp) != 0) {
    if (start >= end) return 0;
    return (end - start + step - 1) / step;
  }
  if (start <= end) return 0;
  return (start - end - step - 1) / -step;
}

template <typename T, typename U>
void taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
              long arg_align, unsigned flags, unsigned long num_tasks, T start, T end, T step) {
  U n = iterations(start, end, step, flags);
  if (n == 0) {
    if ((flags & (kFlagNogroup | kFlagReduction)) == kFlagReduction)
      static_cast<DataHead<T>*>(data)->reductions[2] = 0;  // tells the caller: not registered
    return;
  }
  T task_step = step;
  T nfirst_task_step = step;
  unsigned long nfirst = n;  // after task nfirst, the tasks take nfirst_task_step
  if ((flags & kFlagGrainsize) != 0) {
    unsigned long grainsize = num_tasks;
    U ndiv = n / grainsize;
    num_tasks = static_cast<unsigned long>(ndiv);
    if (num_tasks != ndiv) num_tasks = ~0ul;
    if ((flags & kFlagStrict) != 0 && num_tasks != ~0ul) {
      U mod = n % grainsize;
      task_step = static_cast<T>(grainsize) * step;
      if (mod != 0) {
        ++num_tasks;
        nfirst_task_step = static_cast<T>(mod) * step;
        if (num_tasks == 1)
          task_step = nfirst_task_step;
        else
          nfirst = num_tasks - 2;
      }
    } else if (num_tasks <= 1) {
      num_tasks = 1;
      task_step = end - start;
    } else if (num_tasks >= grainsize && num_tasks != ~0ul) {
      U mul = static_cast<U>(num_tasks) * grainsize;
      task_step = static_cast<T>(grainsize) * step;
      if (mul != n) {
        nfirst_task_step = task_step;
        task_step += step;
        nfirst = static_cast<unsigned long>(n - mul - 1);
      }
    } else {
      U div = n / num_tasks, mod = n % num_tasks;
      task_step = static_cast<T>(div) * step;
      if (mod != 0) {
        nfirst_task_step = task_step;
        task_step += step;
        nfirst = static_cast<unsigned long>(mod - 1);
      }
    }
  } else {
    if (num_tasks == 0) num_tasks = me().team != nullptr ? me().team->n : 1;
    if (num_tasks >= n) {
      num_tasks = static_cast<unsigned long>(n);
    } else {
      U div = n / num_tasks, mod = n % num_tasks;
      task_step = static_cast<T>(div) * step;
      if (mod != 0) {
        nfirst_task_step = task_step;
        task_step += step;
        nfirst = static_cast<unsigned long>(mod - 1);
      }
    }
  }

  bool group = (flags & kFlagNogroup) == 0;
  if (!group && task_discarded()) return;
  if (group) {
    taskgroup_start();
    if ((flags & kFlagReduction) != 0)
      taskgroup_reduction_register(static_cast<DataHead<T>*>(data)->reductions);
  }

  ThreadState& s = me();
  TaskGroup* taskgroup = s.taskgroup;
  bool was_final = s.in_final;
  bool task_final = was_final || (flags & kFlagFinal) != 0;
  const void* parent = s.task;
  if ((flags & kFlagIf) != 0 && task_deferrable(num_tasks)) {
    for (unsigned long i = 0; i < num_tasks; ++i) {
      char* arg;
      TaskNode* node = task_alloc(fn, arg_size, arg_align, false, &arg);
      if (cpyfn != nullptr) {
        s.in_final = task_final;  // the copy runs as the new task (libgomp: thr->task)
        s.task = node;
        cpyfn(arg, data);
        s.in_final = was_final;
        s.task = parent;
      } else {
        memcpy(arg, data, static_cast<size_t>(arg_size));
      }
      T* bounds = reinterpret_cast<T*>(arg);
      bounds[0] = start;
      start += task_step;
      bounds[1] = start;
      if (i == nfirst) task_step = nfirst_task_step;
      task_submit(node, task_final, cpyfn != nullptr, nullptr);
    }
    if (group) taskgroup_end();
    return;
  }
  char self;  // the tasks' identity (one at a time: they run one after the other)
  size_t align = static_cast<size_t>(arg_align);
  size_t size = (static_cast<size_t>(arg_size) + align - 1) & ~(align - 1);
  unsigned long copies = cpyfn != nullptr ? num_tasks : 1;
  char stack_buf[512];
  size_t bytes = copies * size + align - 1;
  char* buf = bytes <= sizeof stack_buf ? stack_buf : static_cast<char*>(xmalloc(bytes));
  char* args = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(buf) + align - 1) &
                                       ~static_cast<uintptr_t>(align - 1));
  if (cpyfn != nullptr) {
    s.in_final = task_final;
    s.task = &self;
    for (unsigned long i = 0; i < num_tasks; ++i) cpyfn(args + i * size, data);
  }
  for (unsigned long i = 0; i < num_tasks; ++i) {
    char* arg = args + (cpyfn != nullptr ? i * size : 0);
    if (cpyfn == nullptr) memcpy(arg, data, static_cast<size_t>(arg_size));
    T* bounds = reinterpret_cast<T*>(arg);
    bounds[0] = start;
    start += task_step;
    bounds[1] = start;
    if (i == nfirst) task_step = nfirst_task_step;
    s.in_final = task_final;
    s.taskgroup = taskgroup;
    s.task = &self;
    // A task of a cancelled taskgroup does not start, unless its data was copy-constructed
    // (libgomp runs those, so that the copies are destroyed).
    if (cpyfn == nullptr && task_discarded()) continue;
    fn(arg);
  }
  if (buf != stack_buf) free(buf);
  s.in_final = was_final;
  s.taskgroup = taskgroup;
  s.task = parent;

  if (group) taskgroup_end();
}

}  // namespace
}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

void psn_GOMP_taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                       long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                       long start, long end, long step) {
  taskloop<long, unsigned long>(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, start, end,
                                step);
}

void psn_GOMP_taskloop_ull(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*),
                           long arg_size, long arg_align, unsigned flags, unsigned long num_tasks,
                           int priority, unsigned long long start, unsigned long long end,
                           unsigned long long step) {
  taskloop<unsigned long long, unsigned long long>(fn, data, cpyfn, arg_size, arg_align, flags,
                                                   num_tasks, start, end, step);
}

}  // extern "C"
