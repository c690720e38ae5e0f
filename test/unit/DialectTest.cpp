//===- DialectTest.cpp - Building and serializing magi IR from C++ --------===//

#include "magi/Dialect/Magi/IR/MagiOps.h"
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
