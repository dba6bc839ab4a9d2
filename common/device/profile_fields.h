// One list of DeviceProfile's fields with their JSON keys, so that the JSON
// codec and FillUnknownFields cannot drift apart from the struct. `kind` is
// not listed: it is an enum and every user treats it specially.
#ifndef PRUNER_COMMON_DEVICE_PROFILE_FIELDS_H_
#define PRUNER_COMMON_DEVICE_PROFILE_FIELDS_H_

#include "common/device/device_profile.h"

namespace pruner::device_internal {

// Calls visit(key, profiles.field...) for every field but `kind`. Passing
// several profiles visits the same field of each together.
template <typename Visitor, typename... Profiles>
void VisitProfileFields(Visitor&& visit, Profiles&... p) {
  visit("name", p.name...);
  visit("description", p.description...);
  visit("peak_gflops", p.peak_gflops...);
  visit("mem_bandwidth_gbps", p.mem_bandwidth_gbps...);
  visit("clock_mhz", p.clock_mhz...);
  visit("vector_unit_bytes", p.vector_unit_bytes...);
  visit("cache_line_bytes", p.cache_line_bytes...);
  visit("l2_cache_bytes", p.l2_cache_bytes...);
  visit("sm_count", p.sm_count...);
  visit("warp_size", p.warp_size...);
  visit("max_threads_per_block", p.max_threads_per_block...);
  visit("max_threads_per_sm", p.max_threads_per_sm...);
  visit("max_blocks_per_sm", p.max_blocks_per_sm...);
  visit("max_shared_memory_per_block", p.max_shared_memory_per_block...);
  visit("max_shared_memory_per_block_optin",
        p.max_shared_memory_per_block_optin...);
  visit("shared_memory_per_sm", p.shared_memory_per_sm...);
  visit("max_local_memory_per_block", p.max_local_memory_per_block...);
  visit("registers_per_block", p.registers_per_block...);
  visit("registers_per_sm", p.registers_per_sm...);
  visit("max_registers_per_thread", p.max_registers_per_thread...);
  visit("reg_cap", p.reg_cap...);
  visit("active_blocks_per_sm", p.active_blocks_per_sm...);
  visit("sm_partitions", p.sm_partitions...);
  visit("max_vthread_extent", p.max_vthread_extent...);
  visit("dram_transaction_bytes", p.dram_transaction_bytes...);
  visit("compute_capability_major", p.compute_capability_major...);
  visit("compute_capability_minor", p.compute_capability_minor...);
  visit("max_block_dims", p.max_block_dims...);
  visit("max_grid_dims", p.max_grid_dims...);
  visit("num_cores", p.num_cores...);
  visit("physical_cores", p.physical_cores...);
  visit("vector_isa", p.vector_isa...);
  visit("l1d_cache_bytes", p.l1d_cache_bytes...);
  visit("l3_cache_bytes", p.l3_cache_bytes...);
  visit("fma_units_per_core", p.fma_units_per_core...);
  visit("notes", p.notes...);
}

}  // namespace pruner::device_internal

#endif  // PRUNER_COMMON_DEVICE_PROFILE_FIELDS_H_
