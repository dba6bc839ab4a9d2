// Column names, in TVM's GetPerStoreFeatureName spelling so that feature
// dumps line up with TenSet/Ansor tooling.
#include <string>
#include <vector>

#include "common/features/feature_columns.h"
#include "common/features/statement_features.h"

namespace pruner {
namespace {

constexpr const char* kPositionNames[] = {
    "kPosNone",        "kPosInnerSpatial", "kPosMiddleSpatial", "kPosOuterSpatial",
    "kPosInnerReduce", "kPosMiddleReduce", "kPosOuterReduce",   "kPosMixed"};

void AddAnnotationBlock(const std::string& prefix, std::vector<std::string>* names) {
  names->push_back(prefix + "_num");
  names->push_back(prefix + "_prod");
  names->push_back(prefix + "_len");
  for (const char* position : kPositionNames) names->push_back(prefix + "_type." + position);
}

std::vector<std::string> BuildNames() {
  std::vector<std::string> names;
  names.reserve(kNumStatementFeatures);
  for (const char* kind : {"float", "int"}) {
    for (const char* op : {"mad", "addsub", "mul", "divmod", "cmp", "mathfunc", "otherfunc"}) {
      names.push_back(std::string(kind) + "_" + op);
    }
  }
  names.push_back("bool_op");
  names.push_back("select_op");
  AddAnnotationBlock("vec", &names);
  AddAnnotationBlock("unroll", &names);
  AddAnnotationBlock("parallel", &names);
  names.push_back("is_gpu");
  for (const char* axis : {"blockIdx_x", "blockIdx_y", "blockIdx_z", "threadIdx_x", "threadIdx_y",
                           "threadIdx_z", "vthread"}) {
    names.push_back(std::string(axis) + "_len");
  }
  for (int slot = 0; slot < feature_columns::kMaxBufferSlots; ++slot) {
    const std::string p = "B" + std::to_string(slot) + ".";
    for (const char* field :
         {"acc_type.kRead", "acc_type.kWrite", "acc_type.kReadWrite", "bytes", "unique_bytes",
          "lines", "unique_lines", "reuse_type.kLoopMultipleRead",
          "reuse_type.kSerialMultipleReadWrite", "reuse_type.kNoReuse", "reuse_dis_iter",
          "reuse_dis_bytes", "reuse_ct", "bytes_d_reuse_ct", "unique_bytes_d_reuse_ct",
          "lines_d_reuse_ct", "unique_lines_d_reuse_ct", "stride"}) {
      names.push_back(p + field);
    }
  }
  for (int i = 0; i < feature_columns::kArithCurvePoints; ++i) {
    names.push_back("arith_intensity_curve_" + std::to_string(i));
  }
  for (const char* name : {"alloc_size", "alloc_prod", "alloc_outer_prod", "alloc_inner_prod",
                           "outer_prod", "num_loops", "auto_unroll_max_step"}) {
    names.push_back(name);
  }
  return names;
}

}  // namespace

const std::vector<std::string>& StatementFeatureNames() {
  static const std::vector<std::string>* names = new std::vector<std::string>(BuildNames());
  return *names;
}

}  // namespace pruner
