// Task dependences of the native runtime (depend clauses on tasks, taskwait depend).
//
// As the specification orders them: a task with depend clauses may start only once every
// earlier sibling task (same parent) that is not yet complete and names one of its addresses,
// the one or the other as out (out, inout, mutexinoutset), is complete. Each parent node keeps
// the list of its children with depend clauses that are not yet complete; a new one is made a
// successor of each conflicting sibling of that list, and is queued once its last predecessor
// completes. A sibling that is not in conflict never delays it: two independent chains run at
// once, and a creator never waits for an unrelated task (libgomp neither). Depending on every
// conflicting sibling rather than only on the last writer and the readers since (libgomp's hash)
// gives the same order: the skipped edges are implied by the kept ones. The cost is a scan of
// the parent's pending dependent children per new task; their number is bounded by the deferral
// bound (64 per member, task_queue.cpp).
#include <stdint.h>
#include <stdlib.h>

#include "abi/openmp/runtime/task_node.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "base/assert.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// gomp-constants.h's GOMP_DEPEND_IN, as a depobj holds its kind; out, inout and mutexinoutset
// are 2, 3 and 4.
constexpr uintptr_t kDependIn = 1;

void add_successor(TaskNode* pred, TaskNode* n) {
  if (pred->nsucc == pred->succ_cap) {
    size_t cap = pred->succ_cap != 0 ? 2 * pred->succ_cap : 4;
    auto* grown = static_cast<TaskNode**>(xmalloc(cap * sizeof(TaskNode*)));
    for (size_t i = 0; i < pred->nsucc; ++i) grown[i] = pred->succ[i];
    free(pred->succ);
    pred->succ = grown;
    pred->succ_cap = cap;
  }
  pred->succ[pred->nsucc++] = n;
}

}  // namespace

bool depend_conflict(const TaskNode* a, const TaskNode* b) {
  for (size_t i = 0; i < a->ndeps; ++i)
    for (size_t j = 0; j < b->ndeps; ++j)
      if (a->deps[i].addr == b->deps[j].addr && (a->deps[i].out || b->deps[j].out)) return true;
  return false;
}

TaskNode::~TaskNode() {
  POOLSHIM_ASSERT(dep_children == nullptr);  // its dependent children completed before it
  free(deps);
  free(succ);
}

Dep* depend_parse(void** depend, size_t* ndeps) {
  // Old layout: [n, nout, out addresses..., in addresses...]. New one (GCC 11 on): [0, n, nout,
  // nmutexinoutset, nin, out..., mutexinoutset..., in..., depobjs...], where a depobj is a
  // {address, kind} pair.
  size_t n = reinterpret_cast<uintptr_t>(depend[0]);
  size_t nout = 0, normal = 0;
  void** addrs = nullptr;
  if (n != 0) {
    nout = reinterpret_cast<uintptr_t>(depend[1]);
    normal = n;
    addrs = depend + 2;
  } else {
    n = reinterpret_cast<uintptr_t>(depend[1]);
    nout = reinterpret_cast<uintptr_t>(depend[2]) + reinterpret_cast<uintptr_t>(depend[3]);
    normal = nout + reinterpret_cast<uintptr_t>(depend[4]);
    addrs = depend + 5;
  }
  POOLSHIM_ASSERT(nout <= normal && normal <= n);
  Dep* deps = static_cast<Dep*>(xmalloc((n != 0 ? n : 1) * sizeof(Dep)));
  for (size_t i = 0; i < normal; ++i) deps[i] = Dep{addrs[i], i < nout};
  for (size_t i = normal; i < n; ++i) {
    void** obj = static_cast<void**>(addrs[i]);
    uintptr_t kind = reinterpret_cast<uintptr_t>(obj[1]);
    // An unknown kind (libgomp stops the program) is taken as out: it orders the most.
    deps[i] = Dep{obj[0], kind != kDependIn};
  }
  *ndeps = n;
  return deps;
}

unsigned depend_register_locked(TaskNode* parent, TaskNode* n, bool list) {
  unsigned preds = 0;
  for (TaskNode* s = parent->dep_children; s != nullptr; s = s->dep_next)
    if (depend_conflict(s, n)) {
      add_successor(s, n);
      ++preds;
    }
  n->npred.store(preds, std::memory_order_relaxed);
  if (list) {
    n->dep_prev = nullptr;
    n->dep_next = parent->dep_children;
    if (parent->dep_children != nullptr) parent->dep_children->dep_prev = n;
    parent->dep_children = n;
  }
  return preds;
}

void depend_complete_locked(TaskNode* n) {
  TaskNode* parent = n->parent;
  (n->dep_prev != nullptr ? n->dep_prev->dep_next : parent->dep_children) = n->dep_next;
  if (n->dep_next != nullptr) n->dep_next->dep_prev = n->dep_prev;
  n->dep_prev = n->dep_next = nullptr;
  for (size_t i = 0; i < n->nsucc; ++i) {
    TaskNode* s = n->succ[i];
    bool waiter = s->waiter;  // a waiter may return once npred is 0: read it first
    unsigned left = s->npred.fetch_sub(1, std::memory_order_acq_rel);
    POOLSHIM_ASSERT(left > 0);  // each edge was counted once, when it was made
    if (left == 1 && !waiter) queue_task(n->team, s);
  }
  n->nsucc = 0;
}

}  // namespace poolshim::abi::openmp::runtime
