//===- ConvertNN.cpp - Import products, convolutions, norms, attention ----===//

#include "Converters.h"
#include "magi/Dialect/Magi/IR/MagiOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace magi::torch_import {
namespace {

/// mm and bmm.
LogicalResult convertMatmul(Node &node) {
  FailureOr<Value> self = node.tensor("self"), mat2 = node.tensor("mat2");
  if (failed(self) || failed(mat2))
    return failure();
  return node.emit({*self, *mat2});
}

/// _grouped_mm(self, mat2, offs, bias, out_dtype): a 2-d self in row groups
/// times a 3-d mat2 becomes magi.grouped_mm; two 3-d operands without offs
/// are a bmm. The other forms (offsets along K or N, a bias, another
/// out_dtype) stay opaque.
LogicalResult convertGroupedMm(Node &node) {
  FailureOr<Value> self = node.tensor("self"), mat2 = node.tensor("mat2");
  FailureOr<Value> offs = node.optTensor("offs"), bias = node.optTensor("bias");
  if (failed(self) || failed(mat2) || failed(offs) || failed(bias))
    return failure();
  auto selfType = cast<RankedTensorType>(self->getType());
  auto mat2Type = cast<RankedTensorType>(mat2->getType());
  FailureOr<Type> outDtype = node.dtypeArg("out_dtype");
  if (failed(outDtype))
    return failure();
  if (*bias || (*outDtype && *outDtype != selfType.getElementType()))
    return node.opaque();
  if (selfType.getRank() == 2 && mat2Type.getRank() == 3 && *offs)
    return node.emit({*self, *mat2, *offs});
  if (selfType.getRank() == 3 && mat2Type.getRank() == 3 && !*offs)
    return node.emitAs(BmmOp::getOperationName(), {*self, *mat2});
  return node.opaque();
}

LogicalResult convertAddmm(Node &node) {
  FailureOr<Value> self = node.tensor("self"), m1 = node.tensor("mat1"),
                   m2 = node.tensor("mat2");
  if (failed(self) || failed(m1) || failed(m2))
    return failure();
  return node.emit({*self, *m1, *m2},
                   {node.f64("beta", node.floatArg("beta").value_or(1.0)),
                    node.f64("alpha", node.floatArg("alpha").value_or(1.0))});
}

/// convolution, transposed or not: one with a symbolic stride, padding,
/// dilation or output padding stays opaque.
LogicalResult convertConvolution(Node &node) {
  FailureOr<Value> input = node.tensor("input"), weight = node.tensor("weight");
  FailureOr<Value> bias = node.optTensor("bias");
  if (failed(input) || failed(weight) || failed(bias))
    return failure();
  std::optional<SmallVector<int64_t>> stride = node.intsArg("stride"),
                                      padding = node.intsArg("padding"),
                                      dilation = node.intsArg("dilation");
  if (!stride || !padding || !dilation)
    return node.opaque();
  bool transposed = node.boolArg("transposed").value_or(false);
  std::optional<SmallVector<int64_t>> outputPadding;
  if (transposed) {
    outputPadding = node.intsArg("output_padding");
    if (!outputPadding)
      return node.opaque();
  }
  SmallVector<Value> operands{*input, *weight};
  if (*bias)
    operands.push_back(*bias);
  SmallVector<NamedAttribute> attrs{
      node.i64s("stride", *stride), node.i64s("padding", *padding),
      node.i64s("dilation", *dilation),
      node.i64("groups", node.intArg("groups").value_or(1))};
  if (transposed) {
    attrs.push_back(node.named("transposed", node.builder().getUnitAttr()));
    if (llvm::any_of(*outputPadding, [](int64_t p) { return p != 0; }))
      attrs.push_back(node.i64s("output_padding", *outputPadding));
  }
  return node.emit(operands, attrs);
}

/// Creates one op of a converter that builds several, with its one result's
/// type given.
Value createOne(Node &node, StringRef name, ValueRange operands,
                ArrayRef<NamedAttribute> attrs, Type type) {
  return node.importer.create(name, node.loc, operands, attrs, type)
      ->getResult(0);
}

/// `v` in `type`'s element type (a magi.to_copy unless it already is).
Value convertDtype(Node &node, Value v, Type type) {
  auto target = cast<RankedTensorType>(type);
  if (cast<RankedTensorType>(v.getType()).getElementType() ==
      target.getElementType())
    return v;
  return createOne(node, ToCopyOp::getOperationName(), v,
                   {node.dtype("dtype", target.getElementType())}, target);
}

/// _native_batch_norm_legit_no_training: the normalized tensor is a
/// magi.batch_norm. The two saved statistics are what PyTorch returns for
/// the device the graph was exported on: empty on the CPU (a constant of
/// shape [0]); on CUDA the running mean and 1 / sqrt(running_var + eps), in
/// f32 for half inputs (converted and computed with magi ops). Any other
/// declared form keeps the node opaque.
LogicalResult convertBatchNormInference(Node &node) {
  FailureOr<Value> input = node.tensor("input");
  FailureOr<Value> weight = node.optTensor("weight"),
                   bias = node.optTensor("bias");
  FailureOr<Value> mean = node.tensor("running_mean"),
                   var = node.tensor("running_var");
  if (failed(input) || failed(weight) || failed(bias) || failed(mean) ||
      failed(var))
    return failure();
  if (node.resultTypes.size() != 3)
    return node.opaque();
  auto inputType = cast<RankedTensorType>(input->getType());
  int64_t channels = inputType.getRank() >= 2 ? inputType.getDimSize(1) : -1;
  auto statsForm = [&](Type type) -> int {
    auto t = dyn_cast<RankedTensorType>(type);
    if (!t || t.getRank() != 1 || !isa<FloatType>(t.getElementType()))
      return 0;
    if (t.getDimSize(0) == 0)
      return 1;                                 // empty
    return t.getDimSize(0) == channels ? 2 : 0; // per channel
  };
  int meanForm = statsForm(node.resultTypes[1]),
      rstdForm = statsForm(node.resultTypes[2]);
  if (!meanForm || !rstdForm)
    return node.opaque();

  double eps = node.floatArg("eps").value_or(1e-5);
  SmallVector<Value> operands{*input, *mean, *var};
  if (*weight)
    operands.push_back(*weight);
  if (*bias)
    operands.push_back(*bias);
  Operation *norm = node.importer.create(
      BatchNormOp::getOperationName(), node.loc, operands,
      {node.f64("eps", eps),
       node.named("operandSegmentSizes",
                  node.builder().getDenseI32ArrayAttr(
                      {1, 1, 1, *weight ? 1 : 0, *bias ? 1 : 0}))},
      node.resultTypes[0]);
  node.results.push_back(norm->getResult(0));

  auto create = [&](StringRef name, ValueRange args,
                    ArrayRef<NamedAttribute> attrs, Type type) {
    return createOne(node, name, args, attrs, type);
  };
  auto convert = [&](Value v, Type type) {
    return convertDtype(node, v, type);
  };
  for (auto [form, type, isMean] :
       {std::tuple<int, Type, bool>{meanForm, node.resultTypes[1], true},
        {rstdForm, node.resultTypes[2], false}}) {
    auto t = cast<RankedTensorType>(type);
    if (form == 1) {
      node.results.push_back(
          create(ConstantOp::getOperationName(), {},
                 {node.named("value",
                             DenseElementsAttr::get(t, ArrayRef<Attribute>{}))},
                 t));
      continue;
    }
    if (isMean) {
      node.results.push_back(convert(*mean, t));
      continue;
    }
    auto f32 = RankedTensorType::get({channels}, node.builder().getF32Type());
    Value v = convert(*var, f32);
    Value sum = create(
        AddOp::getOperationName(),
        {v, arith::ConstantOp::create(node.builder(), node.loc,
                                      node.builder().getF64FloatAttr(eps))},
        {}, f32);
    Value root = create(SqrtOp::getOperationName(), sum, {}, f32);
    node.results.push_back(
        convert(create(ReciprocalOp::getOperationName(), root, {}, f32), t));
  }
  return success();
}

/// A pooling list argument as `pooled` entries: one entry stands for all,
/// an absent or empty one is `fallback` (the kernel, for the stride).
std::optional<SmallVector<int64_t>>
poolList(Node &node, StringRef name, int64_t pooled,
         std::optional<SmallVector<int64_t>> fallback) {
  std::optional<SmallVector<int64_t>> list = node.intsArg(name);
  if (!list && node.arg(name))
    return std::nullopt; // symbolic
  if (!list || list->empty())
    return fallback;
  if (list->size() == 1)
    return SmallVector<int64_t>(pooled, list->front());
  if (static_cast<int64_t>(list->size()) != pooled)
    return std::nullopt;
  return list;
}

/// max_pool{2,3}d_with_indices and avg_pool{1,2,3}d; a symbolic list keeps
/// the node opaque.
LogicalResult convertPool(Node &node, bool max) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  std::optional<SmallVector<int64_t>> kernel = node.intsArg("kernel_size");
  if (!kernel || kernel->empty())
    return node.opaque();
  auto pooled = static_cast<int64_t>(kernel->size());
  auto stride = poolList(node, "stride", pooled, kernel);
  auto padding =
      poolList(node, "padding", pooled, SmallVector<int64_t>(pooled, 0));
  auto dilation =
      poolList(node, "dilation", pooled, SmallVector<int64_t>(pooled, 1));
  if (!stride || !padding || !dilation)
    return node.opaque();
  SmallVector<NamedAttribute> attrs{node.i64s("kernel_size", *kernel),
                                    node.i64s("stride", *stride),
                                    node.i64s("padding", *padding)};
  if (max)
    attrs.push_back(node.i64s("dilation", *dilation));
  if (node.boolArg("ceil_mode").value_or(false))
    attrs.push_back(node.named("ceil_mode", node.builder().getUnitAttr()));
  if (!max) {
    if (!node.boolArg("count_include_pad").value_or(true))
      attrs.push_back(node.boolean("count_include_pad", false));
    if (auto divisor = node.intArg("divisor_override"))
      attrs.push_back(node.i64("divisor_override", *divisor));
  }
  return node.emit({*self}, attrs);
}
LogicalResult convertMaxPool(Node &node) { return convertPool(node, true); }
LogicalResult convertAvgPool(Node &node) { return convertPool(node, false); }

