//===- LaunchPlanTest.cpp - host functions written as launch plans --------===//

#include "magi/Target/LaunchPlan.h"
#include "magi/InitAllDialects.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace mlir;
namespace rt = magi::runtime;

namespace {

class LaunchPlanTest : public ::testing::Test {
protected:
  LaunchPlanTest() {
    DialectRegistry registry;
    magi::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  // Parses `text` and extracts the plan of its function @host; diagnostics
  // go to `errors`.
  FailureOr<magi::LaunchPlan> planOf(StringRef text) {
    module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      return failure();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      errors += d.str() + "\n";
      return success();
    });
    return magi::extractLaunchPlan(module->lookupSymbol<func::FuncOp>("host"));
  }

  // A plan step, value or result as the manifest writes it (compact).
  static std::string str(const rt::Expr &e) { return rt::printJson(e.toJson()); }
  static std::string step(const magi::LaunchPlan &plan, size_t i) {
    rt::Variant one;
    one.plan.push_back(plan.plan[i]);
    return rt::printVariantBody(one);
  }
  static std::string result(const magi::LaunchPlan &plan, size_t i) {
    rt::Variant one;
    one.results.push_back(plan.results[i]);
    return rt::printVariantBody(one);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::string errors;
};

constexpr const char *kKernel = R"mlir(
  gpu.module @kernels {
    gpu.func @k0(%n: index, %a: memref<?x4xf32>, %b: memref<?x4xf32>, %x: f32) kernel {
      gpu.return
    }
  }
)mlir";

TEST_F(LaunchPlanTest, AllocationsLaunchesAndResultsBecomeExpressions) {
  std::string text = std::string("module attributes {gpu.container_module} {") +
                     kKernel + R"mlir(
  func.func @host(%a: memref<?x4xf32>, %s: index) -> (memref<?x4xf32>, index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %half = arith.constant 0.5 : f32
    %n = memref.dim %a, %c0 : memref<?x4xf32>
    %b = memref.alloc(%n) : memref<?x4xf32>
    %t = arith.muli %n, %c4 : index
    %g = arith.ceildivsi %t, %c256 : index
    gpu.launch_func @kernels::@k0 blocks in (%g, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%t : index, %a : memref<?x4xf32>, %b : memref<?x4xf32>, %half : f32)
    %r = arith.addi %s, %c1 : index
    return %b, %r : memref<?x4xf32>, index
  }
})mlir";
  FailureOr<magi::LaunchPlan> plan = planOf(text);
  ASSERT_TRUE(succeeded(plan)) << errors;
  ASSERT_EQ(plan->kernels.size(), 1u);
  EXPECT_EQ(plan->kernels[0].name, "k0");

  // The allocation's bytes: 4 bytes × n × 4, named once.
  ASSERT_EQ(plan->plan.size(), 2u);
  EXPECT_EQ(step(*plan, 0), "{\"kernels\":[],\"plan\":[{\"buffer\":\"b0\",\"bytes\":\"v1\","
                            "\"op\":\"alloc\"}],\"results\":[],\"values\":[]}");
  EXPECT_EQ(str(plan->values[0]), "\"4 * arg0.d0\"");
  EXPECT_EQ(str(plan->values[1]), "\"v0 * 4\"");

  // The launch: grid from the sizes, the block a number, the memrefs as
  // descriptors (dense row-major strides), the float constant by value.
  const rt::PlanOp &launch = plan->plan[1];
  EXPECT_EQ(launch.kernel, "k0");
  EXPECT_EQ(launch.block[0].text(), "256");
  ASSERT_EQ(launch.args.size(), 4u);
  std::string launchText = step(*plan, 1);
  EXPECT_NE(launchText.find("{\"dtype\":\"f32\",\"memref\":{\"base\":\"arg0\",\"offset\":0,\"sizes\":[\"arg0.d0\",4],"
                      "\"strides\":[4,1]}}"),
            std::string::npos)
      << launchText;
  EXPECT_NE(launchText.find("{\"dtype\":\"f32\",\"memref\":{\"base\":\"b0\",\"offset\":0,\"sizes\":[\"arg0.d0\",4],"
                      "\"strides\":[4,1]}}"),
            std::string::npos)
      << launchText;
  EXPECT_NE(launchText.find("{\"f32\":0.5}"), std::string::npos) << launchText;
  EXPECT_NE(launchText.find("\"block\":[256,1,1]"), std::string::npos) << launchText;

  // Results: the buffer, and the index argument plus one.
  ASSERT_EQ(plan->results.size(), 2u);
  EXPECT_NE(result(*plan, 0).find("{\"tensor\":{\"base\":\"b0\",\"offset\":0,\"sizes\":"
                                  "[\"arg0.d0\",4],\"strides\":[4,1]}}"),
            std::string::npos)
      << result(*plan, 0);
  ASSERT_FALSE(plan->results[1].isTensor);
  std::string name = plan->results[1].index.text();
  ASSERT_EQ(name.front(), 'v');
  unsigned v = std::stoi(name.substr(1));
  EXPECT_EQ(str(plan->values[v]), "\"arg1 + 1\"");
}

