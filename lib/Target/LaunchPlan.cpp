//===- LaunchPlan.cpp - a host function as a runtime launch plan ----------===//
//
// Index values become expressions over the piece's arguments (`argN`,
// `argN.dD`) and earlier values (`vN`); memrefs become descriptors (base,
// offset, sizes, strides). The host function is expected after
// expand-strided-metadata, so views are reinterpret_casts of a base buffer
// whose metadata was extracted.
//
//===----------------------------------------------------------------------===//

#include "magi/Target/LaunchPlan.h"
#include "magi/GPU/Passes.h"
#include "magi/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
namespace rt = magi::runtime;

namespace magi {

std::string dtypeName(Type type) {
  if (type.isF64()) return "f64";
  if (type.isF32()) return "f32";
  if (type.isF16()) return "f16";
  if (type.isBF16()) return "bf16";
  if (type.isInteger(1)) return "i1";
  if (type.isUnsignedInteger(8)) return "u8";
  for (unsigned width : {8u, 16u, 32u, 64u})
    if (type.isSignlessInteger(width) || type.isSignedInteger(width))
      return "i" + std::to_string(width);
  return "";
}

namespace {

int64_t elementBytes(Type type) {
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

// A descriptor while the plan is built: expressions as text.
struct Descriptor {
  std::string base;
  std::string offset;
  SmallVector<std::string> sizes, strides;
};

// Folds `x op y` for two numbers; nothing on overflow (the expression is
// then kept, and the runtime reports the overflow if it is ever evaluated).
std::optional<int64_t> foldConstant(StringRef op, int64_t x, int64_t y) {
  int64_t result;
  if (op == "+")
    return llvm::AddOverflow(x, y, result) ? std::nullopt : std::optional(result);
  if (op == "-")
    return llvm::SubOverflow(x, y, result) ? std::nullopt : std::optional(result);
  if (op == "*")
    return llvm::MulOverflow(x, y, result) ? std::nullopt : std::optional(result);
  if (y <= 0 || x < 0)
    return std::nullopt;
  if (op == "floordiv")
    return x / y;
  if (op == "ceildiv")
    return x / y + (x % y != 0);
  if (op == "mod")
    return x % y;
  return std::nullopt;
}

// `e` as an operand of an infix operator: atoms (numbers, names) stay bare.
std::string wrap(StringRef e) {
  bool atom = llvm::all_of(e, [](char c) {
    return llvm::isAlnum(c) || c == '.' || c == '_';
  });
  return atom ? e.str() : "(" + e.str() + ")";
}

class PlanBuilder {
public:
  explicit PlanBuilder(func::FuncOp host) : host(host) {}

  FailureOr<LaunchPlan> build() {
    for (Operation &op : host.getBody().front()) {
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case([&](memref::AllocOp alloc) { return addAlloc(alloc); })
              .Case([&](gpu::LaunchFuncOp launch) { return addLaunch(launch); })
              .Case([&](func::CallOp call) { return addLibraryCall(call); })
              .Case([&](func::ReturnOp ret) { return addResults(ret); })
              // Buffers live until the graph has run; views and index
              // arithmetic are computed when a launch or result needs them.
              .Case<memref::DeallocOp>([](auto) { return success(); })
              // A read of device memory: a result of the piece only
              // (addResults), which the runtime reads once the work ran.
              .Case<memref::LoadOp>([](auto) { return success(); })
              .Default([&](Operation *other) -> LogicalResult {
                if (isPureBookkeeping(other))
                  return success();
                return other->emitError()
                       << "'" << other->getName()
                       << "' cannot run on the host of a launch plan (only "
                          "allocations, views, index arithmetic and kernel "
                          "launches can)";
              });
      if (failed(result))
        return failure();
    }
    for (const std::string &text : valueTexts) {
      FailureOr<rt::Expr> e = toExpr(text);
      if (failed(e))
        return failure();
      plan.values.push_back(std::move(*e));
    }
    return std::move(plan);
  }

private:
  func::FuncOp host;
  LaunchPlan plan;
  std::vector<std::string> valueTexts;
  llvm::DenseMap<Value, std::string> exprs;
  llvm::DenseMap<Value, Descriptor> descriptors;
  unsigned nextBuffer = 0;

  static bool isPureBookkeeping(Operation *op) {
    return isa<arith::ArithDialect>(op->getDialect()) ||
           isa<memref::DimOp, memref::ReinterpretCastOp,
               memref::ExtractStridedMetadataOp, memref::CastOp,
               memref::TransposeOp, memref::ExpandShapeOp>(op);
  }

  // A new named value `vN` holding `expr`.
  std::string define(std::string expr) {
    valueTexts.push_back(expr);
    return "v" + std::to_string(valueTexts.size() - 1);
  }

  // Text to the runtime's expression: the compiler writes only what the
  // runtime's parser reads back.
  FailureOr<rt::Expr> toExpr(const std::string &text) {
    std::string error;
    std::optional<rt::Expr> e = rt::Expr::tryParse(text, error);
    if (!e)
      return host.emitError() << "the launch plan made an expression the "
                                 "runtime cannot read: "
                              << error;
    return std::move(*e);
  }

  FailureOr<std::vector<rt::Expr>> toExprs(ArrayRef<std::string> texts) {
    std::vector<rt::Expr> exprs;
    for (const std::string &text : texts) {
      FailureOr<rt::Expr> e = toExpr(text);
      if (failed(e))
        return failure();
      exprs.push_back(std::move(*e));
    }
    return exprs;
  }

  FailureOr<rt::Descriptor> toRuntime(const Descriptor &desc) {
    rt::Descriptor d;
    d.baseName = desc.base;
    if (std::optional<int64_t> arg = rt::parseNumbered(desc.base, "arg")) {
      d.base = rt::Descriptor::Base::Arg;
      d.baseIndex = *arg;
    } else if (std::optional<int64_t> buffer = rt::parseNumbered(desc.base, "b")) {
      d.base = rt::Descriptor::Base::Buffer;
      d.baseIndex = *buffer;
    } else {
      return host.emitError() << "a descriptor based on '" << desc.base << "'";
    }
    FailureOr<rt::Expr> offset = toExpr(desc.offset);
    FailureOr<std::vector<rt::Expr>> sizes = toExprs(desc.sizes);
    FailureOr<std::vector<rt::Expr>> strides = toExprs(desc.strides);
    if (failed(offset) || failed(sizes) || failed(strides))
      return failure();
    d.offset = std::move(*offset);
    d.sizes = std::move(*sizes);
    d.strides = std::move(*strides);
    return d;
  }

  FailureOr<std::string> expr(OpFoldResult ofr) {
    if (auto attr = dyn_cast<Attribute>(ofr))
      return std::to_string(cast<IntegerAttr>(attr).getInt());
    return expr(cast<Value>(ofr));
  }

  FailureOr<SmallVector<std::string>> exprList(ArrayRef<OpFoldResult> list) {
    SmallVector<std::string> result;
    for (OpFoldResult ofr : list) {
      FailureOr<std::string> e = expr(ofr);
      if (failed(e))
        return failure();
      result.push_back(*e);
    }
    return result;
  }

  FailureOr<std::string> expr(Value v) {
    auto it = exprs.find(v);
    if (it != exprs.end())
      return it->second;
    FailureOr<std::string> e = computeExpr(v);
    if (succeeded(e))
      exprs[v] = *e;
    return e;
  }

  // a op b as text, folded when both are numbers.
  std::string binaryText(const std::string &a, StringRef op, const std::string &b) {
    int64_t x, y;
    if (!StringRef(a).getAsInteger(10, x) && !StringRef(b).getAsInteger(10, y))
      if (std::optional<int64_t> folded = foldConstant(op, x, y))
        return std::to_string(*folded);
    return define(wrap(a) + " " + op.str() + " " + wrap(b));
  }

  FailureOr<std::string> binary(Operation *op, StringRef infix) {
    FailureOr<std::string> a = expr(op->getOperand(0));
    FailureOr<std::string> b = expr(op->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    // Static sizes fold here, so a specialized plan holds numbers.
    return binaryText(*a, infix, *b);
  }

  FailureOr<std::string> call(Operation *op, StringRef fn) {
    std::string text = fn.str() + "(";
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      FailureOr<std::string> e = expr(operand);
      if (failed(e))
        return failure();
      text += (i ? ", " : "") + *e;
    }
    return define(text + ")");
  }

  FailureOr<std::string> computeExpr(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParentOp() != host ||
          !(arg.getType().isIndex() || arg.getType().isInteger()))
        return host.emitError() << "argument " << arg.getArgNumber()
                                << " is not an integer the plan can read";
      return "arg" + std::to_string(arg.getArgNumber());
    }
    Operation *op = v.getDefiningOp();
    // Sizes and offsets are never negative, so the signed and unsigned,
    // truncating and flooring forms of division agree on them.
    auto result =
        llvm::TypeSwitch<Operation *, FailureOr<std::string>>(op)
            .Case([&](arith::ConstantOp c) -> FailureOr<std::string> {
              if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
                return std::to_string(i.getValue().getSExtValue());
              return c.emitError("a non-integer constant used as a size");
            })
            .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                  arith::ExtUIOp, arith::TruncIOp>(
                [&](Operation *cast) { return expr(cast->getOperand(0)); })
            .Case([&](arith::AddIOp o) { return binary(o, "+"); })
            .Case([&](arith::SubIOp o) { return binary(o, "-"); })
            .Case([&](arith::MulIOp o) { return binary(o, "*"); })
            .Case<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(
                [&](Operation *o) { return binary(o, "floordiv"); })
            .Case<arith::CeilDivSIOp, arith::CeilDivUIOp>(
                [&](Operation *o) { return binary(o, "ceildiv"); })
            .Case<arith::RemSIOp, arith::RemUIOp>(
                [&](Operation *o) { return binary(o, "mod"); })
            .Case<arith::MinSIOp, arith::MinUIOp>(
                [&](Operation *o) { return call(o, "min"); })
            .Case<arith::MaxSIOp, arith::MaxUIOp>(
                [&](Operation *o) { return call(o, "max"); })
            .Case([&](arith::SelectOp o) { return call(o, "select"); })
            .Case([&](arith::CmpIOp o) -> FailureOr<std::string> {
              using P = arith::CmpIPredicate;
              switch (o.getPredicate()) {
              case P::eq: return call(o, "eq");
              case P::ne: return call(o, "ne");
              case P::slt: case P::ult: return call(o, "lt");
              case P::sle: case P::ule: return call(o, "le");
              case P::sgt: case P::ugt: return call(o, "gt");
              case P::sge: case P::uge: return call(o, "ge");
              }
              return failure();
            })
            .Case([&](memref::DimOp dim) -> FailureOr<std::string> {
              std::optional<int64_t> d = dim.getConstantIndex();
              FailureOr<Descriptor> desc = descriptor(dim.getSource());
              if (!d || failed(desc))
                return dim.emitError("a memref.dim the plan cannot follow");
              return desc->sizes[*d];
            })
            .Case([&](memref::ExtractStridedMetadataOp meta)
                      -> FailureOr<std::string> {
              FailureOr<Descriptor> desc = descriptor(meta.getSource());
              if (failed(desc))
                return failure();
              unsigned n = cast<OpResult>(v).getResultNumber();
              unsigned rank = desc->sizes.size();
              if (n == 1)
                return desc->offset;
              if (n < 2 + rank)
                return desc->sizes[n - 2];
              return desc->strides[n - 2 - rank];
            })
            .Case([&](memref::LoadOp load) -> FailureOr<std::string> {
              return load.emitError(
                  "a value read from device memory can only be a piece's result "
                  "(magi-split gives each magi.item a piece of its own), not a size "
                  "or parameter of the same piece");
            })
            .Default([&](Operation *other) -> FailureOr<std::string> {
              return other->emitError()
                     << "'" << other->getName()
                     << "' computes a size the launch plan cannot express";
            });
    return result;
  }