/// _adaptive_avg_pool{2,3}d where each static input size is a multiple of
/// its output size: windows of in / out, as many apart. Uneven windows (a
/// static float input) are multiplied by a matrix of window weights per
/// dim (emitAdaptiveAvgPoolByWeights); a dynamic pooled size keeps the
/// node opaque.
LogicalResult convertAdaptiveAvgPool(Node &node) {
  FailureOr<Value> self = node.tensor("self");
  if (failed(self))
    return failure();
  std::optional<SmallVector<int64_t>> outSize = node.intsArg("output_size");
  auto type = cast<RankedTensorType>(self->getType());
  if (!outSize || outSize->empty() ||
      static_cast<int64_t>(outSize->size()) >= type.getRank())
    return node.opaque();
  SmallVector<int64_t> kernel;
  int64_t lead = type.getRank() - static_cast<int64_t>(outSize->size());
  for (auto [d, out] : llvm::enumerate(*outSize)) {
    int64_t in = type.getDimSize(lead + d);
    if (ShapedType::isDynamic(in) || out < 1)
      return node.opaque();
    if (in % out != 0)
      return emitAdaptiveAvgPoolByWeights(node, *self, *outSize);
    kernel.push_back(in / out);
  }
  return node.emitAs(
      AvgPoolOp::getOperationName(), {*self},
      {node.i64s("kernel_size", kernel), node.i64s("stride", kernel),
       node.i64s("padding", SmallVector<int64_t>(kernel.size(), 0))});
}

