//===- DialectTest.cpp - Building and serializing magi IR from C++ --------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "magi/Dialect/Magi/IR/TiledAttentionRules.h"
#include "magi/InitAllDialects.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace mlir;

namespace {

class DialectTest : public ::testing::Test {
protected:
  DialectTest() {
    DialectRegistry registry;
    magi::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

TEST_F(DialectTest, BuildersInferResultTypes) {
  OpBuilder b(&context);
  Location loc = b.getUnknownLoc();
  auto module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module.getBody());
  auto x = RankedTensorType::get({ShapedType::kDynamic, 8}, b.getBF16Type());
  auto func = func::FuncOp::create(b, loc, "f", b.getFunctionType({x}, {}));
  b.setInsertionPointToEnd(func.addEntryBlock());
  Value arg = func.getArgument(0);

  Value eps = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1e-6));
  auto add = magi::AddOp::create(b, loc, arg, eps, /*alpha=*/nullptr);
  EXPECT_EQ(add.getType(), x); // a Python float does not widen bf16

  auto up = magi::ToCopyOp::create(b, loc, arg, TypeAttr::get(b.getF32Type()));
  auto mul = magi::MulOp::create(b, loc, up, arg);
  EXPECT_EQ(mul.getType().getElementType(), b.getF32Type());

  auto mean = magi::MeanOp::create(b, loc, mul, b.getDenseI64ArrayAttr({-1}),
                                   b.getBoolAttr(true), nullptr);
  EXPECT_EQ(mean.getType(),
            RankedTensorType::get({ShapedType::kDynamic, 1}, b.getF32Type()));
  func::ReturnOp::create(b, loc);
  EXPECT_TRUE(succeeded(verify(module)));
  module->erase();
}

TEST_F(DialectTest, BytecodeRoundTripIsExact) {
  const char *source = R"mlir(
    func.func @g(%x: tensor<1x?xi64>, %w: tensor<512x64xbf16>) -> tensor<1x?x64xbf16> {
      %s = magi.symbolic_int "s0" min 2 max 4096
      magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (1, s0)> : tensor<1x?xi64>
      %e = magi.embedding %w, %x : (tensor<512x64xbf16>, tensor<1x?xi64>) -> tensor<1x?x64xbf16>
      return %e : tensor<1x?x64xbf16>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  std::string text, bytes;
  llvm::raw_string_ostream textOs(text), bytesOs(bytes);
  module->print(textOs);
  ASSERT_TRUE(succeeded(writeBytecodeToFile(*module, bytesOs)));

  // The parser recognises bytecode by its magic number.
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> reread = parseSourceString<ModuleOp>(bytes, config);
  ASSERT_TRUE(reread);
  std::string reprinted;
  llvm::raw_string_ostream reprintedOs(reprinted);
  reread->print(reprintedOs);
  EXPECT_EQ(text, reprinted);
}

} // namespace

// The split over keys both lowerings of magi.tiled_attention follow.
TEST(TiledAttentionRules, KeySplits) {
  constexpr int64_t dynamic = mlir::ShapedType::kDynamic;
  // A 7B-shaped decode step: 32 heads, one query, 4096 keys (64 tiles):
  // 17 splits make about 528 blocks; 4 tiles each leave 16.
  magi::AttentionKeySplits decode =
      magi::chooseAttentionKeySplits(1, 32, 1, 4096, 64, 64, /*requested=*/0);
  EXPECT_EQ(decode.tilesPerSplit, 4);
  EXPECT_EQ(decode.splits, 16);
  // Asked for: 8 splits of 8 tiles; 1 never splits; never more than the tiles.
  magi::AttentionKeySplits eight = magi::chooseAttentionKeySplits(1, 32, 1, 4096, 64, 64, 8);
  EXPECT_EQ(eight.splits, 8);
  EXPECT_EQ(eight.tilesPerSplit, 8);
  EXPECT_EQ(magi::chooseAttentionKeySplits(1, 32, 1, 4096, 64, 64, 1).splits, 1);
  EXPECT_EQ(magi::chooseAttentionKeySplits(1, 2, 1, 200, 64, 64, 0).splits, 4);
  // No split: dynamic sizes, more queries than a query tile, enough blocks,
  // or a single key tile.
  EXPECT_EQ(magi::chooseAttentionKeySplits(1, 32, dynamic, 4096, 64, 64, 0).splits, 1);
  EXPECT_EQ(magi::chooseAttentionKeySplits(1, 32, 1, dynamic, 64, 64, 0).splits, 1);
  EXPECT_EQ(magi::chooseAttentionKeySplits(1, 32, 65, 4096, 64, 64, 0).splits, 1);
  EXPECT_EQ(magi::chooseAttentionKeySplits(16, 32, 1, 4096, 64, 64, 0).splits, 1);
  EXPECT_EQ(magi::chooseAttentionKeySplits(1, 32, 1, 64, 64, 64, 0).splits, 1);
}
