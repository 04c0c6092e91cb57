// A task of the native runtime as task_queue.cpp (its queue and completion) and task_depend.cpp
// (its dependences) share it: a deferred task's node, an implicit task's node (the parent of the
// tasks it creates), an undeferred task's node (once it creates a deferred task), or a waiter on
// the caller's stack (an undeferred task's or a taskwait's dependences).
#pragma once
#include <stddef.h>

#include <atomic>
#include <cstdint>

#include "abi/openmp/runtime/state.h"

namespace poolshim::abi::openmp::runtime {

// One address of a depend clause: out for out, inout and mutexinoutset (libgomp treats the last
// as out too, which the specification allows), else in.
struct Dep {
  void* addr;
  bool out;
};

struct TaskNode;

// What an omp_event_handle_t points at: a deferred detached task's (inside its node: node set,
// fulfilled through its node's holds), or an undeferred one's (on its creator's stack: node
// nullptr; omp_fulfill_event sets fulfilled and wakes the creator, which waits for it).
struct TaskEvent {
  TaskNode* node = nullptr;
  std::atomic<uint32_t> fulfilled{0};
};

struct TaskNode {
  ~TaskNode();               // frees deps and succ (task_depend.cpp)
  TaskNode* next = nullptr;  // in the team's queue (newer)
  TaskNode* prev = nullptr;  // in the team's queue (older)
  void (*fn)(void*) = nullptr;
  char* arg = nullptr;  // its data, inside the node's allocation
  Team* team = nullptr;
  TaskNode* parent = nullptr;  // its encountering task's node
  unsigned home = 0;           // the member that created it: its queue and counts (task_queue.cpp)
  TaskGroup* taskgroup = nullptr;
  bool final = false;
  bool copied = false;    // its data came from a copy function
  bool implicit = false;  // an implicit task's node (freed at the region's end)
  bool detached = false;  // made by task_alloc with detach: counted in detached_incomplete
  Icv icv;                // its data environment's ICVs while it runs
  TaskEvent event;        // its omp_event_handle_t when detached (event.node: this node)
  // 1 for itself until it is complete, plus 1 per child not yet complete; freed at 0. While it
  // runs, its children are complete when this is 1.
  std::atomic<unsigned long> refs{1};
  // What its completion still waits for: its body, and when detached its event.
  std::atomic<unsigned> holds{1};

  // Dependences (task_depend.cpp), written under its team's task_lock. deps: its depend
  // clauses' addresses (ndeps; nullptr without any). While it is not complete, a node with deps
  // is in its parent's list of such children (dep_children, linked by dep_prev/dep_next), and
  // succ holds the later siblings (and waiters) that depend on it. npred counts its own
  // predecessors not yet complete: a deferred task is queued when it reaches 0; a waiter
  // (waiter set) is never queued, its owner waits for 0 (read without the lock).
  Dep* deps = nullptr;
  size_t ndeps = 0;
  TaskNode* dep_prev = nullptr;
  TaskNode* dep_next = nullptr;
  TaskNode* dep_children = nullptr;
  TaskNode** succ = nullptr;
  size_t nsucc = 0;
  size_t succ_cap = 0;
  std::atomic<unsigned> npred{0};
  bool waiter = false;
};

// task_queue.cpp: queues n in its home member's queue of t; wakes t's task waiters, those that
// sleep (after a change they wait for).
void queue_task(Team* t, TaskNode* n);
void notify(Team* t);

// Whether a and b name an address in common, the one or the other as out (task_depend.cpp).
bool depend_conflict(const TaskNode* a, const TaskNode* b);

// task_depend.cpp, each with the team's task_lock held.
// Makes n (with deps) depend on every sibling in parent's list whose clauses conflict with its
// own (the same address, one of the two out): each such sibling gets n in its succ and n's npred
// counts it. Returns npred. list: n joins parent's list (a deferred task; not a waiter).
unsigned depend_register_locked(TaskNode* parent, TaskNode* n, bool list);
// n is complete: it leaves its parent's list, and its successors whose npred reaches 0 are
// queued (a waiter is only counted down).
void depend_complete_locked(TaskNode* n);
// GOMP_task's depend array (libgomp's two layouts; depobj entries) as deps; xmalloc'd.
Dep* depend_parse(void** depend, size_t* ndeps);

}  // namespace poolshim::abi::openmp::runtime
