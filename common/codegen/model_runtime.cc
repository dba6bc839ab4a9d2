// The runtime of a compiled model: the C API of pruner_model.h over the
// plan, weights and kernel table that `pruner compile` emits into the same
// shared library. It is never linked into Pruner itself: the compiler embeds
// this file (embed_runtime.cmake) and builds it into each model library,
// with the CPU kernels' runtime (cpu_runtime.cc) beside it.
//
// Load reads the plan once, checks it end to end, and allocates the arena
// (every intermediate tensor at the offset the compiler's memory plan gave
// it). Run copies the inputs into the arena, executes the steps in order
// (kernel calls, transposes, gathers, copies) and copies the outputs out.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "common/codegen/cpu_runtime.h"
#include "common/codegen/pruner_model.h"

extern "C" {
extern const int64_t pruner_model_plan[];
extern const uint8_t pruner_model_weights[];
extern int (*const pruner_model_kernels[])(float* const*);
extern const int64_t pruner_model_num_kernels;
extern const int64_t pruner_model_plan_size;
extern const int64_t pruner_model_weights_size;
}

namespace {

struct Ref {
  int64_t pool = 0;
  int64_t offset = 0;
};

struct Port {
  std::string name;
  int64_t dtype = PRUNER_FLOAT32;
  std::vector<int64_t> shape;
  Ref ref;
  int64_t elements = 1;
  int64_t bytes() const { return elements * (dtype == PRUNER_INT64 ? 8 : 4); }
};

struct Step {
  int64_t kind = 0;
  std::string name;
  int64_t kernel = 0;
  // kernel: its arguments; transpose, copies: src, dst; gather: table, indices, dst
  std::vector<Ref> args;
  std::vector<int64_t> dims, perm;
  int64_t bytes = 0;
  // gather: index_bytes, outer, rows, count, row_bytes;
  // strided copy: outer, row_bytes, src_stride, dst_stride
  std::vector<int64_t> ints;
};

const char* DTypeName(int64_t dtype) {
  return dtype == PRUNER_FLOAT32 ? "float32"
         : dtype == PRUNER_INT32 ? "int32"
         : dtype == PRUNER_INT64 ? "int64"
                                 : "unknown";
}

// Reads the plan, refusing anything out of bounds.
class PlanReader {
 public:
  PlanReader(const int64_t* data, int64_t size) : data_(data), size_(size) {}
  bool Next(int64_t* v) {
    if (pos_ >= size_) return false;
    *v = data_[pos_++];
    return true;
  }
  bool NextRef(Ref* r) { return Next(&r->pool) && Next(&r->offset); }
  int64_t pos() const { return pos_; }
  const int64_t* at(int64_t p) const { return data_ + p; }

 private:
  const int64_t* data_;
  int64_t size_;
  int64_t pos_ = 0;
};

thread_local std::string g_load_error;

}  // namespace

struct pruner_model {
  int64_t arena_bytes = 0;
  uint8_t* arena = nullptr;
  std::vector<Port> inputs, outputs;
  std::vector<double> kernel_flops;
  std::vector<Step> steps;
  std::vector<float*> args;  // scratch for kernel calls
  std::string error;

  ~pruner_model() {
    if (arena != nullptr) pruner_cpu_free(reinterpret_cast<float*>(arena));
  }

  uint8_t* Pointer(const Ref& r) const {
    return r.pool == PRUNER_POOL_ARENA ? arena + r.offset
                                       : const_cast<uint8_t*>(pruner_model_weights) + r.offset;
  }

  bool Fail(const std::string& message) {
    error = message;
    return false;
  }

  bool ValidRef(const Ref& r, int64_t bytes) const {
    const int64_t limit = r.pool == PRUNER_POOL_ARENA ? arena_bytes : pruner_model_weights_size;
    return (r.pool == PRUNER_POOL_ARENA || r.pool == PRUNER_POOL_WEIGHTS) && r.offset >= 0 &&
           bytes >= 0 && r.offset + bytes <= limit;
  }