/// native_group_norm(input [N, C, *], weight?, bias?, N, C, HxW, group,
/// eps): a layer norm over each group. The input (in f32 when it is f16 or
/// bf16, as PyTorch computes) is viewed as [N, group, C / group * HxW],
/// magi.native_layer_norm normalizes the last dimension, the result is
/// viewed back and takes the per-channel weight and bias, and is rounded to
/// the result's dtype once. mean and rstd ([N, group]) are the layer
/// norm's. A symbolic channel count, or one the groups do not divide,
/// keeps the node opaque.
LogicalResult convertGroupNorm(Node &node) {
  FailureOr<Value> input = node.tensor("input");
  FailureOr<Value> weight = node.optTensor("weight"),
                   bias = node.optTensor("bias");
  if (failed(input) || failed(weight) || failed(bias))
    return failure();
  auto type = cast<RankedTensorType>(input->getType());
  std::optional<int64_t> groups = node.intArg("group");
  if (!groups || *groups <= 0 || type.getRank() < 2 ||
      ShapedType::isDynamic(type.getDimSize(1)) ||
      type.getDimSize(1) % *groups != 0 || node.resultTypes.size() != 3)
    return node.opaque();
  OpBuilder &b = node.builder();
  int64_t channels = type.getDimSize(1), rank = type.getRank();
  Type element = type.getElementType();
  Type compute = isa<Float16Type, BFloat16Type>(element) ? b.getF32Type() : element;
  auto tensorOf = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, compute);
  };
  // A view of `v` to `sizes`, where kDynamic is the input's size of the same
  // dimension (magi.sym_size) and -1 the one size left to infer.
  auto view = [&](Value v, ArrayRef<int64_t> sizes, RankedTensorType to) {
    SmallVector<Value> operands{v};
    for (auto [d, size] : llvm::enumerate(sizes))
      if (ShapedType::isDynamic(size))
        operands.push_back(SymSizeOp::create(b, node.loc, *input,
                                             b.getI64IntegerAttr(d)));
    return createOne(node, ViewOp::getOperationName(), operands,
                     {node.i64s("static_sizes", sizes)}, to);
  };

  int64_t batch = type.getDimSize(0), perGroup = channels / *groups;
  for (int64_t d = 2; d < rank && !ShapedType::isDynamic(perGroup); ++d)
    perGroup = ShapedType::isDynamic(type.getDimSize(d))
                   ? ShapedType::kDynamic
                   : perGroup * type.getDimSize(d);
  RankedTensorType groupedType = tensorOf({batch, *groups, perGroup});
  Value grouped = view(convertDtype(node, *input, tensorOf(type.getShape())),
                       {batch, *groups, ShapedType::isDynamic(perGroup) ? -1 : perGroup},
                       groupedType);
  RankedTensorType statsType = tensorOf({batch, *groups, 1});
  Operation *norm = node.importer.create(
      NativeLayerNormOp::getOperationName(), node.loc, grouped,
      {node.i64("normalized_ndim", 1),
       node.f64("eps", node.floatArg("eps").value_or(1e-5)),
       node.named("operandSegmentSizes", b.getDenseI32ArrayAttr({1, 0, 0}))},
      {groupedType, statsType, statsType});

  RankedTensorType outType = tensorOf(type.getShape());
  Value out = view(norm->getResult(0), type.getShape(), outType);
  // weight and bias [C], viewed as [C, 1, ...] against [N, C, *].
  SmallVector<int64_t> perChannel(rank - 1, 1);
  perChannel[0] = channels;
  for (auto [operand, name] : {std::pair<Value, StringRef>{*weight, MulOp::getOperationName()},
                               {*bias, AddOp::getOperationName()}}) {
    if (!operand)
      continue;
    Value v = view(convertDtype(node, operand, tensorOf({channels})), perChannel,
                   tensorOf(perChannel));
    out = createOne(node, name, {out, v}, {}, outType);
  }
  node.results.push_back(convertDtype(node, out, node.resultTypes[0]));
  for (unsigned i : {1u, 2u}) {
    Value stats = view(norm->getResult(i), {batch, *groups}, tensorOf({batch, *groups}));
    node.results.push_back(convertDtype(node, stats, node.resultTypes[i]));
  }
  return success();
}

