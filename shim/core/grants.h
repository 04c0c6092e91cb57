// Size negotiation: components ask for threads, each gets min(request, budget), and the pool is
// sized to the largest grant (the budget when nobody asked). A component is a name (C API,
// "executorch") or an anonymous handle (one per pthreadpool_create).
#pragma once
#include <cstddef>

namespace poolshim::core {

// Records (or updates) a named component's request; 0 means "the whole budget". Returns the grant.
size_t request_threads(const char* component, size_t threads);
// Forgets a named component's request. Unknown names are ignored.
void release_threads(const char* component);

// Anonymous requests (pthreadpool handles): returns an id for release_request().
size_t add_request(size_t threads, size_t* grant_out);
void update_request(size_t id, size_t threads, size_t* grant_out);
void release_request(size_t id);

// The grant a request of this size would get now.
size_t grant_for(size_t threads);

// Number of live requests, named and anonymous.
size_t live_requests();

// fork (lifecycle/fork.cpp's table): the requests' lock (the requests are the child's too).
void grants_atfork_prepare();
void grants_atfork_parent();
void grants_atfork_child();

}  // namespace poolshim::core
