// reach/kmpc_native.h: the names the native __kmpc runtime serves, which decide whether a process
// runs natively (the gate) and what `poolshim audit` and `info --pools` say of a module.
#include "reach/kmpc_native.h"

#include <gtest/gtest.h>

#include <string>

#include "abi/openmp/kmpc/kmpc.h"
#include "symbols/openmp_rows.h"

namespace {

using poolshim::reach::kmpc_import_blocks;
using poolshim::reach::kmpc_name_native;
using poolshim::reach::openmp_name_native;

TEST(KmpcNativeNames, EveryNativeEntryIsAnExportedRowWithItsFunction) {
  // Each K(name) of symbols/kmpc_native.def is a row the shim exports (kmpc.def), and the row's
  // native function exists: a typo in the list would make a name native with nothing behind it.
  size_t native = 0;
  namespace rows = poolshim::symbols::openmp_rows;
  for (size_t row = 0; row < rows::kCount; ++row) {
    const std::string name = rows::name(row);
    if (name.rfind("__kmpc_", 0) != 0) continue;
    const bool listed = kmpc_name_native(name.c_str());
    EXPECT_EQ(listed, poolshim::abi::openmp::kmpc::native_function(name.c_str()) != nullptr)
        << name;
    native += listed ? 1 : 0;
  }
  size_t listed = 0;
#define K(name) ++listed;
#include "symbols/kmpc_native.def"
#undef K
  EXPECT_EQ(native, listed) << "a name of kmpc_native.def is not an exported __kmpc row";
}

TEST(KmpcNativeNames, ImportsThatKeepAProcessOnLibomp) {
  for (const char* ok : {"__kmpc_fork_call",
                         "__kmpc_dispatch_next_8u",
                         "__kmpc_omp_task_alloc",
                         "__kmpc_cancel",
                         "__kmpc_doacross_init",
                         "__kmpc_doacross_wait",
                         "__kmpc_taskred_init",
                         "__kmpc_task_reduction_get_th_data",
                         "__kmpc_fork_teams",
                         "__kmpc_push_num_teams",
                         "__kmpc_taskred_modifier_init",
                         "__kmpc_task_reduction_modifier_fini",
                         "GOMP_parallel",
                         "GOMP_loop_ull_dynamic_start",
                         "omp_get_thread_num",
                         "omp_get_wtime",
                         "omp_init_lock",
                         "omp_set_nest_lock",
                         "omp_get_num_places",
                         "printf",
                         "_ZNSt6vectorIiE9push_backEOi",
                         ""})
    EXPECT_FALSE(kmpc_import_blocks(ok)) << ok;
  for (const char* no : {"__kmpc_doacross", "__kmpc_push_proc_bind", "__kmpc_push_num_teams_51",
                         "__kmpc_task_reduction_modifier_init", "__kmpc_atomic_fixed4_add",
                         "__kmpc_fork_cal", "__kmpc_fork_call_x", "omp_alloc", "omp_free",
                         "omp_target_alloc", "GOMP_offload_register", "__kmpc_"})
    EXPECT_TRUE(kmpc_import_blocks(no)) << no;
}

TEST(KmpcNativeNames, RuntimeNamesLeaveOutLocksAndAllocators) {
  EXPECT_TRUE(openmp_name_native("omp_get_num_threads"));
  EXPECT_TRUE(openmp_name_native("GOMP_barrier"));
  EXPECT_FALSE(openmp_name_native("omp_init_nest_lock"));  // the runtime's is libgomp's layout
  EXPECT_FALSE(openmp_name_native("omp_alloc"));
  EXPECT_FALSE(openmp_name_native("omp_get_num_thread"));  // a prefix of a name is not the name
  EXPECT_FALSE(openmp_name_native("__kmpc_fork_call"));
}

}  // namespace
