/**
 * @file poolshim.h
 * @brief poolshim's native C API: one process-wide CPU thread pool, negotiated inside one budget.
 *
 * Every function is safe to call from any thread, before or after main(), from inside a task
 * (a nested call runs inline on the calling thread) and in a forked child. Nothing here starts a
 * thread except a parallel loop that needs more than one.
 */
#ifndef POOLSHIM_POOLSHIM_H_
#define POOLSHIM_POOLSHIM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(POOLSHIM_BUILDING)
#define POOLSHIM_API __attribute__((visibility("default")))
#else
#define POOLSHIM_API
#endif

/* Version of this header (POOLSHIM_VERSION_MAJOR/MINOR/PATCH/STRING, POOLSHIM_VERSION), generated
 * from CMake's project(VERSION); poolshim_info.version reports the library's. */
#include <poolshim/version.h>

/**
 * Ask for threads on behalf of a named component, or change an earlier request.
 * @param component  a short name identifying the caller (copied, at most 63 bytes are kept);
 *                   NULL means "default". Calling again with the same name replaces the request.
 * @param threads    how many threads the component wants; 0 means "as many as the budget allows".
 * @return the grant: min(threads, budget), at least 1. The pool grows to the largest grant.
 */
POOLSHIM_API size_t poolshim_request_threads(const char* component, size_t threads);

/** Withdraw a component's request (NULL = "default"). Unknown names are ignored. */
POOLSHIM_API void poolshim_release_threads(const char* component);

/** A loop body: called once per index, with a thread index below the loop's width. */
typedef void (*poolshim_task_fn)(void* context, size_t thread_index, size_t index);

/**
 * Run task(context, thread_index, i) for every i in [0, range) and return when all are done.
 * @param task         the loop body; NULL is a no-op.
 * @param context      passed to every call unchanged; may be NULL.
 * @param range        number of indices; 0 returns at once.
 * @param max_threads  at most this many threads work on the loop; 0 = the whole pool.
 * Within one call, concurrent invocations never share a thread_index, and every thread_index is
 * below poolshim_get_width(max_threads) as read before the call.
 */
POOLSHIM_API void poolshim_parallelize_1d(poolshim_task_fn task, void* context, size_t range,
                                          size_t max_threads);

/** Threads a loop with this limit may use now (0 = no limit): at least 1. */
POOLSHIM_API size_t poolshim_get_width(size_t max_threads);

/** Threads in the pool, counting the caller (the size it will start with, if not started). */
POOLSHIM_API size_t poolshim_get_pool_size(void);

/** The thread budget in force (at least 1): the cap set with poolshim_set_budget(), else the
 *  computed budget (POOLSHIM_NUM_THREADS, affinity mask, cgroup quota). */
POOLSHIM_API size_t poolshim_get_budget(void);

/**
 * Cap the budget at run time (threadpoolctl-style), from any thread, at any time, including from
 * inside a task and while other threads are inside calls. Every top-level call that starts after
 * this returns uses at most min(threads, computed budget) threads; calls already running finish
 * unchanged (nothing is lost or run twice).
 * @param threads  the cap; 0 removes it (the computed budget is in force again).
 * @return the budget now in force.
 */
POOLSHIM_API size_t poolshim_set_budget(size_t threads);

/** Where the budget came from, e.g. "POOLSHIM_NUM_THREADS=4" or "affinity mask (8 CPUs)".
 *  Never NULL; the string lives as long as the process. */
POOLSHIM_API const char* poolshim_get_budget_source(void);

/**
 * A snapshot of the shim's state. Versioned: set struct_size = sizeof(struct poolshim_info)
 * before the call; the library fills only the fields that fit and sets version.
 */
struct poolshim_info {
  uint32_t struct_size;       /**< in: sizeof(struct poolshim_info) as the caller knows it */
  uint32_t version;           /**< out: POOLSHIM_VERSION of the library */
  size_t budget;              /**< thread budget */
  const char* budget_source;  /**< never NULL */
  size_t pool_size;           /**< threads in the pool, counting the caller */
  int pool_started;           /**< 1 when worker threads exist */
  size_t live_requests;       /**< components and pthreadpool handles with a request */
  uint32_t disabled_surfaces; /**< POOLSHIM_DISABLE bits: 1 executorch, 2 pthreadpool, 4 openmp */
  int log_level;              /**< 0 off, 1 warn, 2 info, 3 debug */
  /* version 0.2 */
  size_t computed_budget;      /**< the budget before any cap (env, affinity, cgroup) */
  size_t budget_cap;           /**< the poolshim_set_budget() cap in force; 0 = none */
  int degraded;                /**< 1 when parallel calls run serially because the pool failed */
  const char* degraded_reason; /**< why, or "" (never NULL) */
  const char* group;           /**< POOLSHIM_GROUP name, or "" when not in a group */
  size_t group_members;        /**< live processes in the group (0 when not in a group) */
  size_t group_busy;           /**< pool threads busy across the group right now */
  /* version 0.3 */
  size_t workers_started; /**< pool worker threads that exist (the caller not counted) */
  size_t workers_wanted;  /**< the most the pool asked for (0 before the first parallel call);
                               more than workers_started after a partial pthread_create
                               failure: degraded, the pool runs with the workers it has and
                               retries with backoff */
  /* version 0.4 */
  size_t team_threads; /**< OpenMP team threads started beyond the budget (POOLSHIM_OPENMP=shim:
                            a team larger than the idle workers gets its threads, as libgomp
                            would create them; kept for later teams, named poolshim-team) */
};

/**
 * Fill *info. @return 0 on success, -1 when info is NULL or info->struct_size is smaller than the
 * version-0 layout (offsetof pool_size + sizeof(size_t)).
 */
POOLSHIM_API int poolshim_get_info(struct poolshim_info* info);

/** What a preload can do for one loaded module and one surface. */
enum poolshim_verdict {
  POOLSHIM_ABSENT = 0,     /**< the module carries no copy of the surface */
  POOLSHIM_REDIRECTED = 1, /**< its calls resolve to the shim: it shares the one pool */
  POOLSHIM_UNREACHABLE = 2 /**< it carries a copy the shim cannot reach; see reason */
};

/** One loaded module that carries a thread-pool surface. */
struct poolshim_module {
  const char* path;                  /**< as the dynamic linker knows it; "" for the executable */
  enum poolshim_verdict executorch;  /**< ExecuTorch thread pool surface */
  enum poolshim_verdict pthreadpool; /**< pthreadpool surface */
  const char* reason;                /**< why unreachable, or ""; a copy of OpenMP's libgomp ABI
                                          (no field of its own) is named in it: "openmp: hidden
                                          copy", both fields then ABSENT when it is the only one */
};

/**
 * List the loaded modules that carry a pool surface (modules loaded later are included on the
 * next call). Writes at most cap entries to out (out may be NULL when cap is 0).
 * The strings live as long as the process (the shim keeps its own copies).
 * @return the number of such modules, which may exceed cap.
 */
POOLSHIM_API size_t poolshim_get_modules(struct poolshim_module* out, size_t cap);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* POOLSHIM_POOLSHIM_H_ */