  // a * b, folded when both are numbers, a named value otherwise.
  std::string multiply(const std::string &a, const std::string &b) {
    int64_t x, y;
    bool xn = !StringRef(a).getAsInteger(10, x);
    bool yn = !StringRef(b).getAsInteger(10, y);
    if (xn && yn)
      if (std::optional<int64_t> product = foldConstant("*", x, y))
        return std::to_string(*product);
    if (xn && x == 1)
      return b;
    if (yn && y == 1)
      return a;
    return define(wrap(a) + " * " + wrap(b));
  }

  // Row-major strides of `sizes`.
  SmallVector<std::string> denseStrides(ArrayRef<std::string> sizes) {
    SmallVector<std::string> strides(sizes.size());
    std::string running = "1";
    for (int64_t i = sizes.size() - 1; i >= 0; --i) {
      strides[i] = running;
      if (i > 0)
        running = multiply(running, sizes[i]);
    }
    return strides;
  }

  FailureOr<Descriptor> descriptor(Value memref) {
    auto it = descriptors.find(memref);
    if (it != descriptors.end())
      return it->second;
    FailureOr<Descriptor> desc = computeDescriptor(memref);
    if (succeeded(desc))
      descriptors[memref] = *desc;
    return desc;
  }

  FailureOr<Descriptor> computeDescriptor(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    if (auto arg = dyn_cast<BlockArgument>(memref)) {
      if (!type.getLayout().isIdentity())
        return host.emitError() << "argument " << arg.getArgNumber()
                                << " is not a dense row-major memref";
      Descriptor desc;
      std::string name = "arg" + std::to_string(arg.getArgNumber());
      desc.base = name;
      desc.offset = "0";
      for (int64_t d = 0; d < type.getRank(); ++d)
        desc.sizes.push_back(type.isDynamicDim(d)
                                 ? name + ".d" + std::to_string(d)
                                 : std::to_string(type.getDimSize(d)));
      desc.strides = denseStrides(desc.sizes);
      return desc;
    }
    Operation *op = memref.getDefiningOp();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      // addAlloc described it when the walk met it.
      return alloc.emitError("an allocation used before it was planned");
    }
    if (auto cast = dyn_cast<memref::CastOp>(op))
      return descriptor(cast.getSource());
    if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
      // The base buffer: only its base matters (reinterpret_cast gives the
      // rest).
      FailureOr<Descriptor> source = descriptor(meta.getSource());
      if (failed(source))
        return failure();
      Descriptor base;
      base.base = source->base;
      base.offset = "0";
      return base;
    }
    if (auto transpose = dyn_cast<memref::TransposeOp>(op)) {
      FailureOr<Descriptor> source = descriptor(transpose.getIn());
      if (failed(source))
        return failure();
      Descriptor desc = *source;
      AffineMap perm = transpose.getPermutation();
      for (auto [i, e] : llvm::enumerate(perm.getResults())) {
        unsigned from = cast<AffineDimExpr>(e).getPosition();
        desc.sizes[i] = source->sizes[from];
        desc.strides[i] = source->strides[from];
      }
      return desc;
    }
    if (auto expand = dyn_cast<memref::ExpandShapeOp>(op)) {
      // Each source dimension splits into a group: the group's last size
      // keeps the source stride, each earlier one strides over the later.
      FailureOr<Descriptor> source = descriptor(expand.getSrc());
      if (failed(source))
        return failure();
      Descriptor desc;
      desc.base = source->base;
      desc.offset = source->offset;
      SmallVector<OpFoldResult> shape = expand.getMixedOutputShape();
      for (auto [d, group] : llvm::enumerate(expand.getReassociationIndices())) {
        SmallVector<OpFoldResult> groupShape;
        for (int64_t i : group)
          groupShape.push_back(shape[i]);
        FailureOr<SmallVector<std::string>> sizes = exprList(groupShape);
        if (failed(sizes))
          return failure();
        SmallVector<std::string> strides(group.size());
        std::string stride = source->strides[d];
        for (int64_t i = group.size() - 1; i >= 0; --i) {
          strides[i] = stride;
          stride = multiply(stride, (*sizes)[i]);
        }
        llvm::append_range(desc.sizes, *sizes);
        llvm::append_range(desc.strides, strides);
      }
      return desc;
    }
    if (auto view = dyn_cast<memref::ReinterpretCastOp>(op)) {
      FailureOr<Descriptor> source = descriptor(view.getSource());
      if (failed(source))
        return failure();
      Descriptor desc;
      desc.base = source->base;
      FailureOr<std::string> offset = expr(view.getMixedOffsets().front());
      if (failed(offset))
        return failure();
      // A reinterpret_cast's offset is absolute from the base pointer.
      desc.offset = *offset;
      FailureOr<SmallVector<std::string>> sizes = exprList(view.getMixedSizes());
      FailureOr<SmallVector<std::string>> strides =
          exprList(view.getMixedStrides());
      if (failed(sizes) || failed(strides))
        return failure();
      desc.sizes = std::move(*sizes);
      desc.strides = std::move(*strides);
      return desc;
    }
    return op->emitError() << "'" << op->getName()
                           << "' makes a memref the launch plan cannot "
                              "describe (run expand-strided-metadata first)";
  }

  LogicalResult addAlloc(memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (!type.getLayout().isIdentity())
      return alloc.emitError("an allocation with a non-identity layout");
    Descriptor desc;
    desc.base = "b" + std::to_string(nextBuffer++);
    desc.offset = "0";
    unsigned dynamic = 0;
    std::string bytes = std::to_string(elementBytes(type.getElementType()));
    for (int64_t d = 0; d < type.getRank(); ++d) {
      std::string size;
      if (type.isDynamicDim(d)) {
        FailureOr<std::string> e = expr(alloc.getDynamicSizes()[dynamic++]);
        if (failed(e))
          return failure();
        size = *e;
      } else {
        size = std::to_string(type.getDimSize(d));
      }
      desc.sizes.push_back(size);
      bytes = multiply(bytes, size);
    }
    desc.strides = denseStrides(desc.sizes);
    descriptors[alloc.getResult()] = desc;
    rt::PlanOp step;
    step.kind = rt::PlanOp::Kind::Alloc;
    step.buffer = nextBuffer - 1;
    FailureOr<rt::Expr> byteCount = toExpr(bytes);
    if (failed(byteCount))
      return failure();
    step.bytes = std::move(*byteCount);
    plan.plan.push_back(std::move(step));
    plan.numBuffers = nextBuffer;
    return success();
  }

  LogicalResult dim3(gpu::KernelDim3 dims, rt::Expr (&out)[3]) {
    Value values[] = {dims.x, dims.y, dims.z};
    for (int i = 0; i < 3; ++i) {
      FailureOr<std::string> text = expr(values[i]);
      if (failed(text))
        return failure();
      FailureOr<rt::Expr> e = toExpr(*text);
      if (failed(e))
        return failure();
      out[i] = std::move(*e);
    }
    return success();
  }

  LogicalResult addLaunch(gpu::LaunchFuncOp launch) {
    rt::PlanOp step;
    step.kind = rt::PlanOp::Kind::Launch;
    if (failed(dim3(launch.getGridSizeOperandValues(), step.grid)) ||
        failed(dim3(launch.getBlockSizeOperandValues(), step.block)))
      return failure();
    std::string shared = "0";
    if (Value size = launch.getDynamicSharedMemorySize()) {
      FailureOr<std::string> e = expr(size);
      if (failed(e))
        return failure();
      shared = *e;
    }
    FailureOr<rt::Expr> sharedBytes = toExpr(shared);
    if (failed(sharedBytes))
      return failure();
    step.sharedBytes = std::move(*sharedBytes);
    for (Value operand : launch.getKernelOperands()) {
      Type type = operand.getType();
      rt::KernelArg arg;
      if (isa<MemRefType>(type)) {
        FailureOr<Descriptor> desc = descriptor(operand);
        FailureOr<rt::Descriptor> memref =
            failed(desc) ? FailureOr<rt::Descriptor>(failure()) : toRuntime(*desc);
        if (failed(memref))
          return failure();
        arg.kind = rt::KernelArg::Kind::Memref;
        arg.memref = std::move(*memref);
        arg.dtype = rt::dtypeFromManifestName(
            dtypeName(cast<MemRefType>(type).getElementType()));
        step.args.push_back(std::move(arg));
        continue;
      }
      if (type.isIndex() || type.isInteger(64) || type.isInteger(32)) {
        FailureOr<std::string> text = expr(operand);
        FailureOr<rt::Expr> e =
            failed(text) ? FailureOr<rt::Expr>(failure()) : toExpr(*text);
        if (failed(e))
          return failure();
        arg.kind = type.isInteger(32) ? rt::KernelArg::Kind::I32
                                      : rt::KernelArg::Kind::I64;
        arg.integer = std::move(*e);
        step.args.push_back(std::move(arg));
        continue;
      }
      auto constant = operand.getDefiningOp<arith::ConstantOp>();
      auto value = constant ? dyn_cast<FloatAttr>(constant.getValue())
                            : FloatAttr();
      if (value && (type.isF32() || type.isF64())) {
        // The manifest is JSON, which has no infinities or NaNs.
        if (!std::isfinite(value.getValueAsDouble()))
          return launch.emitError()
                 << "kernel operand is the non-finite constant " << value
                 << ", which the manifest cannot carry (constants belong "
                    "inside the kernel)";
        arg.kind = type.isF32() ? rt::KernelArg::Kind::F32
                                : rt::KernelArg::Kind::F64;
        arg.floating = value.getValueAsDouble();
        step.args.push_back(std::move(arg));
        continue;
      }
      return launch.emitError()
             << "kernel operand of type " << type
             << " is neither a memref, an integer nor a float constant";
    }
    step.kernel = launch.getKernelName().str();
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    step.programmatic = kernel && magi::waitsForPreviousGrid(kernel);
    if (!llvm::any_of(plan.kernels, [&](const rt::Kernel &k) {
          return k.name == step.kernel;
        }))
      plan.kernels.push_back(rt::Kernel{step.kernel, {}});
    plan.plan.push_back(std::move(step));
    return success();
  }

  // A library call the host makes (cuBLASLt): a `gemm` step whose operands
  // are the call's [batch, m, k], [batch, k, n] and [batch, m, n] views.
  LogicalResult addLibraryCall(func::CallOp call) {
    auto kind = call->getAttrOfType<StringAttr>("magi.library");
    if (!kind || kind.getValue() != "gemm" || call.getNumOperands() != 3)
      return call.emitError("a call the launch plan cannot make (only "
                            "magi.library = \"gemm\" calls)");
    rt::PlanOp step;
    step.kind = rt::PlanOp::Kind::Gemm;
    rt::Descriptor *operands[] = {&step.a, &step.b, &step.c};
    for (auto [target, operand] : llvm::zip(operands, call.getOperands())) {
      FailureOr<Descriptor> desc = descriptor(operand);
      FailureOr<rt::Descriptor> d =
          failed(desc) ? FailureOr<rt::Descriptor>(failure()) : toRuntime(*desc);
      if (failed(d))
        return failure();
      *target = std::move(*d);
    }
    Type in = cast<MemRefType>(call.getOperand(0).getType()).getElementType();
    Type out = cast<MemRefType>(call.getOperand(2).getType()).getElementType();
    std::optional<rt::Dtype> inDtype = rt::dtypeFromManifestName(dtypeName(in));
    std::optional<rt::Dtype> outDtype = rt::dtypeFromManifestName(dtypeName(out));
    if (!inDtype || !outDtype)
      return call.emitError() << "a gemm of " << in << " into " << out
                              << ", which the artifact has no dtype for";
    step.gemmDtype = *inDtype;
    step.gemmCDtype = *outDtype;
    step.cDtypeGiven = out != in;
    plan.plan.push_back(std::move(step));
    return success();
  }

  // A result that is an integer loaded from memory (a magi.item): the
  // element's view, dtype and the bound its lowering left on the result.
  FailureOr<bool> addRead(Value operand, unsigned resultIndex) {
    Value v = operand;
    while (Operation *def = v.getDefiningOp()) {
      if (!magi::isIntegerConversion(def))
        break;
      v = def->getOperand(0);
    }
    auto load = v.getDefiningOp<memref::LoadOp>();
    if (!load)
      return false;
    FailureOr<Descriptor> source = descriptor(load.getMemref());
    if (failed(source))
      return failure();
    Descriptor element;
    element.base = source->base;
    element.offset = source->offset;
    for (auto [index, stride] : llvm::zip(load.getIndices(), source->strides)) {
      FailureOr<std::string> i = expr(index);
      if (failed(i))
        return failure();
      std::string term = multiply(*i, stride);
      if (term != "0")
        element.offset = binaryText(element.offset, "+", term);
    }
    FailureOr<rt::Descriptor> d = toRuntime(element);
    if (failed(d))
      return failure();
    Type type = load.getMemRefType().getElementType();
    std::optional<rt::Dtype> dtype = rt::dtypeFromManifestName(dtypeName(type));
    if (!dtype || isa<FloatType>(type))
      return load.emitError() << "a value read on the host from an element of " << type
                              << " (only integers and bools are)";
    rt::PieceResult result;
    result.isRead = true;
    result.read = std::move(*d);
    result.readDtype = *dtype;
    // A value that gives no size may be anything; one that does needs its
    // bound, for which the memory plan is made.
    if (!host.getResultAttr(resultIndex, kReadAnyValueAttr)) {
      auto bound = host.getResultAttrOfType<StringAttr>(resultIndex, kReadBoundAttr);
      if (!bound)
        return load.emitError("a value read on the host that gives a size has no upper bound, "
                              "so the memory for that size cannot be planned (an exported "
                              ".item() gets one from torch._check(value <= N))");
      FailureOr<rt::Expr> most = toExpr(bound.getValue().str());
      if (failed(most))
        return failure();
      result.readBound = std::move(*most);
      result.readClamped = bool(host.getResultAttr(resultIndex, kReadClampedAttr));
    }
    plan.results.push_back(std::move(result));
    return true;
  }


  LogicalResult addResults(func::ReturnOp ret) {
    for (auto [resultIndex, operand] : llvm::enumerate(ret.getOperands())) {
      if (!isa<MemRefType>(operand.getType())) {
        FailureOr<bool> read = addRead(operand, resultIndex);
        if (failed(read))
          return failure();
        if (*read)
          continue;
      }
      if (auto type = dyn_cast<MemRefType>(operand.getType())) {
        if (!type.getLayout().isIdentity())
          return ret.emitError("a result that is not dense row-major");
        FailureOr<Descriptor> desc = descriptor(operand);
        FailureOr<rt::Descriptor> d =
            failed(desc) ? FailureOr<rt::Descriptor>(failure()) : toRuntime(*desc);
        if (failed(d))
          return failure();
        rt::PieceResult result;
        result.isTensor = true;
        result.tensor = std::move(*d);
        plan.results.push_back(std::move(result));
        continue;
      }
      FailureOr<std::string> text = expr(operand);
      FailureOr<rt::Expr> e =
          failed(text) ? FailureOr<rt::Expr>(failure()) : toExpr(*text);
      if (failed(e))
        return failure();
      rt::PieceResult result;
      result.index = std::move(*e);
      plan.results.push_back(std::move(result));
    }
    return success();
  }
};

} // namespace

FailureOr<LaunchPlan> extractLaunchPlan(func::FuncOp host) {
  return PlanBuilder(host).build();
}

size_t countLibraryCalls(const std::vector<rt::PlanOp> &plan) {
  return llvm::count_if(plan, [](const rt::PlanOp &step) {
    return step.kind == rt::PlanOp::Kind::Gemm;
  });
}

} // namespace magi