  bool Parse() {
    PlanReader p(pruner_model_plan, pruner_model_plan_size);
    int64_t magic = 0, version = 0, num_in = 0, num_out = 0, num_kernels = 0, num_steps = 0,
            strings = 0;
    if (!p.Next(&magic) || magic != PRUNER_PLAN_MAGIC || !p.Next(&version) ||
        version != PRUNER_PLAN_VERSION) {
      return Fail("the library's plan has the wrong magic or version");
    }
    if (!p.Next(&arena_bytes) || !p.Next(&num_in) || !p.Next(&num_out) || !p.Next(&num_kernels) ||
        !p.Next(&num_steps) || !p.Next(&strings) || arena_bytes < 0 || strings < 0 ||
        num_in < 0 || num_out < 0 || num_kernels != pruner_model_num_kernels || num_steps < 0) {
      return Fail("the library's plan header is corrupt");
    }
    const int64_t string_words = (strings + 7) / 8;
    if (p.pos() + string_words > pruner_model_plan_size) return Fail("plan strings truncated");
    const char* text = reinterpret_cast<const char*>(p.at(p.pos()));
    for (int64_t i = 0; i < string_words; ++i) {
      int64_t skip;
      p.Next(&skip);
    }
    auto read_name = [&](std::string* out) {
      int64_t name = 0;
      if (!p.Next(&name) || name < 0 || name >= strings) return false;
      *out = std::string(text + name, strnlen(text + name, strings - name));
      return true;
    };
    auto read_port = [&](Port* port) {
      int64_t rank = 0;
      if (!read_name(&port->name) || !p.Next(&port->dtype) ||
          (port->dtype != PRUNER_FLOAT32 && port->dtype != PRUNER_INT32 &&
           port->dtype != PRUNER_INT64) ||
          !p.Next(&rank) || rank < 0 || rank > 16) {
        return false;
      }
      for (int64_t d = 0; d < rank; ++d) {
        int64_t dim;
        if (!p.Next(&dim) || dim < 0) return false;
        port->shape.push_back(dim);
        port->elements *= dim;
      }
      return p.NextRef(&port->ref);
    };
    inputs.resize(num_in);
    outputs.resize(num_out);
    for (Port& port : inputs) {
      if (!read_port(&port)) return Fail("the library's plan has a corrupt input");
    }
    for (Port& port : outputs) {
      if (!read_port(&port)) return Fail("the library's plan has a corrupt output");
    }
    for (int64_t k = 0; k < num_kernels; ++k) {
      int64_t flops = 0;
      if (!p.Next(&flops) || flops < 0) return Fail("the library's plan has corrupt kernel FLOPs");
      kernel_flops.push_back(static_cast<double>(flops));
    }
    steps.resize(num_steps);
    for (Step& s : steps) {
      if (!p.Next(&s.kind) || !read_name(&s.name)) return Fail("plan steps truncated");
      if (s.kind == PRUNER_STEP_KERNEL) {
        int64_t n = 0;
        if (!p.Next(&s.kernel) || s.kernel < 0 || s.kernel >= pruner_model_num_kernels ||
            !p.Next(&n) || n < 0 || n > 4096) {
          return Fail("a kernel step of the plan is corrupt");
        }
        s.args.resize(n);
        for (Ref& r : s.args) {
          if (!p.NextRef(&r) || !ValidRef(r, 0)) return Fail("a kernel argument is corrupt");
        }
      } else if (s.kind == PRUNER_STEP_TRANSPOSE) {
        Ref src, dst;
        int64_t rank = 0;
        if (!p.NextRef(&src) || !p.NextRef(&dst) || !p.Next(&rank) || rank < 1 || rank > 16) {
          return Fail("a transpose step of the plan is corrupt");
        }
        int64_t elements = 1;
        for (int64_t d = 0; d < rank; ++d) {
          int64_t v;
          if (!p.Next(&v) || v < 0) return Fail("a transpose step of the plan is corrupt");
          s.dims.push_back(v);
          elements *= v;
        }
        for (int64_t d = 0; d < rank; ++d) {
          int64_t v;
          if (!p.Next(&v) || v < 0 || v >= rank) return Fail("a transpose perm is corrupt");
          s.perm.push_back(v);
        }
        if (!ValidRef(src, elements * 4) || !ValidRef(dst, elements * 4)) {
          return Fail("a transpose reads or writes out of bounds");
        }
        s.args = {src, dst};
      } else if (s.kind == PRUNER_STEP_COPY) {
        Ref src, dst;
        if (!p.NextRef(&src) || !p.NextRef(&dst) || !p.Next(&s.bytes) ||
            !ValidRef(src, s.bytes) || !ValidRef(dst, s.bytes)) {
          return Fail("a copy step of the plan is corrupt");
        }
        s.args = {src, dst};
      } else if (s.kind == PRUNER_STEP_GATHER) {
        Ref table, indices, dst;
        s.ints.resize(5);
        bool ok = p.NextRef(&table) && p.NextRef(&indices) && p.NextRef(&dst);
        for (int64_t& v : s.ints) ok = ok && p.Next(&v) && v >= 0;
        if (!ok) return Fail("a gather step of the plan is corrupt");
        const int64_t index_bytes = s.ints[0], outer = s.ints[1], rows = s.ints[2],
                      count = s.ints[3], row_bytes = s.ints[4];
        if ((index_bytes != 4 && index_bytes != 8) || !ValidRef(table, outer * rows * row_bytes) ||
            !ValidRef(indices, count * index_bytes) ||
            !ValidRef(dst, outer * count * row_bytes)) {
          return Fail("a gather step reads or writes out of bounds");
        }
        s.args = {table, indices, dst};
      } else if (s.kind == PRUNER_STEP_STRIDED_COPY) {
        Ref src, dst;
        s.ints.resize(4);
        bool ok = p.NextRef(&src) && p.NextRef(&dst);
        for (int64_t& v : s.ints) ok = ok && p.Next(&v) && v >= 0;
        if (!ok) return Fail("a strided copy step of the plan is corrupt");
        const int64_t outer = s.ints[0], row_bytes = s.ints[1];
        // The last row ends at (outer - 1) * stride + row_bytes.
        auto extent = [&](int64_t stride) {
          return outer == 0 ? 0 : (outer - 1) * stride + row_bytes;
        };
        if (!ValidRef(src, extent(s.ints[2])) || !ValidRef(dst, extent(s.ints[3]))) {
          return Fail("a strided copy reads or writes out of bounds");
        }
        s.args = {src, dst};
      } else {
        return Fail("the plan has a step of unknown kind");
      }
    }
    int64_t end = 0;
    if (!p.Next(&end) || end != PRUNER_PLAN_MAGIC || p.pos() != pruner_model_plan_size) {
      return Fail("the library's plan does not end where it should");
    }
    for (const std::vector<Port>* ports : {&inputs, &outputs}) {
      for (const Port& port : *ports) {
        if (port.ref.pool != PRUNER_POOL_ARENA || !ValidRef(port.ref, port.bytes())) {
          return Fail("an input or output lies outside the arena");
        }
      }
    }
    return true;
  }