TEST_F(LaunchPlanTest, StaticSizesFoldToNumbers) {
  std::string text = std::string("module attributes {gpu.container_module} {") +
                     kKernel + R"mlir(
  func.func @host(%a: memref<8x4xf32>) -> memref<8x4xf32> {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c4 = arith.constant 4 : index
    %t = arith.muli %c8, %c4 : index
    %g = arith.ceildivsi %t, %c8 : index
    %half = arith.constant 0.5 : f32
    %b = memref.alloc() : memref<8x4xf32>
    %ad = memref.cast %a : memref<8x4xf32> to memref<?x4xf32>
    %bd = memref.cast %b : memref<8x4xf32> to memref<?x4xf32>
    gpu.launch_func @kernels::@k0 blocks in (%g, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%t : index, %ad : memref<?x4xf32>, %bd : memref<?x4xf32>, %half : f32)
    return %b : memref<8x4xf32>
  }
})mlir";
  FailureOr<magi::LaunchPlan> plan = planOf(text);
  ASSERT_TRUE(succeeded(plan)) << errors;
  EXPECT_TRUE(plan->values.empty());
  EXPECT_EQ(str(plan->plan[0].bytes), "128");
  EXPECT_EQ(str(plan->plan[1].grid[0]), "4");
}

TEST_F(LaunchPlanTest, HostWorkThePlanCannotDoIsAnError) {
  std::string text = R"mlir(module {
  func.func @host(%a: memref<4xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    memref.store %x, %a[%c0] : memref<4xf32>
    return
  }
})mlir";
  FailureOr<magi::LaunchPlan> plan = planOf(text);
  EXPECT_TRUE(failed(plan));
  EXPECT_NE(errors.find("'memref.store' cannot run on the host of a launch "
                        "plan (only allocations, views, index arithmetic and "
                        "kernel launches can)"),
            std::string::npos)
      << errors;
}

// An integer loaded and returned is read by the runtime once the piece has
// run: a `read` result with the bound its lowering left on the result.
TEST_F(LaunchPlanTest, LoadedIntegersReturnedAreReads) {
  std::string text = R"mlir(module {
  func.func @host(%t: memref<2x3xi32>, %most: index) -> (index {magi.read_bound = "arg1"}) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %x = memref.load %t[%c1, %c2] : memref<2x3xi32>
    %i = arith.index_cast %x : i32 to index
    return %i : index
  }
})mlir";
  FailureOr<magi::LaunchPlan> plan = planOf(text);
  ASSERT_TRUE(succeeded(plan)) << errors;
  ASSERT_EQ(plan->results.size(), 1u);
  EXPECT_EQ(result(*plan, 0),
            R"({"kernels":[],"plan":[],"results":[{"bound":"arg1","dtype":"i32","read":)"
            R"({"base":"arg0","offset":5,"sizes":[],"strides":[]}}],"values":[]})");
}

TEST_F(LaunchPlanTest, ReadsNeedABoundAndCannotBeSizes) {
  std::string unbounded = R"mlir(module {
  func.func @host(%t: memref<i64>) -> index {
    %x = memref.load %t[] : memref<i64>
    %i = arith.index_cast %x : i64 to index
    return %i : index
  }
})mlir";
  EXPECT_TRUE(failed(planOf(unbounded)));
  EXPECT_NE(errors.find("a value read on the host that gives a size has no upper bound"), std::string::npos)
      << errors;
  errors.clear();
  std::string asSize = R"mlir(module {
  func.func @host(%t: memref<i64>) -> memref<?xf32> {
    %x = memref.load %t[] : memref<i64>
    %i = arith.index_cast %x : i64 to index
    %b = memref.alloc(%i) : memref<?xf32>
    return %b : memref<?xf32>
  }
})mlir";
  EXPECT_TRUE(failed(planOf(asSize)));
  EXPECT_NE(errors.find("a value read from device memory can only be a piece's result"),
            std::string::npos)
      << errors;
  errors.clear();
  std::string floats = R"mlir(module {
  func.func @host(%a: memref<4xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<4xf32>
    return %x : f32
  }
})mlir";
  EXPECT_TRUE(failed(planOf(floats)));
  EXPECT_NE(errors.find("a value read on the host from an element of 'f32' (only integers "
                        "and bools are)"),
            std::string::npos)
      << errors;
}

TEST_F(LaunchPlanTest, NonFiniteConstantParametersAreAnError) {
  // JSON has no infinities: a kernel parameter that is one is refused (a
  // constant belongs inside the kernel).
  std::string text = std::string("module attributes {gpu.container_module} {") +
                     kKernel + R"mlir(
  func.func @host(%a: memref<?x4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %inf = arith.constant 0xFF800000 : f32
    %n = memref.dim %a, %c0 : memref<?x4xf32>
    gpu.launch_func @kernels::@k0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%n : index, %a : memref<?x4xf32>, %a : memref<?x4xf32>, %inf : f32)
    return
  }
})mlir";
  FailureOr<magi::LaunchPlan> plan = planOf(text);
  EXPECT_TRUE(failed(plan));
  EXPECT_NE(errors.find("kernel operand is the non-finite constant"), std::string::npos)
      << errors;
  EXPECT_NE(errors.find("which the manifest cannot carry"), std::string::npos) << errors;
}

} // namespace
