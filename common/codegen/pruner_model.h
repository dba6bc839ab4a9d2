/* The C API of a compiled model: what `pruner compile` writes is a shared
 * library that exports these functions. A program links against the
 * library (or dlopens it) and calls:
 *
 *   pruner_model* m;
 *   if (pruner_model_load(2, &m) != PRUNER_OK) ...   // 2 threads
 *   pruner_tensor in = {PRUNER_FLOAT32, 4, shape, data};
 *   pruner_tensor out = {PRUNER_FLOAT32, 2, out_shape, out_data};
 *   if (pruner_model_run(m, 1, &in, 1, &out) != PRUNER_OK)
 *     fprintf(stderr, "%s\n", pruner_model_last_error(m));
 *   pruner_model_free(m);
 *
 * Inputs and outputs are dense, row-major float32 arrays in the model's
 * order (names and shapes below). pruner_model_run checks every tensor's
 * dtype, rank and shape against the model and refuses mismatches with a
 * message; it never reads or writes past the shapes it was given. A model
 * may be run from one thread at a time (load one per thread for more).
 *
 * The second half of this header is the plan format shared by the compiler
 * (common/compile/model_plan.h) and the runtime (model_runtime.cc), which
 * reads it from the library's own data at load.
 */
#ifndef PRUNER_COMMON_CODEGEN_PRUNER_MODEL_H_
#define PRUNER_COMMON_CODEGEN_PRUNER_MODEL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  PRUNER_OK = 0,
  PRUNER_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, a wrong count, dtype or shape */
  PRUNER_ERROR_OUT_OF_MEMORY = 2,
  PRUNER_ERROR_KERNEL = 3,           /* a kernel returned an error */
  PRUNER_ERROR_CORRUPT_PLAN = 4      /* the library's plan does not read back */
};

enum { PRUNER_FLOAT32 = 1 };

typedef struct pruner_model pruner_model;

typedef struct {
  int32_t dtype;         /* PRUNER_FLOAT32 */
  int32_t rank;
  const int64_t* shape;  /* rank entries */
  void* data;            /* row-major; read for inputs, written for outputs */
} pruner_tensor;

/* num_threads <= 0: all hardware threads. On failure *out is null and the
 * message is pruner_model_load_error(). */
int pruner_model_load(int num_threads, pruner_model** out);
const char* pruner_model_load_error(void);
void pruner_model_free(pruner_model* model);

int pruner_model_num_inputs(const pruner_model* model);
int pruner_model_num_outputs(const pruner_model* model);
/* index out of range: null name, rank -1. */
const char* pruner_model_input_name(const pruner_model* model, int index);
const char* pruner_model_output_name(const pruner_model* model, int index);
int pruner_model_input_rank(const pruner_model* model, int index);
int pruner_model_output_rank(const pruner_model* model, int index);
const int64_t* pruner_model_input_shape(const pruner_model* model, int index);
const int64_t* pruner_model_output_shape(const pruner_model* model, int index);
int pruner_model_input_dtype(const pruner_model* model, int index);
int pruner_model_output_dtype(const pruner_model* model, int index);

int pruner_model_run(pruner_model* model, int num_inputs, const pruner_tensor* inputs,
                     int num_outputs, pruner_tensor* outputs);
/* The message of the last failed call on this model ("" if none). */
const char* pruner_model_last_error(const pruner_model* model);

/* ---- The plan format (internal to the compiler and the runtime). ----
 *
 * The library holds three globals the compiler emits:
 *   const int64_t pruner_model_plan[];      the plan, below
 *   const uint8_t pruner_model_weights[];   every weight, 64-byte aligned, in
 *                                           the layout its kernels read
 *   int (*const pruner_model_kernels[])(float* const*);  the kernels
 * A buffer reference is two int64s: a pool (PRUNER_POOL_*) and a byte offset
 * into it. The arena is allocated at load; each buffer in it and in the
 * weights is 64-byte aligned with 64 readable bytes on both sides.
 *
 * plan: PRUNER_PLAN_MAGIC, PRUNER_PLAN_VERSION, arena_bytes, num_inputs,
 *       num_outputs, num_steps, strings_bytes, then the strings (names, each
 *       NUL-terminated, packed 8 per int64 little-endian... as raw bytes
 *       rounded up to whole int64s), then per input and per output:
 *       name_offset, rank, dims[rank], pool, offset;
 *       then per step: kind, and
 *         PRUNER_STEP_KERNEL:    kernel_index, num_args, (pool, offset) x num_args
 *         PRUNER_STEP_TRANSPOSE: (pool, offset) src, (pool, offset) dst, rank,
 *                                src dims[rank], perm[rank]
 *         PRUNER_STEP_COPY:      (pool, offset) src, (pool, offset) dst, bytes
 *       and PRUNER_PLAN_MAGIC again at the end.
 */
#define PRUNER_PLAN_MAGIC 0x504c414e52554e50LL /* "PNURNALP" */
#define PRUNER_PLAN_VERSION 1
enum { PRUNER_POOL_ARENA = 0, PRUNER_POOL_WEIGHTS = 1 };
enum { PRUNER_STEP_KERNEL = 1, PRUNER_STEP_TRANSPOSE = 2, PRUNER_STEP_COPY = 3 };

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_COMMON_CODEGEN_PRUNER_MODEL_H_ */
