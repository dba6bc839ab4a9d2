# CUDA code generation, NVRTC compilation, ptxas resource reports and the
# driver API. Included (optionally) from this folder's CMakeLists.txt.
#
# Nothing here links or includes CUDA: NVRTC and the driver are dlopen'ed at
# run time, so the library builds and its binaries start on machines with no
# toolkit and no GPU. When the toolkit is found at configure time its bin/
# and library folders are remembered as the first places to look.
add_library(pruner_codegen_cuda STATIC
  ${CMAKE_CURRENT_LIST_DIR}/cuda_codegen.cc
  ${CMAKE_CURRENT_LIST_DIR}/cuda_driver.cc
  ${CMAKE_CURRENT_LIST_DIR}/cuda_expr.cc
  ${CMAKE_CURRENT_LIST_DIR}/cuda_names.cc
  ${CMAKE_CURRENT_LIST_DIR}/cuda_nvrtc.cc
  ${CMAKE_CURRENT_LIST_DIR}/cuda_ptxas.cc
  ${CMAKE_CURRENT_LIST_DIR}/cuda_runner.cc
  ${CMAKE_CURRENT_LIST_DIR}/cuda_toolkit_paths.cc
)
target_link_libraries(pruner_codegen_cuda
  PUBLIC
    pruner_child_process
    pruner_lower
    pruner_device
    pruner_ir
    absl::status
    absl::statusor
    absl::strings
  PRIVATE
    ${CMAKE_DL_LIBS}
)
if(CUDAToolkit_FOUND)
  # Only a hint for finding ptxas and libnvrtc later; nothing is linked.
  get_filename_component(PRUNER_CUDA_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/cuda_toolkit_paths.cc APPEND PROPERTY
               COMPILE_DEFINITIONS PRUNER_CUDA_TOOLKIT_ROOT="${PRUNER_CUDA_ROOT}")
endif()
