// The native OpenMP runtime's state (POOLSHIM_OPENMP=shim; docs/openmp.md): a team per parallel
// region, on its caller's stack, whose members run on core/gang.h's gangs; each thread's place
// in its innermost team; the ICVs (OpenMP's internal control variables) with libgomp's defaults
// and its reading of the OMP_* environment, so that team sizes, and with them every result that
// depends on them, are libgomp's.
#pragma once
#include <atomic>
#include <cstdint>

#include "abi/openmp/runtime/places.h"
#include "base/assert.h"
#include "core/tls.h"

namespace poolshim::abi::openmp::runtime {

// A small futex lock (0 free, 1 held, 2 held with waiters), for critical and atomic sections
// and a team's worksharing list: user code runs inside the first two, so waiters sleep.
struct Lock {
  std::atomic<uint32_t> state{0};
  void lock();
  void unlock();
};

// Schedules as omp_sched_t numbers them, and kDynamicAnyOrder: not an omp_sched_t value, but how
// an entry point asks for a dynamic schedule without the monotonic modifier (OpenMP 5.0's default
// for `schedule(dynamic)`), whose chunks may go to the members in any order (loop_steal.cpp); the
// construct records it as kDynamic with WorkShare::steal set.
enum Sched : int { kStatic = 1, kDynamic = 2, kGuided = 3, kAuto = 4, kDynamicAnyOrder = 5 };

struct Icv {
  unsigned nthreads = 1;           // nthreads-var
  bool dyn = false;                // dyn-var (libgomp: false)
  unsigned max_active_levels = 1;  // max-active-levels-var
  int run_sched = kDynamic;        // run-sched-var (libgomp: dynamic, chunk 1)
  int run_chunk = 1;
  unsigned thread_limit = 0xffffffffu;  // thread-limit-var (UINT_MAX: none)
  int default_device = 0;               // default-device-var (target.cpp)
  int bind = 0;                         // bind-var (places.h: Bind; libgomp's at load)
};

struct WorkShare;

// Tasks (task.cpp): a taskgroup of the calling thread's current task, as
// libgomp's: GOMP_taskgroup_start pushes one (its reductions inherited from the enclosing one),
// GOMP_taskgroup_end pops it, once the tasks bound to it (created in it, by its task or by their
// descendants) are complete. A task's taskgroup is its encountering task's innermost one.
struct TaskGroup {
  TaskGroup* prev = nullptr;
  uintptr_t* reductions = nullptr;  // task reductions in libgomp's layout (task_reduction.cpp)
  bool workshare = false;           // a worksharing construct's (ws_reductions_begin)
  std::atomic<bool> cancelled{false};
  std::atomic<unsigned long> tasks{0};  // deferred tasks bound to it not yet complete
  void* kmpc_reductions = nullptr;      // its __kmpc task reductions (kmpc/task_reduction.cpp)
};

struct TaskNode;   // a deferred task (task_queue.cpp)
struct TaskQueue;  // a member's deferred tasks (task_wait.h)

// alignas(64): a team lives on its master's stack (parallel.cpp), and every member reads its first
// line (n, level, the ICVs) for each task and construct; aligned, that line never shares with the
// master's deeper frames, which it writes all the time.
struct alignas(64) Team {
  unsigned n = 1;             // members
  unsigned level = 0;         // nesting level of this region (1 = outermost)
  unsigned active_level = 0;  // regions with more than one member, this one included
  Team* parent = nullptr;     // the team member 0 belonged to (ancestor queries)
  unsigned parent_num = 0;    // member 0's thread number there
  void (*fn)(void*) = nullptr;
  void* data = nullptr;
  Icv member_icv;  // each member's ICVs at the start (libgomp: the creator's copy)
  // Barrier: the generation (high half; kBarCancelled: the team was cancelled) and the arrivals
  // in it (low half), one word so that an arrival is one read-modify-write that also reads the
  // generation it waits in. Written by members; waiters sleep on task_event (team_barrier.cpp).
  std::atomic<uint64_t> bar{0};
  // Worksharing constructs in flight, by sequence number (under ws_lock).
  Lock ws_lock;
  WorkShare* ws_head = nullptr;
  WorkShare* preset = nullptr;  // run_region's construct, which every member starts inside
  // single: the highest construct number claimed (members compare their own count).
  std::atomic<unsigned long> single_claimed{0};
  // single copyprivate: the data the executing member broadcasts.
  std::atomic<void*> copy_data{nullptr};
  // GOMP_parallel_reductions: every member's implicit task starts in this taskgroup.
  TaskGroup* taskgroup = nullptr;
  // The creator's teams place (ThreadState's), which every member inherits (libgomp:
  // gomp_team_start copies it to each thread); the contention group's busy-thread count
  // (libgomp's pool->threads_busy, thread-limit-var's accounting across nested regions): cg
  // points at the outermost team's cg_busy; cg_added is what this region added to it.
  unsigned num_teams = 0;
  unsigned team_num = 0;
  uintptr_t def_allocator = 0;  // the creator's def-allocator-var (libgomp: ts.def_allocator)
  TeamPlaces places;            // where its members go (places.h)
  std::atomic<unsigned long> cg_busy{1};
  std::atomic<unsigned long>* cg = nullptr;
  unsigned long cg_added = 0;
  // Cancellation (cancel.cpp): `cancel for`/`cancel sections` seen in the current
  // construct (reset by the last arrival at every team barrier); `cancel parallel` is
  // kBarCancelled in bar's generation, which releases every cancellable barrier's waiters.
  std::atomic<bool> ws_cancelled{false};
  // Deferred tasks (task_queue.cpp): a queue per member, made by the first task submitted
  // (task_queues: t->n of them; freed by end_team); task_lock guards the dependences between
  // tasks (task_depend.cpp); task_event is the futex word every task wait sleeps on (bumped
  // when a task is queued or completes, or a barrier is released, while some waiter sleeps,
  // counted in task_sleepers).
  Lock task_lock;
  std::atomic<TaskQueue*> task_queues{nullptr};
  // Members that queued a task in this region (each counts itself at its first): they share the
  // bound on pending tasks (task_wait.h's over_share).
  std::atomic<unsigned> task_creators{0};
  std::atomic<uint32_t> task_event{0};
  std::atomic<uint32_t> task_sleepers{0};
  // Members that reached the region's end (region_member_end: the last one notifies).
  std::atomic<uint32_t> end_arrived{0};
  // A __kmpc reduction with the task modifier on the region [0] or on a worksharing construct
  // [1] (kmpc/task_reduction.cpp): the copies every member shares, and the members done with it.
  std::atomic<void*> kmpc_modifier[2] = {};
  std::atomic<unsigned> kmpc_modifier_done[2] = {};
  // Detached tasks submitted and not complete (task_queue.cpp): while there is one, a team of one
  // defers its tasks with depend clauses too (task_deferrable's `alone`).
  std::atomic<unsigned> detached_incomplete{0};
  // The body's data copied into the team (run_parallel_line): its address is the team's, so a
  // member starting the body fetches this line beside the team's own, not after them.
  static constexpr size_t kBodyLine = 64;
  alignas(64) unsigned char body_line[kBodyLine];
};
constexpr uint32_t kBarCancelled = 1u << 31;  // in Team::bar's generation; the count is the rest
inline uint32_t bar_generation(uint64_t bar) { return static_cast<uint32_t>(bar >> 32); }
inline uint32_t bar_arrivals(uint64_t bar) { return static_cast<uint32_t>(bar); }
inline uint64_t bar_word(uint32_t generation) { return static_cast<uint64_t>(generation) << 32; }
// Whether `cancel parallel` cancelled the team (kBarCancelled in its barrier word).
inline bool bar_cancelled(const Team& t) {
  return (bar_generation(t.bar.load(std::memory_order_acquire)) & kBarCancelled) != 0;
}

struct ThreadState {
  Team* team = nullptr;            // innermost team; nullptr outside any region (a team of 1)
  unsigned num = 0;                // thread number in it
  unsigned long ws_seq = 0;        // worksharing constructs this member entered in this team
  unsigned long single_seq = 0;    // single constructs it met
  unsigned long static_trip = 0;   // chunks of the current static loop it took
  WorkShare* ws = nullptr;         // its current worksharing construct
  void* doacross = nullptr;        // a __kmpc doacross loop's state (kmpc/doacross.cpp)
  void* pending_region = nullptr;  // GOMP_parallel_start's region, until GOMP_parallel_end
  long ord_begin = -1;  // ordered loops: logical numbers of the current chunk [begin, end)
  long ord_end = -1;
  Icv icv;
  // The flags together (the state is thread-local, and the shim's static TLS is at the size a
  // dlopen()ed library can still get: kmpc_thread.h): icv is set; the current task is final;
  // the thread is in a target region's host fallback (target_fallback, below).
  bool icv_ready = false;
  bool in_final = false;
  bool target_fallback = false;
  // The last task_deferrable() answered no because the thread's queue is at its bound (the task
  // runs at once), and how many such tasks it ran (every 64th is timed: task_queue.cpp,
  // task_overflow_sample). In the flags' padding: the state's size stays 176 bytes.
  bool queue_full = false;
  uint8_t overflow_runs = 0;
  // The current task: its innermost taskgroup, whether it is final (in_final), and which
  // explicit task it is (a unique address while it runs; nullptr in the implicit task, which is
  // this thread's: e.g. a nest lock's owner is `task ? task : the thread`).
  TaskGroup* taskgroup = nullptr;
  const void* task = nullptr;
  // The host teams region the thread runs (teams.cpp, target.cpp), as
  // libgomp's thr->num_teams (teams - 1) and thr->team_num; in a target region's host fallback
  // (target_fallback), the thread is a new initial thread whose ICVs are ours alone (not
  // libgomp's nthreads-var).
  unsigned num_teams = 0;
  unsigned team_num = 0;
  // def-allocator-var (alloc.cpp): 0 until omp_set_default_allocator (then libgomp's
  // default, OMP_ALLOCATOR's, applies); inherited by a region's members, as libgomp's.
  uintptr_t def_allocator = 0;
  // Its node when the current task is deferred, or the implicit task's once it made a deferred
  // task (its children's parent); nullptr before (task_queue.cpp).
  TaskNode* node = nullptr;
  // Its place and place partition (places.h); the proc_bind clause of the region it is about to
  // start (GOMP_parallel's flags & 7; init_team consumes it).
  PlaceState place;
  unsigned bind_clause = 0;
};
// Thread-local (t_state): the shim's static TLS has no room to spare (kmpc/kmpc_thread.h).
static_assert(sizeof(ThreadState) <= 176, "ThreadState grew: the static TLS block may not fit");

// The current task's identity (nest locks are owned by tasks): a task scope's tag, else the
// thread's initial implicit task.
const void* current_task();

// An undeferred task's data environment (GOMP_task): its own ICVs and identity while it runs.
// Inline (below me()): every undeferred task opens one.
struct TaskScope {
  explicit inline TaskScope(const void* tag);
  inline TaskScope(ThreadState& s, const void* tag);  // s: me(), from a caller that holds it
  inline ~TaskScope();
  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;
  ThreadState& state;
  Icv saved_icv;
  const void* saved_task;
};

// Whether nthreads-var of the calling thread is libgomp's (outside any region, outside a target
// region's host fallback): parallel.cpp and api.cpp read and write it there.
inline bool nthreads_is_libgomps(const ThreadState& s) {
  return s.team == nullptr && !s.target_fallback;
}

// The calling thread's state (ICVs from the globals on first use): me_first() sets them and
// t_me, so that every later call reads one thread-local word inline (the task paths ask it a few
// times per task).
extern __thread ThreadState* t_me POOLSHIM_FAST_TLS;
ThreadState& me_first();
inline ThreadState& me() {
  ThreadState* s = t_me;
  POOLSHIM_ASSERT(s == nullptr || s->icv_ready);
  return __builtin_expect(s != nullptr, 1) ? *s : me_first();
}
// Copies a task's ICVs as one block. Assigned, GCC scalarized a copy that lives across the
// task's body: it stored the fields as 4-byte words and read pairs of them back as 8-byte ones, a
// store-forwarding stall each (an undeferred task took 12 ns, 9 with the block; docs/openmp.md,
// "The undeferred task's path"). The empty asm statements make both sides memory the compiler
// must read and write whole.
inline void copy_icv(Icv* to, const Icv& from) {
  asm volatile("" : : "m"(from));
  __builtin_memcpy(to, &from, sizeof(Icv));
  asm volatile("" : "+m"(*to));
}
TaskScope::TaskScope(const void* tag) : TaskScope(me(), tag) {}
TaskScope::TaskScope(ThreadState& s, const void* tag) : state(s) {
  POOLSHIM_ASSERT(&s == &me());
  copy_icv(&saved_icv, s.icv);
  saved_task = s.task;
  s.task = tag;
}
TaskScope::~TaskScope() {
  POOLSHIM_ASSERT(&state == &me());  // an undeferred task never migrates
  copy_icv(&state.icv, saved_icv);
  state.task = saved_task;
}

Icv& icv();  // me().icv
const Icv& global_icv();
// nthreads for a region at this nesting level (OMP_NUM_THREADS lists: one value per level).
unsigned nthreads_for_level(unsigned level, unsigned fallback);
// bind-var of the members of a team at nesting level `level` (1 = outermost): OMP_PROC_BIND's
// list entry for it, else `inherited`. A list of more than one entry turns nesting on, as one
// in OMP_NUM_THREADS does.
int bind_for_level(unsigned level, int inherited);

// A barrier over the calling member's team (nothing for a team of 1); members waiting in it run
// the team's queued tasks, and it completes once every member arrived and the team has no task
// left (team_barrier.cpp). The last arrival clears the team's ws_cancelled.
void team_barrier();
// The end of the calling member's part of a region: a team barrier that runs the team's tasks
// until every member arrived and none is left (team_barrier.cpp). Called before it leaves the
// team.
void region_member_end();
// OMP_DISPLAY_AFFINITY (affinity_display.cpp): each thread shows its affinity when it changes.
bool display_affinity_var();
// How long a waiter spins before it sleeps, in ns: the pool's wait::kSpinNs, 0 with
// OMP_WAIT_POLICY=passive (libgomp: a spin count of 0).
long wait_spin_ns();

// The end of a region the calling thread created (parallel.cpp): gives back to the
// contention group what the region's size took from it.
void end_team(Team* t);
// A cancellable barrier (GOMP_barrier_cancel, the *_end_cancel ends): true when the region was
// cancelled, before or while waiting (team_barrier.cpp, with team_barrier; its callers in
// cancel.cpp). Its waiters run queued tasks too.
bool team_barrier_cancel();
// `cancel parallel` (cancel.cpp): sets kBarCancelled in t's barrier generation and wakes
// every waiter of the team (they sleep on its task_event: team_barrier.cpp).
void team_cancel(Team* t);

// Cancellation (cancel.cpp): cancel-var (OMP_CANCELLATION), read once (g_cancel_var: 0 until
// then, 1 false, 2 true; inline, as every task asks); whether a task met now is discarded (its
// team or taskgroup was cancelled: GOMP_task does not run it); a region's end (frees the
// constructs a cancelled team left behind).
extern std::atomic<int> g_cancel_var;
bool read_cancel_var();
inline bool cancel_var() {
  const int v = g_cancel_var.load(std::memory_order_relaxed);
  return __builtin_expect(v == 0, 0) ? read_cancel_var() : v == 2;
}
void team_cleanup(Team* t);
// Whether a task the calling thread creates or starts now is discarded: cancel-var, and its
// team, its taskgroup or (a worksharing construct's taskgroup) the one that holds it cancelled.
bool team_or_taskgroup_cancelled();  // cancel.cpp
inline bool task_discarded() { return cancel_var() && team_or_taskgroup_cancelled(); }
// A GOMP_task flag of the runtime's own (GCC's GOMP_TASK_FLAG_* stay below bit 16): the task's
// function runs even when the task is discarded, when it is created (at once, on its data) or
// once queued (as one whose data was copy-constructed does), and decides itself (kmpc/task.cpp:
// a discarded task's destructors run).
constexpr unsigned kTaskFlagRunsDiscarded = 1u << 30;

// A worksharing construct (loops, sections, single copyprivate): one per construct per team,
// found by the members' sequence numbers.
struct WorkShare {
  // dynamic and guided: the first unclaimed iteration (long loops, and unsigned long long ones).
  // Every claim writes it, so it has a cache line of its own: a member that reads the fields
  // below for its next claim does not lose them to another member's claim (as libgomp keeps
  // `next` apart from the read-mostly fields of its gomp_work_share).
  alignas(64) std::atomic<long> next_iter{0};
  std::atomic<unsigned long long> next_ull{0};
  alignas(64) unsigned long seq = 0;
  unsigned left = 0;  // members that left it (under the team's ws_lock)
  WorkShare* next = nullptr;
  int sched = kStatic;
  long chunk = 0;                     // in iterations
  long start = 0, end = 0, incr = 1;  // end normalised: start + iterations * incr
  std::atomic<long> ordered_turn{0};  // ordered: the logical number whose chunk may run now
  // ordered: bumped for the members asleep in wait_turn (counted in ordered_sleepers) when the
  // turn moves (loop.cpp).
  std::atomic<uint32_t> ordered_event{0};
  std::atomic<uint32_t> ordered_sleepers{0};
  bool ordered = false;
  // dynamic: chunks are claimed with one fetch_add, not a compare-exchange loop (loop_split.cpp,
  // init_loop: set only where the claims that overshoot the end cannot overflow).
  bool claim_by_add = false;
  void* copyprivate = nullptr;
  uintptr_t* task_reductions = nullptr;  // the first member's task reductions (below)
  // Unsigned long long loops (loop_split.cpp; ull set: these fields, not the long
  // ones; up: counting up), the `mem` block of GOMP_loop_start and its kin, doacross state.
  bool ull = false;
  bool up = true;
  unsigned long long start_ull = 0, end_ull = 0, incr_ull = 1, chunk_ull = 0;
  void* mem = nullptr;
  struct Doacross* doacross = nullptr;
  // A dynamic loop in any order (loop_steal.cpp): each member's range of chunk numbers, which it
  // claims from the front and the others steal from the back; null for every other loop.
  struct StealRange* steal = nullptr;
  unsigned steal_members = 0;
  uint32_t steal_last = 0;  // the last chunk's number (its end is the loop's end)
  WorkShare() = default;
  WorkShare(const WorkShare&) = delete;
  WorkShare& operator=(const WorkShare&) = delete;
  ~WorkShare();  // frees mem and doacross (loop.cpp)
};

// Task reductions on a worksharing construct (task_reduction.cpp), the interface between
// the constructs (GOMP_loop_start, GOMP_loop_ull_start, GOMP_sections2_start, GOMP_scope_start
// with a `reductions` array) and the task reduction runtime: a member calls ws_reductions_begin()
// before it enters the construct; the first member to arrive calls ws_reductions_first() while it
// initialises the construct (it registers the array and keeps it in ws->task_reductions); every
// other member calls ws_reductions_join() once it is inside (its array is bound to the first's).
void ws_reductions_begin();
void ws_reductions_first(WorkShare* ws, uintptr_t* reductions);
void ws_reductions_join(WorkShare* ws, uintptr_t* reductions);

// Tasks (task.cpp): GOMP_taskgroup_start/_end for the calling thread's current task.
void taskgroup_start();
void taskgroup_end();
// Whether the current taskgroup was cancelled (TaskGroup::cancelled, which GOMP_cancel of a
// taskgroup sets), or for a worksharing construct's taskgroup the one it is in (libgomp's rule):
// a new task of it does not start.
bool taskgroup_cancelled();
bool taskgroup_cancelled(const TaskGroup* g);

// Deferred tasks (task_queue.cpp). task_deferrable() (inline in task_wait.h): whether a new task of
// the calling thread may be queued (a team of more than one, or of one when `alone`: a detached
// task, whose creator must not wait for its event there, or a task with depend clauses while a
// detached task is incomplete (team_detached_incomplete), as it may depend on one: libgomp defers
// every task of a team; not inside a final task; fewer than libgomp's 64 tasks per member pending;
// extra: tasks about to be created). task_alloc() makes a node with room for arg_size bytes aligned
// to arg_align (its event, &node->event, is the task's omp_event_handle_t for detach);
// task_submit() binds it to the calling thread's current task and taskgroup and queues it, or with
// a depend array (GOMP_task's) once its earlier siblings that it depends on are complete
// (task_depend.cpp). copied: its data came from a copy function (a cancelled taskgroup still runs
// it, as libgomp's).
// A task that ran at once because its creator's queue was at its bound (ThreadState::queue_full)
// took `ticks` (base::ticks()): the queue's running figure of such tasks (TaskQueue::inline_ticks,
// read by wait_until).
void task_overflow_sample(uint64_t ticks);
inline bool team_detached_incomplete() {
  const Team* t = me().team;
  return t != nullptr && t->detached_incomplete.load(std::memory_order_relaxed) != 0;
}
TaskNode* task_alloc(void (*fn)(void*), long arg_size, long arg_align, bool detach, char** arg);
void task_submit(TaskNode* node, bool final, bool copied, void** depend);
// The __kmpc ABI's detached task (kmpc/task.cpp): __kmpc_task_allow_completion_event hands out its
// event before the task is submitted, so its node (task_alloc with detach: the event is
// &node->event) exists first, with its body and data. task_submit_detached() then does what
// GOMP_task does with a task (flags and depend as GOMP_task's): discards it, queues it, or, when
// it may not be deferred, runs it at once and waits for its event. A task the compiler runs itself
// (if(0)) calls the undeferred pair around its body instead: begin turns the node's event into an
// undeferred task's (omp_fulfill_event sets it and wakes), end waits for it and frees the node.
void task_submit_detached(TaskNode* node, bool if_clause, unsigned flags, void** depend);
void task_detached_undeferred_begin(TaskNode* node);
void task_detached_undeferred_end(TaskNode* node);
// Waits, running queued tasks, until the calling task's children are complete (taskwait).
void task_wait_children();
// Waits, running queued tasks, until the calling task's children that a task with this depend
// array would depend on are complete (taskwait depend; an undeferred task's depend clauses).
void task_wait_depend(void** depend);
// An undeferred task (GOMP_task runs it at once) has a node of its own once it creates a
// deferred task, so that its children and its taskwait are its own: begin before its body
// (returns the encountering task's node), end after it. Inline: most tasks of a busy team run
// undeferred (task_deferrable's bound), and most of those create no task of their own.
void task_undeferred_release(TaskNode* own);  // task_queue.cpp
inline TaskNode* task_undeferred_begin(ThreadState& s) {
  TaskNode* outer = s.node;
  s.node = nullptr;  // the deferred tasks it creates are its children (implicit_node)
  return outer;
}
inline void task_undeferred_end(ThreadState& s, TaskNode* outer) {
  TaskNode* own = s.node;
  s.node = outer;
  if (own != nullptr) task_undeferred_release(own);
}
// Waits, running queued tasks, until the tasks bound to g are complete (taskgroup end).
void task_wait_group(TaskGroup* g);
// omp_fulfill_event for a deferred task's event.
void task_fulfill(TaskNode* node);
// The end of a team (end_team): frees its task queues, once every member has left.
void task_queues_free(Team* t);
// GOMP_taskgroup_reduction_register (task_reduction.cpp).
void taskgroup_reduction_register(uintptr_t* data);
// A parallel region whose members' implicit tasks start in `taskgroup` (GOMP_parallel_reductions;
// parallel.cpp). n: the team size from team_size_for().
void run_parallel(void (*fn)(void*), void* data, unsigned n, TaskGroup* taskgroup);
// A parallel region whose body's data, `size` bytes at most Team::kBodyLine, is copied into the
// team's body line; fn gets its address. n: the team size from team_size_for().
void run_parallel_line(void (*fn)(void*), const void* data, size_t size, unsigned n);

// Worksharing (loop.cpp): enter the calling member's next construct, creating it with
// init(arg) when it is the first to arrive (*first = true then); leave it.
WorkShare* ws_enter(void (*init)(WorkShare*, void*), void* arg, bool* first);
void ws_leave();

// A parallel region (parallel.cpp) whose members start inside a worksharing construct
// already set up (GOMP_parallel_loop_*, GOMP_parallel_sections): preset becomes each member's
// first construct. n: the team size from team_size_for().
void run_region(void (*fn)(void*), void* data, unsigned n, WorkShare* preset);
unsigned team_size_for(unsigned specified);
// The proc_bind clause (flags & 7 of a GOMP_parallel* entry) of the region the calling thread is
// about to start.
void set_bind_clause(unsigned flags);
// Outside any region: nthreads-var as libgomp holds it for this thread (or ours without libgomp).
unsigned team_size_hint();

// Loops (loop.cpp; loop_next in loop_split.cpp). sched: kStatic, kDynamic, kGuided, kAuto, or 0 for
// runtime (the run-sched ICV). start() enters the construct and takes the first chunk.
bool loop_start(int sched, long start, long end, long incr, long chunk, bool ordered, long* istart,
                long* iend);
bool loop_next(long* istart, long* iend);
void loop_end(bool barrier);
// For a team of n about to start (GOMP_parallel_loop_* and the combined sections).
WorkShare* preset_loop(unsigned n, int sched, long start, long end, long incr, long chunk);
void ordered_start();

}  // namespace poolshim::abi::openmp::runtime
