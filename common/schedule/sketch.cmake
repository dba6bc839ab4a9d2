# Sketch generation, random annotation and mutation (ansor.md §2, §3.4).
# Included from this folder's CMakeLists.txt.
add_library(pruner_sketch STATIC
  ${CMAKE_CURRENT_LIST_DIR}/access_analysis.cc
  ${CMAKE_CURRENT_LIST_DIR}/annotate.cc
  ${CMAKE_CURRENT_LIST_DIR}/annotate_compute_location.cc
  ${CMAKE_CURRENT_LIST_DIR}/annotate_cpu.cc
  ${CMAKE_CURRENT_LIST_DIR}/annotate_gpu.cc
  ${CMAKE_CURRENT_LIST_DIR}/annotate_tile_size.cc
  ${CMAKE_CURRENT_LIST_DIR}/annotate_validity.cc
  ${CMAKE_CURRENT_LIST_DIR}/mutate.cc
  ${CMAKE_CURRENT_LIST_DIR}/mutate_compute_location.cc
  ${CMAKE_CURRENT_LIST_DIR}/mutate_parallel.cc
  ${CMAKE_CURRENT_LIST_DIR}/mutate_tile_size.cc
  ${CMAKE_CURRENT_LIST_DIR}/random.cc
  ${CMAKE_CURRENT_LIST_DIR}/sketch_generation.cc
  ${CMAKE_CURRENT_LIST_DIR}/sketch_rules_basic.cc
  ${CMAKE_CURRENT_LIST_DIR}/sketch_rules_cache_read.cc
  ${CMAKE_CURRENT_LIST_DIR}/sketch_rules_rfactor.cc
  ${CMAKE_CURRENT_LIST_DIR}/sketch_rules_tiling.cc
  ${CMAKE_CURRENT_LIST_DIR}/sketch_state_queries.cc
  ${CMAKE_CURRENT_LIST_DIR}/sketch_tiling.cc
)
target_link_libraries(pruner_sketch
  PUBLIC
    pruner_schedule
    pruner_lower
    pruner_device
    pruner_ir
    absl::status
    absl::statusor
    absl::strings
)