/// _native_batch_norm_legit(input, weight?, bias?, running_mean,
/// running_var, training, momentum, eps) and its .no_stats overload (no
/// running statistics, always training). Not training, it is the inference
/// form (convertBatchNormInference). Training, each channel is normalized
/// by its batch statistics, the biased variance over every dimension but 1:
/// magi.native_layer_norm of the input (in f32 when it is f16 or bf16, as
/// PyTorch computes) permuted to [C, N, *] and viewed as [C, N * prod(*)],
/// viewed and permuted back, then the per-channel weight and bias, rounded
/// once; the saved mean and 1 / sqrt(var + eps) ([C]) are the layer norm's.
/// With running statistics, training would also update them in place,
/// which a graph of values cannot hold: that form stays opaque, as do
/// symbolic shapes.
LogicalResult convertBatchNormLegit(Node &node) {
  bool hasRunningStats = node.arg("running_mean") != nullptr;
  std::optional<bool> training = node.boolArg("training");
  if (hasRunningStats && training == false)
    return convertBatchNormInference(node);
  FailureOr<Value> input = node.tensor("input");
  FailureOr<Value> weight = node.optTensor("weight"), bias = node.optTensor("bias");
  if (failed(input) || failed(weight) || failed(bias))
    return failure();
  auto type = cast<RankedTensorType>(input->getType());
  if (hasRunningStats || training != true || !type.hasStaticShape() || type.getRank() < 2 ||
      node.resultTypes.size() != 3)
    return node.opaque();
  int64_t channels = type.getDimSize(1), rank = type.getRank();
  for (unsigned i : {1u, 2u}) {
    auto stats = dyn_cast<RankedTensorType>(node.resultTypes[i]);
    if (!stats || stats.getShape() != ArrayRef<int64_t>{channels})
      return node.opaque();
  }
  OpBuilder &b = node.builder();
  Type element = type.getElementType();
  Type compute = isa<Float16Type, BFloat16Type>(element) ? b.getF32Type() : element;
  auto tensorOf = [&](ArrayRef<int64_t> shape) { return RankedTensorType::get(shape, compute); };
  auto view = [&](Value v, ArrayRef<int64_t> sizes) {
    return createOne(node, ViewOp::getOperationName(), v, {node.i64s("static_sizes", sizes)},
                     tensorOf(sizes));
  };
  // Dimensions 0 and 1 swapped: its own inverse.
  SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(order[0], order[1]);
  auto swapped = [&](ArrayRef<int64_t> shape) {
    SmallVector<int64_t> result(shape);
    std::swap(result[0], result[1]);
    return result;
  };
  auto permute = [&](Value v, ArrayRef<int64_t> shape) {
    return createOne(node, PermuteOp::getOperationName(), v, {node.i64s("dims", order)},
                     tensorOf(swapped(shape)));
  };
  int64_t perChannel = channels ? type.getNumElements() / channels : 0;
  Value x = convertDtype(node, *input, tensorOf(type.getShape()));
  SmallVector<int64_t> channelsFirst = swapped(type.getShape());
  Value rows = view(permute(x, type.getShape()), {channels, perChannel});
  RankedTensorType statsType = tensorOf({channels, 1});
  Operation *norm = node.importer.create(
      NativeLayerNormOp::getOperationName(), node.loc, rows,
      {node.i64("normalized_ndim", 1), node.f64("eps", node.floatArg("eps").value_or(1e-5)),
       node.named("operandSegmentSizes", b.getDenseI32ArrayAttr({1, 0, 0}))},
      {tensorOf({channels, perChannel}), statsType, statsType});
  Value out = permute(view(norm->getResult(0), channelsFirst), channelsFirst);
  // weight and bias [C], viewed as [C, 1, ...] against [N, C, *].
  SmallVector<int64_t> channelShape(rank - 1, 1);
  channelShape[0] = channels;
  RankedTensorType outType = tensorOf(type.getShape());
  for (auto [operand, name] : {std::pair<Value, StringRef>{*weight, MulOp::getOperationName()},
                               {*bias, AddOp::getOperationName()}}) {
    if (!operand)
      continue;
    Value v = view(convertDtype(node, operand, tensorOf({channels})), channelShape);
    out = createOne(node, name, {out, v}, {}, outType);
  }
  node.results.push_back(convertDtype(node, out, node.resultTypes[0]));
  for (unsigned i : {1u, 2u})
    node.results.push_back(
        convertDtype(node, view(norm->getResult(i), {channels}), node.resultTypes[i]));
  return success();
}

