// A variable on a cache line of its own: OnLine<T> is a std::atomic<T> padded to 64 bytes, so
// that no other variable (a read-mostly one, or another thread's hot one) shares its line. The
// scheduler's hot globals use it: a line that every caller writes must not also hold what every
// caller and every spinning worker reads (docs/scheduler.md, "Cost model").
#pragma once
#include <atomic>
#include <cstddef>

namespace poolshim::core {

constexpr size_t kCacheLine = 64;

template <typename T>
struct alignas(kCacheLine) OnLine : std::atomic<T> {
  using std::atomic<T>::atomic;
  using std::atomic<T>::operator=;
};

}  // namespace poolshim::core
