// Which pages of a static table the process has (mincore), for fork handlers that reset tables in
// the child: a page the child does not have was never written (untouched .bss reads as zeros), and
// a store there would only make it resident, a fault and a zeroed page in every child of every
// host. Swapped-out pages count as absent too, so a reset also covers, unconditionally, the
// entries it knows were used (the ids given, the slots taken). And a page the child has is most
// often still shared with the parent: a store there copies it, even one that changes nothing, so
// a reset stores only where the value differs (base/fork_hooks.h, reset_if_set).
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "base/assert.h"
#include "base/fork_hooks.h"

namespace poolshim::base {
#pragma GCC visibility push(hidden)

// mincore through a pointer the dynamic linker fills at load: a call through the PLT would bind
// the symbol lazily, in every child again (the parent never called it), and the binding alone
// faulted in eight pages of the linker's text and tables. The page size is the one the first
// prepare hook stored, in the parent (base/fork_hooks.h, ForkLocks::page_size).
inline int (*g_mincore)(void*, size_t, unsigned char*) = &mincore;

// Up to kMaxPages pages of 4 KiB or more; no allocation (a forked child calls it).
class ResidentPages {
 public:
  static constexpr size_t kMaxPages = 32;
  ResidentPages(const void* table, size_t bytes)
      : page_(page_size()), base_(reinterpret_cast<uintptr_t>(table) & ~(page_ - 1)) {
    POOLSHIM_ASSERT(page_ != 0 && (page_ & (page_ - 1)) == 0);  // the mask above
    const uintptr_t end = reinterpret_cast<uintptr_t>(table) + bytes;
    known_ = (end - base_ + page_ - 1) / page_ <= kMaxPages &&
             g_mincore(reinterpret_cast<void*>(base_), end - base_, in_) == 0;
  }
  // Whether the page of p (inside the table) may hold something: present, or not known.
  bool may_hold(const void* p) const {
    return !known_ || (in_[(reinterpret_cast<uintptr_t>(p) - base_) / page_] & 1) != 0;
  }

 private:
  // The prepare hook's, or, where none ran first (a caller outside fork()), libc's.
  static uintptr_t page_size() {
    const uintptr_t stored = g_fork_locks.page_size.load(std::memory_order_relaxed);
    return stored != 0 ? stored : static_cast<uintptr_t>(getpagesize());
  }

  uintptr_t page_;
  uintptr_t base_;
  bool known_ = false;
  unsigned char in_[kMaxPages] = {};
};

#pragma GCC visibility pop
}  // namespace poolshim::base
