//===- TypeInferenceTest.cpp - PyTorch promotion and broadcasting ---------===//

#include "magi/Dialect/Magi/IR/TypeInference.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;

namespace {

class TypeInferenceTest : public ::testing::Test {
protected:
  MLIRContext context;
  Builder b{&context};
  Type f64 = b.getF64Type(), f32 = b.getF32Type(), f16 = b.getF16Type(),
       bf16 = b.getBF16Type(), i64 = b.getI64Type(), i32 = b.getI32Type(),
       i8 = b.getIntegerType(8), u8 = b.getIntegerType(8, /*isSigned=*/false),
       i1 = b.getI1Type(), index = b.getIndexType();
  RankedTensorType tensor(ArrayRef<int64_t> shape, Type t) {
    return RankedTensorType::get(shape, t);
  }
};

TEST_F(TypeInferenceTest, PromoteDtypesFollowsTorchPromoteTypes) {
  EXPECT_EQ(magi::promoteDtypes(f16, bf16), f32);
  EXPECT_EQ(magi::promoteDtypes(bf16, f32), f32);
  EXPECT_EQ(magi::promoteDtypes(i64, f16), f16);
  EXPECT_EQ(magi::promoteDtypes(i1, i32), i32);
  EXPECT_EQ(magi::promoteDtypes(u8, i8), b.getIntegerType(16));
  EXPECT_EQ(magi::promoteDtypes(u8, i32), i32);
  EXPECT_EQ(magi::promoteDtypes(i1, i1), i1);
}

TEST_F(TypeInferenceTest, WrappedScalarsDoNotWidenTensors) {
  // bf16 tensor + Python float stays bf16.
  EXPECT_EQ(magi::resultDtype({tensor({4}, bf16), f64}), bf16);
  // int64 tensor + Python float becomes the default dtype, f32.
  EXPECT_EQ(magi::resultDtype({tensor({4}, i64), f64}), f32);
  // bool tensor + Python int becomes int64.
  EXPECT_EQ(magi::resultDtype({tensor({4}, i1), i64}), i64);
  // int32 tensor + SymInt stays int32.
  EXPECT_EQ(magi::resultDtype({tensor({4}, i32), index}), i32);
}

TEST_F(TypeInferenceTest, ZeroDimTensorsRankBelowDimensionedOnes) {
  EXPECT_EQ(magi::resultDtype({tensor({4}, bf16), tensor({}, f32)}), bf16);
  // ... unless of a higher category.
  EXPECT_EQ(magi::resultDtype({tensor({4}, i64), tensor({}, f64)}), f64);
  EXPECT_EQ(magi::resultDtype({tensor({}, f16), tensor({}, bf16)}), f32);
}

TEST_F(TypeInferenceTest, BroadcastShapes) {
  const int64_t dyn = ShapedType::kDynamic;
  auto shape = magi::broadcastShapes({{1, dyn, 4}, {3, 1, 1}}, std::nullopt);
  ASSERT_TRUE(succeeded(shape));
  EXPECT_EQ(*shape, (SmallVector<int64_t>{3, dyn, 4}));
  shape = magi::broadcastShapes({{dyn}, {8}}, std::nullopt);
  ASSERT_TRUE(succeeded(shape));
  EXPECT_EQ(*shape, (SmallVector<int64_t>{8}));
  EXPECT_TRUE(failed(magi::broadcastShapes({{2, 3}, {4, 3}}, std::nullopt)));
}

TEST_F(TypeInferenceTest, NormalizeDim) {
  EXPECT_EQ(*magi::normalizeDim(-1, 3, std::nullopt), 2);
  EXPECT_EQ(*magi::normalizeDim(0, 0, std::nullopt), 0);
  EXPECT_TRUE(failed(magi::normalizeDim(3, 3, std::nullopt)));
  EXPECT_TRUE(failed(magi::normalizeDim(-4, 3, std::nullopt)));
}

TEST_F(TypeInferenceTest, Refinement) {
  const int64_t dyn = ShapedType::kDynamic;
  EXPECT_TRUE(magi::isRefinementOf(tensor({1, 4}, f32), tensor({dyn, 4}, f32)));
  EXPECT_FALSE(magi::isRefinementOf(tensor({dyn, 4}, f32), tensor({1, 4}, f32)));
  EXPECT_FALSE(magi::isRefinementOf(tensor({1, 4}, f16), tensor({1, 4}, f32)));
  EXPECT_FALSE(magi::isRefinementOf(tensor({4}, f32), tensor({1, 4}, f32)));
}

TEST_F(TypeInferenceTest, SliceBoundsArePythons) {
  using Bounds = std::pair<int64_t, int64_t>; // start, length
  auto slice = [](int64_t size, int64_t start, int64_t end, int64_t step) {
    magi::SliceBounds b = magi::resolveSliceBounds(size, start, end, step);
    return std::pair{b.start, b.length};
  };
  EXPECT_EQ(slice(10, 2, 8, 1), Bounds(2, 6));
  EXPECT_EQ(slice(10, 1, 8, 3), Bounds(1, 3)); // 1, 4, 7
  EXPECT_EQ(slice(10, -3, 10, 1), Bounds(7, 3));
  EXPECT_EQ(slice(10, -20, -8, 1), Bounds(0, 2));
  EXPECT_EQ(slice(10, 0, INT64_MAX, 1), Bounds(0, 10)); // "to the end"
  EXPECT_EQ(slice(10, 7, 3, 1), Bounds(7, 0));
  EXPECT_EQ(slice(10, 12, 20, 1), Bounds(10, 0));
  EXPECT_EQ(slice(10, INT64_MIN, INT64_MAX, INT64_MAX), Bounds(0, 1));
  EXPECT_EQ(slice(0, 0, 5, 2), Bounds(0, 0));
}

} // namespace
