// Column indices of the 164-value statement feature row (../shared/specs/ansor.md
// §5.4), so that tests, models and debugging tools name columns instead of
// counting. The order is TVM's GetPerStoreFeatureName order; the names are
// in statement_feature_names.cc.
#ifndef PRUNER_COMMON_FEATURES_FEATURE_COLUMNS_H_
#define PRUNER_COMMON_FEATURES_FEATURE_COLUMNS_H_

namespace pruner::feature_columns {

// ---- Group 1: computation (57 values).
inline constexpr int kFloatMad = 0;
inline constexpr int kFloatAddSub = 1;
inline constexpr int kFloatMul = 2;
inline constexpr int kFloatDivMod = 3;
inline constexpr int kFloatCmp = 4;
inline constexpr int kFloatMathFunc = 5;
inline constexpr int kFloatOtherFunc = 6;
inline constexpr int kIntMad = 7;
inline constexpr int kIntAddSub = 8;
inline constexpr int kIntMul = 9;
inline constexpr int kIntDivMod = 10;
inline constexpr int kIntCmp = 11;
inline constexpr int kIntMathFunc = 12;
inline constexpr int kIntOtherFunc = 13;
inline constexpr int kBoolOp = 14;
inline constexpr int kSelectOp = 15;
// Each annotation block: num, prod, len, then the 8-way position one-hot.
inline constexpr int kAnnotationBlockWidth = 11;
inline constexpr int kVecBlock = 16;
inline constexpr int kUnrollBlock = 27;
inline constexpr int kParallelBlock = 38;
inline constexpr int kAnnNum = 0;  // offsets inside a block
inline constexpr int kAnnProd = 1;
inline constexpr int kAnnLen = 2;
inline constexpr int kAnnPosNone = 3;
inline constexpr int kAnnPosMixed = 10;
inline constexpr int kIsGpu = 49;
inline constexpr int kBlockIdxXLen = 50;
inline constexpr int kBlockIdxYLen = 51;
inline constexpr int kBlockIdxZLen = 52;
inline constexpr int kThreadIdxXLen = 53;
inline constexpr int kThreadIdxYLen = 54;
inline constexpr int kThreadIdxZLen = 55;
inline constexpr int kVThreadLen = 56;

// ---- Group 2: buffer access, kMaxBufferSlots slots of kBufferSlotWidth.
inline constexpr int kBufferAccessOffset = 57;
inline constexpr int kMaxBufferSlots = 5;
inline constexpr int kBufferSlotWidth = 18;
inline constexpr int kAccRead = 0;  // offsets inside a slot
inline constexpr int kAccWrite = 1;
inline constexpr int kAccReadWrite = 2;
inline constexpr int kBytes = 3;
inline constexpr int kUniqueBytes = 4;
inline constexpr int kLines = 5;
inline constexpr int kUniqueLines = 6;
inline constexpr int kReuseLoopMultipleRead = 7;
inline constexpr int kReuseSerialMultipleReadWrite = 8;
inline constexpr int kReuseNone = 9;
inline constexpr int kReuseDisIter = 10;
inline constexpr int kReuseDisBytes = 11;
inline constexpr int kReuseCt = 12;
inline constexpr int kBytesDReuseCt = 13;
inline constexpr int kUniqueBytesDReuseCt = 14;
inline constexpr int kLinesDReuseCt = 15;
inline constexpr int kUniqueLinesDReuseCt = 16;
inline constexpr int kStride = 17;
constexpr int BufferColumn(int slot, int field) {
  return kBufferAccessOffset + slot * kBufferSlotWidth + field;
}

// ---- Group 3: arithmetic-intensity curve.
inline constexpr int kArithCurveOffset = 147;
inline constexpr int kArithCurvePoints = 10;

// ---- Group 4: allocation.
inline constexpr int kAllocOffset = 157;
inline constexpr int kAllocSize = 157;
inline constexpr int kAllocProd = 158;
inline constexpr int kAllocOuterProd = 159;
inline constexpr int kAllocInnerProd = 160;

// ---- Group 5: outer scope.
inline constexpr int kOuterScopeOffset = 161;
inline constexpr int kOuterProd = 161;
inline constexpr int kNumLoops = 162;
inline constexpr int kAutoUnrollMaxStep = 163;

inline constexpr int kNumColumns = 164;

static_assert(kVecBlock + 3 * kAnnotationBlockWidth == kIsGpu);
static_assert(kVThreadLen + 1 == kBufferAccessOffset);
static_assert(kBufferAccessOffset + kMaxBufferSlots * kBufferSlotWidth == kArithCurveOffset);
static_assert(kArithCurveOffset + kArithCurvePoints == kAllocOffset);
static_assert(kAllocOffset + 4 == kOuterScopeOffset);
static_assert(kOuterScopeOffset + 3 == kNumColumns);

}  // namespace pruner::feature_columns

#endif  // PRUNER_COMMON_FEATURES_FEATURE_COLUMNS_H_