  // out[i] = in[index with output axis d at perm[d]], in of shape dims.
  // Rows of the output's innermost axis are split over the kernels' thread
  // pool; a row whose input stride is 1 is one memcpy.
  struct TransposeJob {
    const float* in;
    float* out;
    int64_t rank;
    int64_t out_dims[16];
    int64_t in_stride_of_out_axis[16];  // input stride of each output axis
  };

  static void TransposeRows(void* closure, int64_t begin, int64_t end) {
    const TransposeJob& j = *static_cast<const TransposeJob*>(closure);
    const int64_t inner = j.out_dims[j.rank - 1];
    const int64_t inner_stride = j.in_stride_of_out_axis[j.rank - 1];
    for (int64_t row = begin; row < end; ++row) {
      int64_t src = 0;
      for (int64_t d = j.rank - 2, rest = row; d >= 0; --d) {
        src += (rest % j.out_dims[d]) * j.in_stride_of_out_axis[d];
        rest /= j.out_dims[d];
      }
      float* dst = j.out + row * inner;
      if (inner_stride == 1) {
        std::memcpy(dst, j.in + src, inner * sizeof(float));
      } else {
        for (int64_t k = 0; k < inner; ++k) dst[k] = j.in[src + k * inner_stride];
      }
    }
  }

