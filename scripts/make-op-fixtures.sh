#!/usr/bin/env bash
# Writes fixture directories (model.pt2, case0_inN and case0_outN in the shared
# fixtures' format) for ops whose import tests check values by hand but which
# no shared fixture or OpInfo sample runs on a GPU: the MoE routing (histc,
# _grouped_mm, index_add), padding and nearest upsampling, col2im, runtime
# assertions, torch.cond (a select, and branches of the runtime), torch.while_loop (and both
# inside each other), uint8 tensors, transposed
# convolutions, data-dependent sizes (nonzero, .item(), x[mask] = v), and
# batch norm in training, fill, clamp and other scalar values known when the
# graph runs, and
# PyTorch's own samples of tensor_split and
# max-pool backward. Archives come
# from the tests' specs (test/Import/Inputs/), inputs are the tests' hand
# values, references are magi-interp's outputs (which those tests check
# against the hand values). scripts/gpu-prepare.sh calls it,
# so `scripts/gpu-session.sh check` runs them on the GPU beside the fixtures.
#   scripts/make-op-fixtures.sh OUT_DIR   (uses MAGI_BIN, default build/bin)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MAGI_BIN:-$repo/build/bin}"
out="$1"
base="$repo/../shared/fixtures/torch-export/llama-f32/model.pt2"
specs="$repo/test/Import/Inputs"
tensors="$repo/test/Interp/Inputs/tensors.py"

# fixture NAME SPEC INPUT...; each INPUT is DTYPE:SHAPE:VALUES.
fixture() {
  local name="$1" spec="$2"
  shift 2
  local dir="$out/$name"
  rm -rf "$dir" && mkdir -p "$dir"
  python3 "$specs/op_archive.py" "$base" "$dir/model.pt2" "@$specs/$spec"
  local i=0 args=()
  for input in "$@"; do
    IFS=: read -r dtype shape values <<< "$input"
    python3 "$tensors" bin "$dir/case0_in$i" "$dtype" "$shape" "$values"
    args+=(--input "$dir/case0_in$i.bin")
    i=$((i + 1))
  done
  local refs
  refs="$(mktemp -d)"
  "$bin/magi-interp" "$dir/model.pt2" "${args[@]}" --save-outputs "$refs" > /dev/null
  for file in "$refs"/out*; do
    mv "$file" "$dir/case0_$(basename "$file")"
  done
  rmdir "$refs"
}

fixture op-moe-routing moe-routing.spec \
  int64:6:0,0,1,2,2,2 \
  float32:6,2:1,0,0,1,1,1,2,0,0,2,1,-1 \
  float32:3,4,2:1,0,0,1,1,1,1,-1,2,0,0,2,0,0,1,1,0,1,1,0,3,0,0,3 \
  int64:6:0,1,0,3,3,2 \
  float32:4,4:0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 \
  float32:5:1,2,2,3,5
fixture op-padding padding.spec \
  float32:1,2,3:0,1,2,3,4,5 \
  float32:1,1,2,3:0,1,2,3,4,5 \
  float32:1,1,2,2,2:0,1,2,3,4,5,6,7 \
  int64:1,1,2,3:0,1,2,3,4,5
fixture op-col2im col2im.spec \
  float32:1,4,4:0,1,2,3,10,11,12,13,20,21,22,23,30,31,32,33 \
  bfloat16:8,4:0,1,2,3,10,11,12,13,20,21,22,23,30,31,32,33,40,41,42,43,50,51,52,53,60,61,62,63,70,71,72,73
fixture op-assertions assertions.spec \
  float32:4:1,2,3,4
# torch.cond on a bool tensor, compiled as both branches and a select.
fixture op-cond control-flow/cond-select.spec \
  bool::1 \
  float32:3:0,1,2 \
  float32:3:1,2,3
# torch.cond that cannot be a select (its true branch gathers): a branch of
# the runtime, its predicate read on the host; each part taken once. And a
# cond on the sizes: a branch whose condition needs no read (x.shape[0] > 3).
fixture op-cond-branch control-flow/cond-branch.spec \
  bool::1 \
  float32:4:1,2,3,4 \
  int64:4:3,0,0,1
fixture op-cond-branch-else control-flow/cond-branch.spec \
  bool::0 \
  float32:4:1,2,3,4 \
  int64:4:3,0,0,1
fixture op-cond-sizes control-flow/size-predicate.spec \
  float32:4:1,2,3,4
# A cond on an integer .item() with no bound: read whatever it is (here
# negative: the else part).
fixture op-cond-int-item control-flow/item-int.spec \
  int64:1:-3 \
  float32:4:1,2,3,4 \
  int64:4:3,0,0,1
# A torch.while_loop whose number of iterations depends on the data: a
# loop of the runtime, its condition read on the host every iteration.
fixture op-while control-flow/while.spec \
  float32:4:1,2,3,4 \
  float32:4:0,0,0,1 \
  int64::0
# Loops and branches of the runtime inside each other (artifact format 13):
# a loop in a loop's body, a branch in a loop's body (its predicate read on
# the host every iteration), a branch in a branch's then part, and branches
# on the sizes inside each other.
fixture op-nested-while control-flow/nested-while.spec \
  int64::0 \
  int64::0
fixture op-loop-cond control-flow/loop-cond.spec \
  float32:4:1,2,3,4 \
  int64:4:3,0,0,1 \
  int64::0
fixture op-nested-cond control-flow/nested-cond.spec \
  bool::1 \
  bool::0 \
  float32:4:1,2,3,4 \
  int64:4:3,0,0,1
