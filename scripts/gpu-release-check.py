#!/usr/bin/env python3
"""On the GPU machine, with the portable release (scripts/release.sh)
unpacked and its python/ on PYTHONPATH: what PyTorch users call, compiling
there. For every shared fixture (a torch.export archive with reference
cases), the archive's module (torch.export.load(...).module()) goes through
  - magi.compile(module, case0 inputs): torch.export, magi-compile, load;
    called on case0;
  - torch.compile(module, backend="magi"): called on case0, then case1 (other
    sizes: Dynamo makes them symbolic and compiles again);
and each output is compared with the reference (the bars of magi-run: 1e-4
relative for f32, 3e-2 for bf16/f16). A backend that fell back to PyTorch
(magi warns) counts as a failure. Then torchvision's ResNet-18,
MobileNetV3-small and ViT-B/16 the same two ways (vision_models), timed
beside eager. With `--llama7b HARNESS_DIR` (the shared LLaMA-7B harness,
bench/llama7b), also the 7B-shaped layer with its real (seeded) weights the
same two ways (llama7b_layer). With `--moe`, a small Qwen2-MoE causal LM
whose experts compute with histc and _grouped_mm (moe_model). With
`--data-dependent`, small modules whose output sizes are data (nonzero,
a boolean mask, .item() as a size), x[mask] = v, a torch.while_loop
whose number of iterations is data, three torch.cond that run as
branches of the runtime (on a tensor, on a bool .item(), on an int .item()
with no bound), and loops and branches inside each other (a cond and a
while_loop in a while_loop's body, a cond in a cond's branch, a boolean
mask in a while_loop's body), through magi.compile
(data_dependent_models).

    PYTHONPATH=<release>/python CUDA_PATH=/usr/local/cuda \\
        python3 scripts/gpu-release-check.py FIXTURES_DIR [--no-fixtures] [--no-vision] [--moe] [--data-dependent] [--llama7b HARNESS_DIR]
"""

import glob
import os
import shutil
import sys
import tempfile
import time
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

check = import_module("gpu-python-check")  # read, worst_error

import magi

try:
    # Registers transformers' output classes with pytree: the BERT fixtures'
    # archives name one, and torch.export.load needs it to read them.
    import transformers.modeling_outputs  # noqa: F401 (the import registers them)
except ImportError:
    pass


def case_tensors(prefix, count, kind):
    tensors = []
    for i in range(count):
        if not os.path.exists("%s_%s%d.json" % (prefix, kind, i)):
            break
        tensors.append(check.read("%s_%s%d" % (prefix, kind, i)))
    return tensors


def as_tuple(result):
    """The tensors of a call's result, in order (a model's output class,
    such as transformers' ModelOutput, flattened)."""
    return tuple(torch.utils._pytree.tree_leaves(result))