  // A batch of 2-D transposes: out[b][c][r] = in[b][r][c], in [batch, rows,
  // cols]. Work items are square tiles, so that both the reads and the
  // writes of a tile stay within a few cache lines per row.
  static constexpr int64_t kTile = 32;
  struct Transpose2dJob {
    const float* in;
    float* out;
    int64_t rows, cols;
    int64_t row_tiles, col_tiles;
  };

  static void Transpose2dTiles(void* closure, int64_t begin, int64_t end) {
    const Transpose2dJob& j = *static_cast<const Transpose2dJob*>(closure);
    const int64_t tiles_per_batch = j.row_tiles * j.col_tiles;
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / tiles_per_batch;
      const int64_t r0 = (t % tiles_per_batch) / j.col_tiles * kTile;
      const int64_t c0 = (t % j.col_tiles) * kTile;
      const int64_t r1 = r0 + kTile < j.rows ? r0 + kTile : j.rows;
      const int64_t c1 = c0 + kTile < j.cols ? c0 + kTile : j.cols;
      const float* in = j.in + b * j.rows * j.cols;
      float* out = j.out + b * j.rows * j.cols;
      for (int64_t c = c0; c < c1; ++c) {
        for (int64_t r = r0; r < r1; ++r) out[c * j.rows + r] = in[r * j.cols + c];
      }
    }
  }

  // Whether permuting `dims` by `perm` is a batch of 2-D transposes once
  // axes of extent 1 are dropped and axes that stay next to each other are
  // merged: NCHW <-> NHWC is [N, C, H*W] <-> [N, H*W, C].
  static bool AsBatchedTranspose(const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& perm, int64_t* batch,
                                 int64_t* rows, int64_t* cols) {
    std::vector<int64_t> kept;  // input axes of extent > 1, in output order
    for (int64_t axis : perm) {
      if (dims[axis] > 1) kept.push_back(axis);
    }
    auto next_kept = [&](int64_t axis) {
      for (int64_t a = axis + 1; a < static_cast<int64_t>(dims.size()); ++a) {
        if (dims[a] > 1) return a;
      }
      return int64_t{-1};
    };
    std::vector<int64_t> first, extent;  // per merged group, in output order
    for (size_t i = 0; i < kept.size(); ++i) {
      if (i > 0 && next_kept(kept[i - 1]) == kept[i]) {
        extent.back() *= dims[kept[i]];
      } else {
        first.push_back(kept[i]);
        extent.push_back(dims[kept[i]]);
      }
    }
    if (first.size() == 2 && first[0] > first[1]) {
      *batch = 1;
      *rows = extent[1];
      *cols = extent[0];
      return true;
    }
    if (first.size() == 3 && first[0] < first[2] && first[2] < first[1]) {
      *batch = extent[0];
      *rows = extent[2];
      *cols = extent[1];
      return true;
    }
    return false;
  }

  static void Transpose(const float* in, float* out, const std::vector<int64_t>& dims,
                        const std::vector<int64_t>& perm) {
    int64_t batch = 0, rows_2d = 0, cols_2d = 0;
    if (AsBatchedTranspose(dims, perm, &batch, &rows_2d, &cols_2d)) {
      Transpose2dJob t{in, out, rows_2d, cols_2d, (rows_2d + kTile - 1) / kTile,
                       (cols_2d + kTile - 1) / kTile};
      pruner_cpu_parallel_for(&Transpose2dTiles, &t, batch * t.row_tiles * t.col_tiles);
      return;
    }
    TransposeJob j;
    j.in = in;
    j.out = out;
    j.rank = static_cast<int64_t>(dims.size());
    int64_t in_strides[16];
    in_strides[j.rank - 1] = 1;
    for (int64_t d = j.rank - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * dims[d];
    int64_t rows = 1;
    for (int64_t d = 0; d < j.rank; ++d) {
      j.out_dims[d] = dims[perm[d]];
      j.in_stride_of_out_axis[d] = in_strides[perm[d]];
      if (d + 1 < j.rank) rows *= j.out_dims[d];
    }
    if (rows * j.out_dims[j.rank - 1] == 0) return;
    pruner_cpu_parallel_for(&TransposeRows, &j, rows);
  }

  static bool SameShape(const pruner_tensor& t, const Port& port) {
    if (t.rank != static_cast<int32_t>(port.shape.size()) || (t.rank > 0 && t.shape == nullptr)) {
      return false;
    }
    for (int32_t d = 0; d < t.rank; ++d) {
      if (t.shape[d] != port.shape[d]) return false;
    }
    return true;
  }

  static std::string ShapeText(const int64_t* shape, int64_t rank) {
    std::string s = "[";
    for (int64_t d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
    return s + "]";
  }

  bool Check(const pruner_tensor* tensors, int count, const std::vector<Port>& ports,
             const char* what) {
    if (count != static_cast<int>(ports.size())) {
      return Fail(std::string("the model has ") + std::to_string(ports.size()) + " " + what +
                  "s, got " + std::to_string(count));
    }
    for (int i = 0; i < count; ++i) {
      const pruner_tensor& t = tensors[i];
      const Port& port = ports[i];
      if (t.dtype != port.dtype) {
        return Fail(std::string(what) + " '" + port.name + "' must be " + DTypeName(port.dtype) +
                    ", got " + DTypeName(t.dtype) + " (dtype " + std::to_string(t.dtype) + ")");
      }
      if (!SameShape(t, port)) {
        return Fail(std::string(what) + " '" + port.name + "' must have shape " +
                    ShapeText(port.shape.data(), static_cast<int64_t>(port.shape.size())) +
                    ", got " + (t.shape == nullptr ? std::string("none") : ShapeText(t.shape, t.rank)));
      }
      if (t.data == nullptr && port.elements > 0) {
        return Fail(std::string(what) + " '" + port.name + "' has no data");
      }
    }
    return true;
  }

  // dst[o][i] = table[o][indices[i]]; false (with the message) for an index
  // outside the table.
  bool Gather(const Step& s) {
    const uint8_t* table = Pointer(s.args[0]);
    const uint8_t* indices = Pointer(s.args[1]);
    uint8_t* dst = Pointer(s.args[2]);
    const int64_t index_bytes = s.ints[0], outer = s.ints[1], rows = s.ints[2], count = s.ints[3],
                  row_bytes = s.ints[4];
    for (int64_t i = 0; i < count; ++i) {
      int64_t row;
      if (index_bytes == 8) {
        std::memcpy(&row, indices + i * 8, 8);
      } else {
        int32_t v;
        std::memcpy(&v, indices + i * 4, 4);
        row = v;
      }
      const int64_t given = row;
      if (row < 0) row += rows;  // counts from the end, as in ONNX and PyTorch
      if (row < 0 || row >= rows) {
        return Fail("step '" + s.name + "': index " + std::to_string(given) + " (position " +
                    std::to_string(i) + ") is outside the table's " + std::to_string(rows) +
                    " rows");
      }
      for (int64_t o = 0; o < outer; ++o) {
        std::memcpy(dst + (o * count + i) * row_bytes, table + (o * rows + row) * row_bytes,
                    row_bytes);
      }
    }
    return true;
  }

  // One step; PRUNER_OK or an error code with the message set.
  int RunStep(const Step& s) {
    if (s.kind == PRUNER_STEP_KERNEL) {
      args.resize(s.args.size());
      for (size_t a = 0; a < s.args.size(); ++a) {
        args[a] = reinterpret_cast<float*>(Pointer(s.args[a]));
      }
      const int rc = pruner_model_kernels[s.kernel](args.data());
      if (rc != 0) {
        Fail("kernel " + std::to_string(s.kernel) + " ('" + s.name + "') returned " +
             std::to_string(rc));
        return rc == 2 ? PRUNER_ERROR_OUT_OF_MEMORY : PRUNER_ERROR_KERNEL;
      }
    } else if (s.kind == PRUNER_STEP_TRANSPOSE) {
      Transpose(reinterpret_cast<const float*>(Pointer(s.args[0])),
                reinterpret_cast<float*>(Pointer(s.args[1])), s.dims, s.perm);
    } else if (s.kind == PRUNER_STEP_GATHER) {
      if (!Gather(s)) return PRUNER_ERROR_INVALID_ARGUMENT;
    } else if (s.kind == PRUNER_STEP_STRIDED_COPY) {
      const uint8_t* src = Pointer(s.args[0]);
      uint8_t* dst = Pointer(s.args[1]);
      for (int64_t o = 0; o < s.ints[0]; ++o) {
        std::memcpy(dst + o * s.ints[3], src + o * s.ints[2], s.ints[1]);
      }
    } else {
      std::memmove(Pointer(s.args[1]), Pointer(s.args[0]), s.bytes);
    }
    return PRUNER_OK;
  }

  int Run(int num_inputs, const pruner_tensor* in, int num_outputs, pruner_tensor* out,
          double* step_seconds) {
    if ((num_inputs > 0 && in == nullptr) || (num_outputs > 0 && out == nullptr)) {
      Fail("null inputs or outputs");
      return PRUNER_ERROR_INVALID_ARGUMENT;
    }
    if (!Check(in, num_inputs, inputs, "input") || !Check(out, num_outputs, outputs, "output")) {
      return PRUNER_ERROR_INVALID_ARGUMENT;
    }
    for (int i = 0; i < num_inputs; ++i) {
      std::memcpy(Pointer(inputs[i].ref), in[i].data, inputs[i].bytes());
    }
    using Clock = std::chrono::steady_clock;
    for (size_t k = 0; k < steps.size(); ++k) {
      const Clock::time_point start = step_seconds != nullptr ? Clock::now() : Clock::time_point();
      const int rc = RunStep(steps[k]);
      if (rc != PRUNER_OK) return rc;
      if (step_seconds != nullptr) {
        step_seconds[k] = std::chrono::duration<double>(Clock::now() - start).count();
      }
    }
    for (int i = 0; i < num_outputs; ++i) {
      std::memcpy(out[i].data, Pointer(outputs[i].ref), outputs[i].bytes());
    }
    error.clear();
    return PRUNER_OK;
  }
};

extern "C" {

int pruner_model_load(int num_threads, pruner_model** out) {
  if (out == nullptr) {
    g_load_error = "pruner_model_load: out is null";
    return PRUNER_ERROR_INVALID_ARGUMENT;
  }
  *out = nullptr;
  pruner_model* m = new (std::nothrow) pruner_model;
  if (m == nullptr) {
    g_load_error = "out of memory";
    return PRUNER_ERROR_OUT_OF_MEMORY;
  }
  if (!m->Parse()) {
    g_load_error = m->error;
    delete m;
    return PRUNER_ERROR_CORRUPT_PLAN;
  }
  m->arena = reinterpret_cast<uint8_t*>(pruner_cpu_alloc((m->arena_bytes + 3) / 4 + 1));
  if (m->arena == nullptr) {
    g_load_error = "cannot allocate the model's " + std::to_string(m->arena_bytes) + " byte arena";
    delete m;
    return PRUNER_ERROR_OUT_OF_MEMORY;
  }
  if (num_threads > 0) pruner::SetCpuRuntimeThreads(num_threads);
  *out = m;
  return PRUNER_OK;
}

const char* pruner_model_load_error(void) { return g_load_error.c_str(); }
void pruner_model_free(pruner_model* model) { delete model; }

int pruner_model_num_inputs(const pruner_model* m) {
  return m == nullptr ? 0 : static_cast<int>(m->inputs.size());
}
int pruner_model_num_outputs(const pruner_model* m) {
  return m == nullptr ? 0 : static_cast<int>(m->outputs.size());
}

static const Port* PortOf(const pruner_model* m, int index, bool input) {
  if (m == nullptr) return nullptr;
  const std::vector<Port>& ports = input ? m->inputs : m->outputs;
  return index >= 0 && index < static_cast<int>(ports.size()) ? &ports[index] : nullptr;
}

const char* pruner_model_input_name(const pruner_model* m, int i) {
  const Port* p = PortOf(m, i, true);
  return p == nullptr ? nullptr : p->name.c_str();
}
const char* pruner_model_output_name(const pruner_model* m, int i) {
  const Port* p = PortOf(m, i, false);
  return p == nullptr ? nullptr : p->name.c_str();
}
int pruner_model_input_rank(const pruner_model* m, int i) {
  const Port* p = PortOf(m, i, true);
  return p == nullptr ? -1 : static_cast<int>(p->shape.size());
}
int pruner_model_output_rank(const pruner_model* m, int i) {
  const Port* p = PortOf(m, i, false);
  return p == nullptr ? -1 : static_cast<int>(p->shape.size());
}
const int64_t* pruner_model_input_shape(const pruner_model* m, int i) {
  const Port* p = PortOf(m, i, true);
  return p == nullptr ? nullptr : p->shape.data();
}
const int64_t* pruner_model_output_shape(const pruner_model* m, int i) {
  const Port* p = PortOf(m, i, false);
  return p == nullptr ? nullptr : p->shape.data();
}
int pruner_model_input_dtype(const pruner_model* m, int i) {
  const Port* p = PortOf(m, i, true);
  return p == nullptr ? 0 : static_cast<int>(p->dtype);
}
int pruner_model_output_dtype(const pruner_model* m, int i) {
  const Port* p = PortOf(m, i, false);
  return p == nullptr ? 0 : static_cast<int>(p->dtype);
}

int pruner_model_run(pruner_model* m, int num_inputs, const pruner_tensor* inputs,
                     int num_outputs, pruner_tensor* outputs) {
  if (m == nullptr) return PRUNER_ERROR_INVALID_ARGUMENT;
  return m->Run(num_inputs, inputs, num_outputs, outputs, nullptr);
}

int pruner_model_num_steps(const pruner_model* m) {
  return m == nullptr ? 0 : static_cast<int>(m->steps.size());
}

static const Step* StepOf(const pruner_model* m, int index) {
  if (m == nullptr || index < 0 || index >= static_cast<int>(m->steps.size())) return nullptr;
  return &m->steps[index];
}

const char* pruner_model_step_name(const pruner_model* m, int i) {
  const Step* s = StepOf(m, i);
  return s == nullptr ? nullptr : s->name.c_str();
}
int pruner_model_step_kind(const pruner_model* m, int i) {
  const Step* s = StepOf(m, i);
  return s == nullptr ? 0 : static_cast<int>(s->kind);
}
double pruner_model_step_flops(const pruner_model* m, int i) {
  const Step* s = StepOf(m, i);
  if (s == nullptr) return -1;
  return s->kind == PRUNER_STEP_KERNEL ? m->kernel_flops[s->kernel] : 0;
}

int pruner_model_run_profiled(pruner_model* m, int num_inputs, const pruner_tensor* inputs,
                              int num_outputs, pruner_tensor* outputs, double* step_seconds) {
  if (m == nullptr) return PRUNER_ERROR_INVALID_ARGUMENT;
  if (step_seconds == nullptr && !m->steps.empty()) {
    m->Fail("step_seconds is null");
    return PRUNER_ERROR_INVALID_ARGUMENT;
  }
  return m->Run(num_inputs, inputs, num_outputs, outputs, step_seconds);
}

const char* pruner_model_last_error(const pruner_model* m) {
  return m == nullptr ? "model is null" : m->error.c_str();
}

}  // extern "C"