LogicalResult convertNativeLayerNorm(Node &node) {
  FailureOr<Value> input = node.tensor("input");
  FailureOr<Value> weight = node.optTensor("weight");
  FailureOr<Value> bias = node.optTensor("bias");
  if (failed(input) || failed(weight) || failed(bias))
    return failure();
  std::optional<SmallVector<int64_t>> shape = node.intsArg("normalized_shape");
  if (!shape)
    return node.error()
           << "expected constant integers for argument 'normalized_shape'";
  SmallVector<Value> operands{*input};
  if (*weight)
    operands.push_back(*weight);
  if (*bias)
    operands.push_back(*bias);
  return node.emit(operands,
                   {node.i64("normalized_ndim", shape->size()),
                    node.f64("eps", node.floatArg("eps").value_or(1e-5)),
                    node.named("operandSegmentSizes",
                               node.builder().getDenseI32ArrayAttr(
                                   {1, *weight ? 1 : 0, *bias ? 1 : 0}))});
}

/// scaled_dot_product_attention (attn_mask) and its efficient and cuDNN
/// kernels (attn_bias, and the log-sum-exp they may return).
LogicalResult convertAttention(Node &node, bool efficient) {
  FailureOr<Value> q = node.tensor("query"), k = node.tensor("key"),
                   v = node.tensor("value");
  FailureOr<Value> mask = node.optTensor(efficient ? "attn_bias" : "attn_mask");
  if (failed(q) || failed(k) || failed(v) || failed(mask))
    return failure();
  SmallVector<Value> operands{*q, *k, *v};
  if (*mask)
    operands.push_back(*mask);
  SmallVector<NamedAttribute> attrs;
  if (node.boolArg("is_causal").value_or(false))
    attrs.push_back(node.boolean("is_causal", true));
  if (auto scale = node.floatArg("scale"))
    attrs.push_back(node.f64("scale", *scale));
  if (auto p = node.floatArg("dropout_p"); p && *p != 0.0)
    attrs.push_back(node.f64("dropout_p", *p));
  if (efficient && node.boolArg("compute_log_sumexp").value_or(false))
    attrs.push_back(node.boolean("compute_log_sumexp", true));
  return node.emit(operands, attrs);
}
LogicalResult convertSdpa(Node &node) {
  return convertAttention(node, /*efficient=*/false);
}
LogicalResult convertEfficientAttention(Node &node) {
  return convertAttention(node, /*efficient=*/true);
}
/// cuDNN's kernel returns also its debug mask, and two cumulative sequence
/// lengths (for nested tensors); torch.export writes them as None, which
/// leaves the op's six outputs. A debug mask asked for is refused.
LogicalResult convertCudnnAttention(Node &node) {
  if (node.boolArg("return_debug_mask").value_or(false))
    return node.error() << "cuDNN attention with return_debug_mask is not "
                           "supported (a debugging output)";
  return convertAttention(node, /*efficient=*/true);
}

} // namespace

