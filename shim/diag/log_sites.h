// Log-once: every line the shim writes at most once names its call site here. One enumerator per
// call site, so a site's identity never depends on line numbers, file paths or symbol ids.
//
// Two scopes use the enum:
//  - once per process: claim_once(site) flips the site's bit in one atomic word (log.h's
//    log_once and warn_once). A forked child inherits its parent's bits, as it inherits the
//    rest of the parent's memory: what the parent said is not repeated.
//  - once per (site, calling module): caller.h's log_first_call and warn_first_call, keyed by
//    the site and the caller module's base address (forgotten when a module is unloaded).
#pragma once

namespace poolshim::diag {

enum class LogSite : unsigned {
  // --- once per process --------------------------------------------------------------------
  config_problems,           // log.cpp: the bad values config/ collected, before any other line
  budget_above_cpus,         // budget/budget.cpp: POOLSHIM_NUM_THREADS far above the CPUs
  group_path_too_long,       // budget/group.cpp: the ledger path does not fit
  group_join_failed,         // budget/group.cpp: the ledger cannot be joined
  group_no_slot_after_fork,  // budget/group.cpp: a forked child finds no free slot
  workers_cannot_start,      // core/workers.cpp: no worker thread at all
  workers_partial,           // core/workers.cpp: fewer workers than wanted (degraded: N of M)
  pool_started,              // core/workers.cpp: "pool started: N threads"
  task_ended_worker,         // core/join.cpp: a task ended its worker (pthread_exit, cancel)
  openmp_forwarding,         // abi/openmp/forward.cpp: where OpenMP calls go
  openmp_serial,             // abi/openmp/forward.cpp: no libgomp, serial answers
  openmp_missing,            // abi/openmp/forward.cpp: no libgomp, no serial meaning
  openmp_native,             // abi/openmp/forward.cpp: the native runtime in force (the default)
  openmp_kmpc,               // abi/openmp/forward.cpp: where LLVM OpenMP's __kmpc_* calls go
  openmp_kmpc_missing,       // abi/openmp/forward.cpp: a __kmpc_* call and no libomp loaded
  openmp_kmpc_mode,          // abi/openmp/kmpc/gate.cpp: __kmpc natively or to libomp, and why
  openmp_kmpc_late,          // abi/openmp/forward.cpp: a non-native __kmpc row, native process
  team_extra_threads,        // core/gang_threads.cpp: a team thread started beyond the budget
  team_shrunk,               // core/gang.cpp: threads for some of a team's seats could not start
  openmp_affinity_format,    // abi/openmp/runtime/affinity_display.cpp: a malformed format
  // --- once per (site, calling module) -----------------------------------------------------
  // A site that serves several ExecuTorch symbols (both namespaces' get_pthreadpool, the
  // members forwarded for a foreign object) says its line once per module, naming the first.
  et_get_threadpool,     // abi/executorch/surface.cpp: executorch::...::get_threadpool()
  torch_get_threadpool,  // abi/executorch/surface.cpp: torch::executorch::...::get_threadpool()
  et_get_pthreadpool_shared,  // abi/executorch/surface.cpp: get_pthreadpool() -> the shared handle
  et_get_pthreadpool_serial,  // abi/executorch/surface.cpp: get_pthreadpool() -> NULL, caller
                              // unknown
  et_private_pthreadpool,     // abi/executorch/surface.cpp: the module keeps its own pthreadpool
  et_foreign_without_definition,  // abi/executorch/surface.cpp: foreign object, no definition to
                                  // forward to
  pthreadpool_create,             // abi/pthreadpool/lifecycle.cpp: pthreadpool_create(n)
  count
};

// True for exactly one caller per process and site (one atomic bit per site).
bool claim_once(LogSite site);

}  // namespace poolshim::diag
