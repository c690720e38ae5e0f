//===- InterpTest.cpp - The reference interpreter's helpers and API -------===//

#include "magi/InitAllDialects.h"
#include "magi/Interp/Interpreter.h"
#include "magi/Interp/Numerics.h"
#include "magi/Interp/TensorIO.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace magi::interp;

namespace {

//===----------------------------------------------------------------------===//
// Rounding
//===----------------------------------------------------------------------===//

TEST(InterpNumerics, BF16RoundsToNearestEven) {
  EXPECT_EQ(roundToBF16(1.0), 0x3F80);
  EXPECT_EQ(roundToBF16(-2.0), 0xC000);
  // 1 + 2^-8 lies halfway between 1 (even) and 1 + 2^-7 (odd).
  EXPECT_EQ(roundToBF16(1.0 + std::ldexp(1.0, -8)), 0x3F80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  EXPECT_EQ(roundToBF16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);
  // Just above a tie rounds up, even where going through f32 would first
  // round onto the tie (double rounding) and then down to even.
  double aboveTie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(static_cast<double>(static_cast<float>(aboveTie)),
            1.0 + std::ldexp(1.0, -8));
  EXPECT_EQ(roundToBF16(aboveTie), 0x3F81);
  EXPECT_EQ(roundToBF16(-0.0), 0x8000);
}

TEST(InterpNumerics, BF16RangeEnds) {
  // The largest bf16, 0x7F7F, is (2 - 2^-7) * 2^127; from halfway to the next
  // binade on, values overflow to infinity.
  double largest = (2.0 - std::ldexp(1.0, -7)) * std::ldexp(1.0, 127);
  EXPECT_EQ(roundToBF16(largest), 0x7F7F);
  EXPECT_EQ(roundToBF16(largest + std::ldexp(1.0, 119)), 0x7F80);
  EXPECT_EQ(roundToBF16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(roundToBF16(-std::numeric_limits<double>::infinity()), 0xFF80);
  EXPECT_EQ(roundToBF16(std::nan("")) & 0x7FC0, 0x7FC0);
  // Subnormals: the smallest is 2^-133; half of it is a tie that goes to 0.
  EXPECT_EQ(roundToBF16(std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(roundToBF16(std::ldexp(1.0, -134)), 0x0000);
  EXPECT_EQ(roundToBF16(std::ldexp(3.0, -135)), 0x0001);
  EXPECT_EQ(bf16ToDouble(0x0001), std::ldexp(1.0, -133));
}

TEST(InterpNumerics, F16RoundsToNearestEven) {
  EXPECT_EQ(roundToF16(1.0), 0x3C00);
  EXPECT_EQ(roundToF16(-2.0), 0xC000);
  EXPECT_EQ(roundToF16(65504.0), 0x7BFF);
  EXPECT_EQ(roundToF16(65519.0), 0x7BFF);
  // 65520 is halfway between 65504 and 2^16, which overflows.
  EXPECT_EQ(roundToF16(65520.0), 0x7C00);
  EXPECT_EQ(roundToF16(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  EXPECT_EQ(roundToF16(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
  EXPECT_EQ(roundToF16(std::ldexp(1.0, -14)), 0x0400); // smallest normal
  EXPECT_EQ(roundToF16(std::ldexp(1.0, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(roundToF16(std::ldexp(1.0, -25)), 0x0000); // tie to even (0)
  EXPECT_EQ(roundToF16(std::ldexp(3.0, -25)), 0x0002); // tie to even (2)
  EXPECT_EQ(roundToF16(std::nan("")) & 0x7E00, 0x7E00);
  EXPECT_EQ(roundToF16(-std::numeric_limits<double>::infinity()), 0xFC00);
}

TEST(InterpNumerics, SixteenBitFormatsRoundTrip) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    auto b = static_cast<uint16_t>(bits);
    double f16 = f16ToDouble(b);
    if (!std::isnan(f16)) {
      EXPECT_EQ(roundToF16(f16), b) << "f16 bits " << bits;
    }
    double bf16 = bf16ToDouble(b);
    if (!std::isnan(bf16)) {
      EXPECT_EQ(roundToBF16(bf16), b) << "bf16 bits " << bits;
    }
  }
}

TEST(InterpNumerics, F32MatchesTheHardwareConversion) {
  // The default rounding mode of a double-to-float conversion is
  // nearest-even, which roundToF32 must reproduce exactly.
  double values[] = {0.1,
                     -1.0 / 3.0,
                     1e-40,
                     3.4028235677973366e38,
                     1.0 + std::ldexp(1.0, -24),
                     1.0 + std::ldexp(3.0, -24),
                     16777217.0,
                     1e-46};
  for (double v : values)
    EXPECT_EQ(roundToF32(v), static_cast<float>(v)) << v;
  EXPECT_TRUE(std::isinf(roundToF32(3.5e38)));
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

class InterpTest : public ::testing::Test {
protected:
  InterpTest() {
    DialectRegistry registry;
    magi::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
  Builder b{&context};
};

TEST_F(InterpTest, TensorStoresInTheDtype) {
  Tensor i8(b.getIntegerType(8), {3});
  i8.setInt(0, 130);     // wraps
  i8.setDouble(1, -2.9); // truncates toward zero
  i8.setDouble(2, std::nan(""));
  EXPECT_EQ(i8.getInt(0), -126);
  EXPECT_EQ(i8.getInt(1), -2);
  EXPECT_EQ(i8.getInt(2), 0);

  Tensor u8(b.getIntegerType(8, /*isSigned=*/false), {1});
  u8.setInt(0, -1);
  EXPECT_EQ(u8.getInt(0), 255);

  Tensor bf(b.getBF16Type(), {2});
  bf.setDouble(0, 1.0 + std::ldexp(1.0, -8));
  bf.setDouble(1, 0.1);
  EXPECT_EQ(bf.getDouble(0), 1.0);
  EXPECT_EQ(bf.getDouble(1), 0.10009765625);
  EXPECT_EQ(bf.getBytes().size(), 4u);

  Tensor flag(b.getI1Type(), {2});
  flag.setDouble(0, std::nan(""));
  flag.setInt(1, 2);
  EXPECT_EQ(flag.getInt(0), 1);
  EXPECT_EQ(flag.getInt(1), 1);

  Tensor cast = bf.castTo(b.getF32Type());
  EXPECT_EQ(cast.getDtype(), b.getF32Type());
  EXPECT_EQ(cast.getDouble(1), 0.10009765625);
}

TEST_F(InterpTest, PrintsShortestValues) {
  EXPECT_EQ(formatFloat(0.10000000149011612, ElementKind::F32), "0.1");
  EXPECT_EQ(formatFloat(0.10009765625, ElementKind::BF16), "0.1");
  EXPECT_EQ(formatFloat(1.015625, ElementKind::BF16), "1.016");
  EXPECT_EQ(formatFloat(-10.0, ElementKind::F32), "-10");
  EXPECT_EQ(formatFloat(1e20, ElementKind::F64), "1e+20");
  EXPECT_EQ(
      formatFloat(-std::numeric_limits<double>::infinity(), ElementKind::F32),
      "-inf");

  Tensor t(b.getI64Type(), {2, 2});
  for (int64_t i = 0; i < 4; ++i)
    t.setInt(i, i);
  std::string text;
  llvm::raw_string_ostream os(text);
  t.printValues(os);
  EXPECT_EQ(text, "[[0, 1], [2, 3]]");
  text.clear();
  t.printValues(os, 3);
  EXPECT_EQ(text, "[[0, 1], [2, ...]]");
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

// A .npy file with format `version` and header dictionary `dict`.
std::string npyFile(unsigned version, StringRef dict, StringRef data = "") {
  std::string header = dict.str() + "\n";
  std::string file("\x93NUMPY", 6);
  file += static_cast<char>(version);
  file += '\0';
  unsigned lengthBytes = version == 1 ? 2 : 4;
  for (unsigned i = 0; i < lengthBytes; ++i)
    file += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return file + header + data.str();
}

TEST_F(InterpTest, ParsesNpyHeaders) {
  std::string v1 =
      npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  llvm::Expected<NpyHeader> h1 = parseNpyHeader(v1);
  ASSERT_TRUE(static_cast<bool>(h1)) << llvm::toString(h1.takeError());
  EXPECT_EQ(h1->majorVersion, 1u);
  EXPECT_EQ(h1->descr, "<f4");
  EXPECT_FALSE(h1->fortranOrder);
  EXPECT_EQ(h1->shape, (SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(h1->dataOffset, v1.size());

  // Version 2 has a 4-byte header length; keys may come in any order, a
  // 1-d shape has a trailing comma, a 0-d one is empty.
  std::string v2 = npyFile(
      2, "{\"shape\": (7,), \"fortran_order\": True, \"descr\": \"|b1\"}");
  llvm::Expected<NpyHeader> h2 = parseNpyHeader(v2);
  ASSERT_TRUE(static_cast<bool>(h2)) << llvm::toString(h2.takeError());
  EXPECT_EQ(h2->majorVersion, 2u);
  EXPECT_TRUE(h2->fortranOrder);
  EXPECT_EQ(h2->shape, (SmallVector<int64_t>{7}));
  llvm::Expected<NpyHeader> h0 = parseNpyHeader(
      npyFile(1, "{'descr': '<i8', 'fortran_order': False, 'shape': ()}"));
  ASSERT_TRUE(static_cast<bool>(h0)) << llvm::toString(h0.takeError());
  EXPECT_TRUE(h0->shape.empty());
}

TEST_F(InterpTest, RejectsBadNpyFiles) {
  auto error = [](const std::string &file) {
    llvm::Expected<NpyHeader> h = parseNpyHeader(file);
    return h ? std::string("no error") : llvm::toString(h.takeError());
  };
  EXPECT_NE(error("PK\x03\x04 not a npy").find("magic"), std::string::npos);
  EXPECT_NE(error(npyFile(9, "{}")).find("version 9"), std::string::npos);
  EXPECT_NE(
      error(npyFile(1, "{'descr': '<f4', 'shape': (2,)}")).find("required"),
      std::string::npos);
  EXPECT_NE(error(npyFile(1, "{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (2, x)}"))
                .find("size"),
            std::string::npos);
  std::string truncated = npyFile(1, "{'descr': '<f4'}");
  truncated.resize(12);
  EXPECT_NE(error(truncated).find("truncated"), std::string::npos);

  EXPECT_EQ(parseNpyDescr("<f4", &context), b.getF32Type());
  EXPECT_EQ(parseNpyDescr("|u1", &context),
            b.getIntegerType(8, /*isSigned=*/false));
  EXPECT_EQ(parseNpyDescr("|b1", &context), b.getI1Type());
  EXPECT_FALSE(parseNpyDescr(">f4", &context)); // big-endian
  EXPECT_FALSE(parseNpyDescr("<c8", &context)); // complex
}

TEST_F(InterpTest, NpyRoundTrips) {
  Tensor t(b.getF16Type(), {2, 1});
  t.setDouble(0, 1.5);
  t.setDouble(1, -0.25);
  llvm::Expected<std::string> bytes = serializeNpy(t);
  ASSERT_TRUE(static_cast<bool>(bytes)) << llvm::toString(bytes.takeError());
  llvm::Expected<NpyHeader> header = parseNpyHeader(*bytes);
  ASSERT_TRUE(static_cast<bool>(header));
  EXPECT_EQ(header->dataOffset % 64, 0u); // the data is aligned
  EXPECT_EQ(header->descr, "<f2");
  llvm::Expected<Tensor> back = parseNpy(*bytes, &context);
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->getDtype(), t.getDtype());
  EXPECT_EQ(back->getShape(), t.getShape());
  EXPECT_EQ(back->getDouble(1), -0.25);

  // NumPy has no bf16.
  llvm::Expected<std::string> bf16 = serializeNpy(Tensor(b.getBF16Type(), {1}));
  EXPECT_FALSE(static_cast<bool>(bf16));
  llvm::consumeError(bf16.takeError());
}

//===----------------------------------------------------------------------===//
// interpret()
//===----------------------------------------------------------------------===//

TEST_F(InterpTest, InterpretsAFunction) {
  const char *source = R"mlir(
    func.func @f(%x: tensor<?xbf16>, %n: index) -> (tensor<?xbf16>, tensor<i64>) {
      %s = magi.symbolic_int "s0" min 1 max 16
      magi.bind_symbolic_shape %x, [%s], affine_map<()[s0] -> (s0)> : tensor<?xbf16>
      %eps = arith.constant 0.00390625 : f64
      %y = magi.add %x, %eps : (tensor<?xbf16>, f64) -> tensor<?xbf16>
      %m = magi.sym_mul %s, %n
      %t = magi.scalar_tensor %m {dtype = i64} : (index) -> tensor<i64>
      return %y, %t : tensor<?xbf16>, tensor<i64>
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();

  Tensor x(b.getBF16Type(), {3});
  x.setDouble(0, 1.0);
  x.setDouble(1, 1.0078125);
  x.setDouble(2, 0.5);
  Tensor n = Tensor::scalarInt(b.getI64Type(), 5);
  FailureOr<SmallVector<Tensor>> results = interpret(func, {x, n});
  ASSERT_TRUE(succeeded(results));
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[0].getDouble(0), 1.0);        // tie to even
  EXPECT_EQ((*results)[0].getDouble(1), 1.015625);   // tie to even
  EXPECT_EQ((*results)[0].getDouble(2), 0.50390625); // exact
  EXPECT_EQ((*results)[1].getInt(0), 15);

  // A wrong dtype is reported as a diagnostic.
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(interpret(func, {x.castTo(b.getF32Type()), n})));
  EXPECT_EQ(message,
            "argument 0 (#0) has dtype 'f32', but the graph expects 'bf16'");
  // So is a size outside the symbol's range.
  EXPECT_TRUE(failed(interpret(func, {Tensor(b.getBF16Type(), {17}), n})));
  EXPECT_EQ(message, "symbol 's0' would be 17, outside its range [1, 16]");
}

} // namespace