void addNNConverters(std::vector<ConverterRow> &rows) {
  rows.insert(
      rows.end(),
      {row<MmOp>("aten::mm", convertMatmul),
       row<BmmOp>("aten::bmm", convertMatmul),
       row<GroupedMmOp>("aten::_grouped_mm", convertGroupedMm),
       row<AddmmOp>("aten::addmm", convertAddmm),
       row<ConvolutionOp>("aten::convolution", convertConvolution),
       row<BatchNormOp>("aten::_native_batch_norm_legit_no_training",
                        convertBatchNormInference),
       row<NativeLayerNormOp>("aten::_native_batch_norm_legit", convertBatchNormLegit),
       row<MaxPoolOp>("aten::max_pool2d_with_indices", convertMaxPool),
       row<MaxPoolOp>("aten::max_pool3d_with_indices", convertMaxPool),
       row<AvgPoolOp>("aten::avg_pool1d", convertAvgPool),
       row<AvgPoolOp>("aten::avg_pool2d", convertAvgPool),
       row<AvgPoolOp>("aten::avg_pool3d", convertAvgPool),
       row<AvgPoolOp>("aten::_adaptive_avg_pool2d", convertAdaptiveAvgPool),
       row<AvgPoolOp>("aten::_adaptive_avg_pool3d", convertAdaptiveAvgPool),
       row<NativeLayerNormOp>("aten::native_layer_norm",
                              convertNativeLayerNorm),
       row<NativeLayerNormOp>("aten::native_group_norm", convertGroupNorm),
       row<AttentionOp>("aten::scaled_dot_product_attention", convertSdpa),
       row<EfficientAttentionOp>(
           "aten::_scaled_dot_product_efficient_attention",
           convertEfficientAttention),
       row<CudnnAttentionOp>("aten::_scaled_dot_product_cudnn_attention",
                             convertCudnnAttention)});
}

} // namespace magi::torch_import
