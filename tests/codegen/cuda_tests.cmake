# CUDA codegen tests and the codegen_cuda_check tool. Included (optionally)
# from this folder's CMakeLists.txt. Nothing links CUDA: the tests load
# NVRTC at run time and skip, saying why, where it is missing.
add_library(pruner_cuda_compile_check STATIC ${CMAKE_CURRENT_LIST_DIR}/cuda_compile_check.cc)
target_link_libraries(pruner_cuda_compile_check PUBLIC pruner_codegen_cuda pruner_sketch)

# codegen_cuda_check --n 100: the evidence run (every operator, compute_80
# and compute_90, ptxas resource report).
add_executable(codegen_cuda_check ${CMAKE_CURRENT_LIST_DIR}/cuda_check_main.cc)
target_link_libraries(codegen_cuda_check PRIVATE pruner_cuda_compile_check)

pruner_add_test(codegen_cuda_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/cuda_codegen_test.cc
                LIBS pruner_codegen_cuda pruner_sketch)
pruner_add_test(codegen_cuda_nvrtc_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/cuda_nvrtc_test.cc
                LIBS pruner_cuda_compile_check)
pruner_add_test(codegen_cuda_driver_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/cuda_driver_test.cc
                LIBS pruner_cuda_compile_check)
