// The group ledger: one budget shared by the processes of a POOLSHIM_GROUP (docs/budget.md,
// "Sharing the budget between processes").
//
// A small file under /dev/shm (/dev/shm/poolshim-<euid>-<name>), created owner-only, mapped
// MAP_SHARED by every member. It holds one atomic count of the pool threads busy across the group
// and a table of members (pid, start time, and the member's own share of the count), so that the
// share of a process killed with SIGKILL can be taken back by whoever next finds the group full.
// Each process bounds the count by its own budget (the limit passed in); processes of one machine
// normally compute the same budget.
//
// Nothing here waits on another process: entering is a CAS on the count, callers always add, and
// the reclaim scan claims a dead member's slot with a CAS. A ledger that fails any check (owner,
// mode, size, magic, version, pid namespace) is never used: join() returns false with a reason.
#pragma once
#include <cstddef>
#include <cstdint>

namespace poolshim::budget::group {

struct Ledger;  // the shared layout (group_ledger.cpp)

// This process's membership: the mapping and its slot in the member table.
struct Member {
  Ledger* ledger = nullptr;
  uint32_t slot = 0;
  bool created = false;  // this process created the ledger file
};

constexpr size_t kMaxMembers = 64;
// A failed enter rescans the member table at most this often (per group, not per process).
constexpr int64_t kScanIntervalNs = 100 * 1000 * 1000;

// /dev/shm/poolshim-<euid>-<name>; false when it does not fit.
bool ledger_path(const char* name, char* out, size_t len);

// Opens the ledger at path (creating it, 0600, when absent), checks it and registers this process
// in a free slot. On failure returns false and puts a one-line reason in why; nothing is left
// mapped. `budget` is recorded by the creator for reports only.
bool join(const char* path, size_t budget, Member* out, char* why, size_t why_len);

// One live member and its share of the busy count (reports).
struct Share {
  int pid;
  long busy;
};

// Reads a ledger without joining it (poolshim info): same checks as join(), read-only mapping.
// When shares is not null, up to cap live members are copied there and *n_shares says how many.
bool peek(const char* path, long* busy, size_t* members, size_t* creator_budget, char* why,
          size_t why_len, Share* shares = nullptr, size_t cap = 0, size_t* n_shares = nullptr);

// Frees this process's slot (giving back its share) and unmaps. For tests and orderly shutdown.
void leave(Member* m);

// In the child of fork(): the mapping is inherited but the slot is the parent's. Takes a new slot
// (false when the table is full: the caller then stops using the group).
bool reregister_after_fork(Member* m);

// The accounting (see core/busy.h for the meaning of each).
void caller_enter(const Member& m);
void caller_leave(const Member& m);
bool worker_try_enter(const Member& m, size_t limit);
void worker_leave(const Member& m);
bool over_budget(const Member& m, size_t limit);

// Scans the member table and gives back the shares of dead members (gone, or a reused pid whose
// start time differs). Returns the number of busy counts given back. Lock-free; safe to run from
// several processes at once (a slot is claimed with a CAS before it is emptied).
long reclaim(const Member& m);

// For reports: the count now, the live members, the creator's budget.
long busy(const Member& m);
size_t members(const Member& m);
// Copies up to cap live members with their shares; returns how many were copied.
size_t shares(const Member& m, Share* out, size_t cap);
size_t creator_budget(const Member& m);

// Field 22 of /proc/PID/stat (start time in clock ticks since boot); false when unreadable.
bool process_start_time(int pid, uint64_t* out);

// Tests only: the layout constants, to write corrupt headers.
size_t ledger_size();
uint64_t ledger_magic();

}  // namespace poolshim::budget::group