def main(fixtures):
    print("magi", magi.__version__, "torch", torch.__version__)
    rows, failures = [], 0
    fixture_dirs = [] if "--no-fixtures" in sys.argv else sorted(glob.glob(os.path.join(fixtures, "*")))
    for model_dir in fixture_dirs:
        name = os.path.basename(model_dir)
        cases = sorted(glob.glob(os.path.join(model_dir, "case*_out0.json")))
        # op-* (scripts/make-op-fixtures.sh) are archives the import tests
        # write, not torch.export.save's: no module to load.
        if not cases or name.startswith("op-"):
            continue
        try:
            module = torch.export.load(os.path.join(model_dir, "model.pt2")).module().cuda()
        except Exception as e:  # noqa: BLE001 - reported, counted
            rows.append("| %s | torch.export.load | - | FAIL: %s |" % (
                name, (str(e) or type(e).__name__).splitlines()[0][:120]))
            failures += 1
            continue
        prefixes = [c[: -len("_out0.json")] for c in cases]
        ins = [[t.cuda() for t in case_tensors(p, 16, "in")] for p in prefixes]
        refs = [case_tensors(p, 16, "out") for p in prefixes]

        def record(what, run):
            nonlocal failures
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    worst = check.worst_error(run(), refs[case])
                    fell_back = [str(w.message) for w in caught if "magi" in str(w.message)]
                    if fell_back:
                        print("%s, %s fell back:\n%s\n" % (name, what, fell_back[0][:3000]))
                    ok = worst <= 1.0 and not fell_back
                    result = "OK" if ok else "FAIL" + (": " + fell_back[0][:120] if fell_back else "")
                    rows.append("| %s | %s | %.3g | %s |" % (name, what, worst, result))
                except Exception as e:  # noqa: BLE001 - reported, counted
                    ok = False
                    rows.append("| %s | %s | - | FAIL: %s |" % (name, what, (str(e) or type(e).__name__).splitlines()[0][:120]))
            failures += not ok

        case = 0
        compiled = None
        try:
            compiled = magi.compile(module, ins[0])
        except Exception as e:  # noqa: BLE001
            rows.append("| %s | magi.compile | - | FAIL: %s |" % (name, (str(e) or type(e).__name__).splitlines()[0][:120]))
            failures += 1
        if compiled is not None:
            record("magi.compile, case0", lambda: as_tuple(compiled(*ins[0])))
        # Dynamo recompiles for case1's sizes with them symbolic; with
        # dynamic=True it compiles symbolic sizes from the first call on.
        for backend, dynamic in (("magi", None), ("magi", True)):
            torch._dynamo.reset()
            dynamo = torch.compile(module, backend=backend, dynamic=dynamic)
            for case in range(len(prefixes)):
                record("torch.compile(backend=\"%s\"%s), case%d" % (
                    backend, ", dynamic=True" if dynamic else "", case),
                    lambda: as_tuple(dynamo(*ins[case])))
    print("| fixture | call | worst error / bar | result |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    if "--no-vision" not in sys.argv:
        failures += vision_models()
    if "--moe" in sys.argv:
        failures += moe_model()
    if "--data-dependent" in sys.argv:
        failures += data_dependent_models()
    if "--llama7b" in sys.argv:
        failures += llama7b_layer(sys.argv[sys.argv.index("--llama7b") + 1])
    print("release check: %d failure(s)" % failures)
    return 1 if failures else 0


def median_ms(call, repeats=20):
    """The median of `repeats` calls after 3 untimed ones, in ms."""
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1000)
    return sorted(times)[repeats // 2]


def timed_comparison(model, what, make, x, ref, eager_ms):
    """One row of the models' table: `make()` compiles (magi.compile or
    torch.compile) and returns the call; its first call's output against
    `ref`, then its time beside eager's. A fallback to PyTorch (magi warns)
    fails. Returns the row and whether it passed."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            start = time.perf_counter()
            run = make()
            with torch.no_grad():
                out = as_tuple(run(x))[0]
                seconds = time.perf_counter() - start
                worst = check.worst_error((out,), [ref])
                magi_ms = median_ms(lambda: run(x))
            fell_back = [str(w.message) for w in caught if "magi" in str(w.message)]
            if fell_back:
                print("%s, %s fell back:\n%s\n" % (model, what, fell_back[0][:3000]))
            ok = worst <= 1.0 and not fell_back
            return ("| %s | %s | %.3g | %.1f | %.3f | %.3f | %s |" % (
                model, what, worst, seconds, eager_ms, magi_ms,
                "OK" if ok else "FAIL" + (": " + fell_back[0][:160] if fell_back else "")), ok)
        except Exception as e:  # noqa: BLE001 - reported, counted
            # The row keeps the first line; the whole message (the
            # compiler's diagnostics follow it) goes above the table.
            print("%s, %s failed:\n%s\n" % (model, what, str(e) or type(e).__name__))
            return ("| %s | %s | - | - | %.3f | - | FAIL: %s |" % (
                model, what, eager_ms, (str(e) or type(e).__name__).splitlines()[0][:200]), False)


def print_model_rows(rows):
    print()
    print("| model | call | worst error / bar | compile + first call s | eager ms | Magi ms | result |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))


def vision_models():
    """torchvision's ResNet-18, MobileNetV3-small and ViT-B/16 (random
    initialization, eval, f32) through magi.compile and
    torch.compile(backend="magi"), against PyTorch eager with TF32 off
    (the f32 bar, 1e-4 relative); each call's time beside eager's."""
    import torchvision
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    models = [("resnet18", torchvision.models.resnet18, (2, 3, 64, 64)),
              ("mobilenet_v3_small", torchvision.models.mobilenet_v3_small, (2, 3, 64, 64)),
              ("vit_b_16", torchvision.models.vit_b_16, (1, 3, 224, 224))]
    rows, failures = [], 0
    for name, make, shape in models:
        torch.manual_seed(0)
        model = make().eval().cuda()
        with torch.no_grad():
            # ViT's classifier starts at zero (every output 0): random
            # instead, so that the comparison means something.
            for parameter in model.parameters():
                if parameter.dim() > 1 and not parameter.any():
                    torch.nn.init.normal_(parameter, std=0.02)
        x = torch.randn(shape, device="cuda")
        with torch.no_grad():
            ref = model(x).cpu()
            eager_ms = median_ms(lambda: model(x))
        for what in ("magi.compile", "torch.compile(backend=\"magi\")"):
            def compile_model(what=what, model=model, x=x):
                if what == "magi.compile":
                    return magi.compile(model, [x])
                torch._dynamo.reset()
                dynamo = torch.compile(model, backend="magi")
                return lambda x: dynamo(x)
            row, ok = timed_comparison("%s %s" % (name, list(shape)), what, compile_model, x,
                                       ref, eager_ms)
            rows.append(row)
            failures += not ok
    print_model_rows(rows)
    return failures


def data_dependent_models():
    """Modules whose output sizes are data, exported by torch.export (their
    sizes unbacked SymInts) and compiled there by magi.compile, against
    PyTorch eager (exact: integers, or floats only selected)."""
    class Nonzero(torch.nn.Module):
        def forward(self, x):
            return torch.nonzero(x > 0.5) * 3

    class Masked(torch.nn.Module):
        def forward(self, x):
            return x[x > 0.5] * 2.0

    class ItemSize(torch.nn.Module):
        def forward(self, x, k):
            n = k.item()
            torch._check(n >= 0)
            torch._check(n <= x.shape[0])
            return x[:n] + 1.0

    class SplitAtIndices(torch.nn.Module):
        # The middle part of tensor_split at indices held in a tensor (which
        # PyTorch wants on the CPU, so written out): each index read on the
        # host with no torch._check, any value (clamped reads); the second
        # run's indices are -10, 20: x[-10:20] of 64 rows is empty.
        def forward(self, x, idx):
            return x[idx[0].item():idx[1].item()] * 2.0

    class MaskPut(torch.nn.Module):
        def forward(self, x):
            y = x * 1.0
            y[y < 0.5] = -1.0
            return y

    class WhileLoop(torch.nn.Module):
        # As many iterations as the data needs: double and add 1 while the
        # sum stays below 100 (a condition read on the host every time).
        def forward(self, x):
            from torch._higher_order_ops.while_loop import while_loop

            def cond(i, y):
                return y.sum() < 100.0

            def body(i, y):
                return i + 1, y * 2.0 + 1.0

            i, y = while_loop(cond, body, (torch.zeros((), dtype=torch.int64, device=x.device), x))
            return y, i

    def sorted_rows(x):
        return x[x[:, 0].argsort()] * 2.0

    class Branch(torch.nn.Module):
        # torch.cond whose true branch gathers (x[perm]): no select, a
        # branch of the runtime, its predicate read on the host. k > 0 on
        # the first input, not on the other (k - 20).
        def forward(self, x, k):
            return torch.cond(k > 0, sorted_rows, torch.neg, (x,))

    class BoolItemBranch(torch.nn.Module):
        # The same on a bool .item() (a SymBool predicate).
        def forward(self, x, k):
            return torch.cond((k > 0).item(), sorted_rows, torch.neg, (x,))

    class IntItemBranch(torch.nn.Module):
        # The same on an integer .item() with no torch._check: a value read
        # on the host that gives no size, read whatever it is (-13 on the
        # other input).
        def forward(self, x, k):
            return torch.cond(k.item() > 0, sorted_rows, torch.neg, (x,))

    from torch._higher_order_ops.while_loop import while_loop

    def three_times(x, body):
        # body(i, y) -> (i + 1, next y), run while i < 3 from i = 0.
        i, y = while_loop(lambda i, y: i < 3, body,
                          (torch.zeros((), dtype=torch.int64, device=x.device), x))
        return y

    class CondInLoop(torch.nn.Module):
        # A cond (no select) inside a while_loop's body: a branch of the
        # runtime inside a loop of the runtime (artifact format 13), its
        # predicate read on the host every iteration.
        def forward(self, x):
            def body(i, y):
                return i + 1, torch.cond(y[0, 0] > 0.05, sorted_rows, torch.neg, (y,))

            return three_times(x, body)

    class LoopInLoop(torch.nn.Module):
        # A while_loop inside a while_loop's body: the inner one starts
        # again every outer iteration.
        def forward(self, x):
            def body(i, y):
                j, z = while_loop(lambda j, z: j < i, lambda j, z: (j + 1, z * 2.0 + 1.0),
                                  (torch.zeros_like(i), y))
                return i + 1, z

            return three_times(x, body)

    class MaskInLoop(torch.nn.Module):
        # A size of the data inside a while_loop's body: the mask's count
        # read on the host every iteration (the max is exact).
        def forward(self, x):
            def body(i, y):
                return i + 1, y + y[y > 0.05].amax()

            return three_times(x, body)

    class CondInCond(torch.nn.Module):
        # A cond inside a cond's branch, both branches of the runtime.
        def forward(self, x, k):
            def inner(x):
                return torch.cond(x[0, 0] > 0.5, sorted_rows, torch.neg, (x,))

            return torch.cond(k > 0, inner, torch.neg, (x,))

    torch.manual_seed(0)
    x = torch.rand(64, 48, device="cuda")
    cases = [("nonzero", Nonzero(), (x,)), ("boolean mask", Masked(), (x,)),
             ("item as a size", ItemSize(), (x, torch.tensor(37, device="cuda"))),
             ("x[mask] = v", MaskPut(), (x,)),
             ("slice at two .item()s, no torch._check", SplitAtIndices(),
              (x, torch.tensor([10, 40], device="cuda"))),
             ("while_loop", WhileLoop(), (x[:4, :4] * 0.1,)),
             ("cond (a branch)", Branch(), (x, torch.tensor(7, device="cuda"))),
             ("cond on a bool .item()", BoolItemBranch(), (x, torch.tensor(7, device="cuda"))),
             ("cond on an int .item(), no bound", IntItemBranch(),
              (x, torch.tensor(7, device="cuda"))),
             ("cond inside a while_loop", CondInLoop(), (x[:4, :4] * 0.1,)),
             ("while_loop inside a while_loop", LoopInLoop(), (x[:4, :4] * 0.1,)),
             ("mask inside a while_loop", MaskInLoop(), (x[:4, :4] * 0.1,)),
             ("cond inside a cond", CondInCond(), (x, torch.tensor(7, device="cuda")))]
    rows, failures = [], 0
    for name, module, args in cases:
        with torch.no_grad():
            ref = as_tuple(module(*args))[0].cpu()
        try:
            compiled = magi.compile(module, list(args))
            out = as_tuple(compiled(*args))[0].cpu()
            # Run again on other data: other sizes, the same artifact.
            other = tuple(torch.rand_like(a) if a.is_floating_point() else a - 20 for a in args)
            with torch.no_grad():
                ref2 = as_tuple(module(*other))[0].cpu()
            out2 = as_tuple(compiled(*other))[0].cpu()
            ok = (out.shape == ref.shape and torch.equal(out, ref) and
                  out2.shape == ref2.shape and torch.equal(out2, ref2))
            rows.append("| %s | %s, %s | %s |" % (name, list(ref.shape), list(ref2.shape),
                                                 "OK" if ok else "FAIL: differs"))
        except Exception as e:  # noqa: BLE001 - reported, counted
            print("%s failed:\n%s\n" % (name, str(e) or type(e).__name__))
            ok = False
            rows.append("| %s | - | FAIL: %s |" % (
                name, (str(e) or type(e).__name__).splitlines()[0][:200]))
        failures += not ok
    print()
    print("| data-dependent module | output shapes (two inputs) | result |")
    print("|---|---|---|")
    print("\n".join(rows))
    return failures


def moe_model():
    """A small mixture-of-experts causal LM from transformers (Qwen2-MoE:
    4 experts, 2 a token, random bf16 weights) with its experts computed
    the `grouped_mm` way (histc, argsort, _grouped_mm, index_add), through
    magi.compile at 24 tokens, against PyTorch eager (the bf16 bar, 3e-2
    relative). Written without a device (2026-12-05): a failure to build
    the model or to pick that implementation is reported as such."""
    try:
        import transformers
        config = transformers.Qwen2MoeConfig(
            vocab_size=256, hidden_size=64, intermediate_size=128,
            moe_intermediate_size=64, shared_expert_intermediate_size=64,
            num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            num_experts=4, num_experts_per_tok=2, max_position_embeddings=128)
        config._experts_implementation = "grouped_mm"
        torch.manual_seed(0)
        model = transformers.Qwen2MoeForCausalLM(config).to(torch.bfloat16).eval().cuda()
    except Exception as e:  # noqa: BLE001 - reported, counted
        print("| qwen2-moe | building the model | - | - | - | - | FAIL: %s |" % (
            (str(e) or type(e).__name__).splitlines()[0][:200]))
        return 1
    ids = torch.randint(0, 256, (1, 24), device="cuda",
                        generator=torch.Generator("cuda").manual_seed(24))

    class Logits(torch.nn.Module):
        def __init__(self, lm):
            super().__init__()
            self.lm = lm

        def forward(self, ids):
            return self.lm(ids, use_cache=False).logits

    wrapped = Logits(model)
    with torch.no_grad():
        ref = wrapped(ids).cpu()
        eager_ms = median_ms(lambda: wrapped(ids))
    artifact_dir = tempfile.mkdtemp(prefix="magi-moe-")
    row, ok = timed_comparison("qwen2-moe (grouped_mm experts), T=24", "magi.compile",
                               lambda: magi.compile(wrapped, [ids], artifact_dir=artifact_dir),
                               ids, ref, eager_ms)
    print_model_rows([row])
    # The exported archive, to compile again where the compiler is built
    # (MAGI_KEEP_DIR: scripts/gpu-session.sh's output folder).
    keep = os.environ.get("MAGI_KEEP_DIR")
    if keep and os.path.exists(os.path.join(artifact_dir, "model.pt2")):
        shutil.copy(os.path.join(artifact_dir, "model.pt2"), os.path.join(keep, "qwen2-moe.pt2"))
        torch.save({"ids": ids.cpu(), "logits": ref}, os.path.join(keep, "qwen2-moe-io.pt"))
    return 0 if ok else 1


def llama7b_layer(harness):
    """The harness' 1-layer 7B-shaped LlamaModel (bf16, seeded weights, on
    the GPU) through magi.compile at 16 tokens (static sizes: the few-row
    products) and torch.compile(backend="magi") at 16 and then 37 tokens
    (symbolic), against PyTorch eager (the bf16 bar, 3e-2 relative); each
    call's time beside eager's."""
    sys.path.insert(0, harness)
    import llama7b_common
    model = llama7b_common.make_model(1)
    rows, failures = [], 0
    ids = {T: torch.randint(0, 32000, (1, T), device="cuda",
                            generator=torch.Generator("cuda").manual_seed(T))
           for T in (16, 37)}
    with torch.no_grad():
        refs = {T: model(x).cpu() for T, x in ids.items()}
        eager_ms = {T: median_ms(lambda x=x: model(x)) for T, x in ids.items()}
    calls = [("magi.compile", 16)] + [("torch.compile(backend=\"magi\")", T) for T in (16, 37)]
    dynamo = []
    for what, T in calls:
        def compile_model(what=what, T=T):
            if what == "magi.compile":
                return magi.compile(model, [ids[T]])
            if not dynamo:  # one Dynamo compilation, called at both sizes
                torch._dynamo.reset()
                dynamo.append(torch.compile(model, backend="magi"))
            return dynamo[0]
        row, ok = timed_comparison("llama7b 1 layer, T=%d" % T, what, compile_model, ids[T],
                                   refs[T], eager_ms[T])
        rows.append(row)
        failures += not ok
    print_model_rows(rows)
    return failures


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))  # [--no-vision]