fixture op-nested-size-cond control-flow/nested-size-cond.spec \
  float32:4:1,2,3,4
# Sizes of the data inside a branch's part and a loop's body (a mask's
# count read on the host there, every iteration).
fixture op-cond-nonzero control-flow/cond-nonzero.spec \
  bool::1 \
  float32:4:1,-2,3,-4
fixture op-loop-nonzero control-flow/loop-nonzero.spec \
  float32:4:1,2,3,4 \
  int64::0
# uint8 in and out: wrap-around, unsigned comparison and division, a float
# converted to uint8 through int64, amax, and x.float() / 255.
fixture op-uint8 uint8.spec \
  uint8:4:250,3,128,0 \
  float32:4:-1,300.5,2.7,-7.9
# Data-dependent sizes: four nonzeros (two of symbolic sizes) and an
# .item() as a slice's end; the values of test/Import/nonzero.mlir.
fixture op-nonzero nonzero.spec \
  float32:3,4:0,1,0,2,0,0,0,0,3,0,4,5 \
  int32:2,2,2:1,0,0,7,0,0,-2,0 \
  int64::5 \
  float32:8:1,2,3,4,5,6,7,8 \
  bool:5,3:0,1,0,1,1,0,0,0,0,0,0,1,1,0,0 \
  bool:2,3:0,1,1,1,0,0
# x[a.item():b.item()]: a window planned with a at 0 and b at its bound.
fixture op-window window.spec \
  float32:8:1,2,3,4,5,6,7,8 \
  int64::2 \
  int64::7
# x[mask] = v: a scalar under a mask (a select), rows under a row mask and
# an accumulated put (both through nonzero); test/Import/mask-put.mlir.
fixture op-mask-put mask-put.spec \
  float32:3,4:0,1,2,3,4,5,6,7,8,9,10,11 \
  bool:3,4:1,0,0,1,0,0,0,0,0,1,1,0 \
  bool:3:1,0,1 \
  float32:2,4:100,101,102,103,200,201,202,203 \
  float32::-1
# Transposed convolutions: 2-d with stride 2, padding, output padding and
# bias (f32), 1-d in two groups (bf16); the values of test/Import/conv-transposed.mlir.
fixture op-conv-transposed conv-transposed.spec \
  float32:2,4,3,3:1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2 \
  float32:4,3,3,3:1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0 \
  float32:3:1,-2,0 \
  bfloat16:1,4,5:1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1,1,-2,0,2,-1 \
  bfloat16:4,1,3:1,-2,0,2,-1,1,-2,0,2,-1,1,-2

# Batch norm in training (batch statistics) and not (running statistics);
# the values of test/Import/batch-norm-training.mlir.
fixture op-batch-norm-training batch-norm-training.spec \
  float32:2,3,2,2:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23 \
  float32:3:1,2,3 \
  float32:3:0,1,-1 \
  float32:3:0,1,2 \
  float32:3:1,4,9 \
  bfloat16:2,3,4:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23

# Fill values known only when the graph runs (a float .item(), a size);
# the values of test/Import/symbolic-fill.mlir.
fixture op-symbolic-fill symbolic-fill.spec \
  float32:1:-2.5 \
  bfloat16:5,3:0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 \
  int64:5:0,0,0,0,0

# clamp with bounds known only when the graph runs; the values of
# test/Import/symbolic-clamp.mlir.
fixture op-symbolic-clamp symbolic-clamp.spec \
  float32:1:2.5 \
  float32:5:-3,-1,0,2.5,9 \
  int64:5:0,3,5,9,12

# Scalar arguments known only when the graph runs (add's alpha, hardtanh's
# min_val, leaky_relu's slope, elu's alpha, constant_pad_nd's value); the
# values of test/Import/symbolic-scalar-args.mlir.
fixture op-symbolic-scalar-args symbolic-scalar-args.spec \
  float32:1:0.5 \
  float32:5:-3,-1,0,2.5,9

# PyTorch's own OpInfo samples (test/Ops/Inputs/core-op-samples.tgz: the
# archive, inputs and PyTorch's outputs) of ops that compile since the last
# ops run on a GPU: tensor_split at indices held in a tensor (clamped reads,
# artifact format 14) and max-pool backward. Then tensor_split's archive at
# indices outside [0, 5] (-2, 7, 1: x[0:-2], x[-2:7], x[7:1], x[1:]), its
# references magi-interp's (test/Compile/clamped-reads.test checks them
# against Python's slicing).
samples="$repo/test/Ops/Inputs/core-op-samples.tgz"
sample() {
  local name="$1" dir="$out/op-sample-$1"
  rm -rf "$dir" && mkdir -p "$dir"
  tar -xzf "$samples" -C "$dir" --strip-components=1 "$name"
}
sample tensor_split-0
sample max_pool2d_with_indices_backward-0
split="$out/op-tensor-split-outside"
rm -rf "$split" && mkdir -p "$split"
cp "$out/op-sample-tensor_split-0/model.pt2" "$split/"
python3 "$tensors" bin "$split/case0_in0" float32 5,5,5 "$(seq -s, 0 124)"
python3 "$tensors" bin "$split/case0_in1" int64 3 -2,7,1
refs="$(mktemp -d)"
"$bin/magi-interp" "$split/model.pt2" --input "$split/case0_in0.bin" --input "$split/case0_in1.bin" \
  --save-outputs "$refs" > /dev/null
for file in "$refs"/out*; do
  mv "$file" "$split/case0_$(basename "$file")"
done
rmdir "$refs"
