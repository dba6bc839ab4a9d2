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
 * Inputs and outputs are dense, row-major arrays in the model's order
 * (names, dtypes and shapes below): float32, except token ids and other
 * indices, which are int64 or int32 as the model declares them. An index
 * outside its table is refused with a message. pruner_model_run checks every tensor's
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

enum { PRUNER_FLOAT32 = 1, PRUNER_INT32 = 2, PRUNER_INT64 = 3 };

typedef struct pruner_model pruner_model;

typedef struct {
  int32_t dtype;         /* PRUNER_FLOAT32, PRUNER_INT32 or PRUNER_INT64 */
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

/* Profiling: the plan's steps in execution order. A step is a kernel (a
 * fused group of the model) or a data movement the runtime does itself. */
enum {
  PRUNER_STEP_KERNEL = 1,       /* a compiled kernel */
  PRUNER_STEP_TRANSPOSE = 2,    /* a transpose copy */
  PRUNER_STEP_COPY = 3,         /* a plain copy */
  PRUNER_STEP_GATHER = 4,       /* rows of a table by index (an embedding lookup) */
  PRUNER_STEP_STRIDED_COPY = 5  /* a block of rows: one concat input, or a slice */
};
int pruner_model_num_steps(const pruner_model* model);
/* index out of range: null name, kind 0, flops -1. */
const char* pruner_model_step_name(const pruner_model* model, int step);
int pruner_model_step_kind(const pruner_model* model, int step);
double pruner_model_step_flops(const pruner_model* model, int step); /* per run */
/* pruner_model_run, timing each step: step_seconds[i] receives step i's
 * wall time (num_steps entries). */
int pruner_model_run_profiled(pruner_model* model, int num_inputs, const pruner_tensor* inputs,
                              int num_outputs, pruner_tensor* outputs, double* step_seconds);

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
 *       num_outputs, num_kernels, num_steps, strings_bytes, then the strings
 *       (names, each NUL-terminated, as raw bytes rounded up to whole
 *       int64s), then per input and per output:
 *         name_offset, dtype, rank, dims[rank], pool, offset;
 *       per kernel: flops;
 *       per step: kind, name_offset, and
 *         PRUNER_STEP_KERNEL:       kernel_index, num_args, (pool, offset) x num_args
 *         PRUNER_STEP_TRANSPOSE:    (pool, offset) src, (pool, offset) dst, rank,
 *                                   src dims[rank], perm[rank]   (float32)
 *         PRUNER_STEP_COPY:         (pool, offset) src, (pool, offset) dst, bytes
 *         PRUNER_STEP_GATHER:       (pool, offset) table, (pool, offset) indices,
 *                                   (pool, offset) dst, index_bytes (4 or 8),
 *                                   outer, rows, count, row_bytes:
 *             dst[o][i] = table[o][indices[i]] for o < outer, i < count, each
 *             a row of row_bytes; the table has `rows` rows per o
 *         PRUNER_STEP_STRIDED_COPY: (pool, offset) src, (pool, offset) dst,
 *                                   outer, row_bytes, src_stride, dst_stride:
 *             row o of row_bytes from src + o * src_stride to dst + o * dst_stride
 *       and PRUNER_PLAN_MAGIC again at the end.
 */
#define PRUNER_PLAN_MAGIC 0x504c414e52554e50LL /* "PNURNALP" */
#define PRUNER_PLAN_VERSION 2
enum { PRUNER_POOL_ARENA = 0, PRUNER_POOL_WEIGHTS = 1 };

#ifdef __cplusplus
}
#endif

#endif /* PRUNER_COMMON_CODEGEN_PRUNER_MODEL_H_ */
