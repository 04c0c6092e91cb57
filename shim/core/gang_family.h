// Families of gangs (gang.h, Policy::keep_threads): a caller that keeps the threads that serve its
// seats, with the gangs its members open inside its gangs (nested teams). A kept thread serves
// only its family's gangs, so member i of the keeper's next gang finds the thread that ran member
// i of its previous one (OpenMP threadprivate data) even while another caller opens gangs at the
// same time, as libgomp's pool per initial thread keeps its threads for that thread.
//
// A family is named by a token (1, 2, ...), given to a caller on its first keeping gang; the
// threads kept for it (servers.h, keeper) are free again when that caller ends (a thread-specific
// key's destructor) or a pause comes. Without the key (pthread_key_create failed) nobody keeps
// threads: own_family() is 0.
#pragma once
#include <cstdint>

namespace poolshim::core::gang {
#pragma GCC visibility push(hidden)

// The calling thread's own family token, given on first use; 0 when threads cannot be kept.
uint32_t own_family();
// The family of the gang whose seat the calling thread runs, or of the gang it opened and has not
// joined yet; 0 elsewhere. Nested gangs belong to it.
uint32_t current_family();
// Sets current_family(); returns its value before.
uint32_t set_current_family(uint32_t family);

#pragma GCC visibility pop
}  // namespace poolshim::core::gang
