//===- TensorCore.cpp - the mma.sync step the tensor-core kernels share ---===//
//
// Tiled attention and the few-row matrix product both issue PTX's
// mma.m16n8k16 with f16 or bf16 operands and f32 accumulators.
//
//===----------------------------------------------------------------------===//

#include "magi/GPU/Passes.h"

using namespace mlir;

namespace magi {

Value mmaRegister(OpBuilder &b, Location loc, Value word, Type element) {
  if (!element.isF16())
    return word;
  // nvvm.mma.sync takes f16 pairs as vector<2xf16>.
  Value wide = vector::FromElementsOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), ValueRange{word});
  return vector::BitCastOp::create(b, loc, VectorType::get({2}, element), wide);
}

void mmaM16N8K16(OpBuilder &b, Location loc, Type element, ArrayRef<Value> a,
                 ArrayRef<Value> bRegs, MutableArrayRef<Value> acc) {
  Type f32 = b.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     SmallVector<Type>(4, f32));
  NVVM::MMATypes type =
      element.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value result = NVVM::MmaOp::create(
      b, loc, resultType, a, bRegs, acc, ArrayRef<int64_t>{16, 8, 16},
      std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{type, type},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
  for (int64_t i = 0; i < 4; ++i)
    acc[i] = LLVM::ExtractValueOp::create(b, loc, result, ArrayRef<int64_t>{i});
}

} // namespace magi
