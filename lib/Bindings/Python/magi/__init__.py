"""Magi from Python: compile captured graphs, run compiled artifacts.

    import magi
    magi.compile_file("model.pt2", "artifact", compile_sizes="1,16")
    run = magi.load("artifact")          # on the current CUDA device
    outputs = run(*cuda_tensors)         # torch tensors in, torch tensors out

    compiled = magi.compile(model, example_inputs)      # torch.export + both
    torch.compile(model, backend="magi")                # the Dynamo backend

The compiler and the runtime are Magi's C API (include/magi-c/) through
ctypes; PyTorch is needed only for `load`'s tensors, `compile` and the
backend.
"""

import ctypes
import os
import tempfile

from ._capi import MagiError, compile_library, runtime_library, take_string
from ._version import __version__

__all__ = ["__version__", "MagiError", "CompileResult", "compile_file",
           "compile_option_names", "load", "Artifact", "compile", "backend"]


def c_api_version(library="compile"):
    """The C API version of the library loaded ('compile' or 'runtime')."""
    lib = compile_library() if library == "compile" else runtime_library()
    return lib.magiCApiVersion()


def compile_option_names():
    """The option names compile_file takes (magi-compile's flags)."""
    lib = compile_library()
    return take_string(lib, lib.magiCompileOptionNames()).split(",")


class CompileResult:
    """What a compile did: pieces, pieces from the cache, seconds, and the
    diagnostics (warnings) it printed."""

    def __init__(self, pieces, cached_pieces, seconds, diagnostics):
        self.pieces = pieces
        self.cached_pieces = cached_pieces
        self.seconds = seconds
        self.diagnostics = diagnostics

    def __repr__(self):
        return "CompileResult(pieces=%d, cached_pieces=%d, seconds=%.3f)" % (
            self.pieces, self.cached_pieces, self.seconds)


def _option_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def compile_file(input_path, output_dir, **options):
    """Compiles a torch.export archive (.pt2) or a .mlir graph into the
    artifact directory `output_dir`, as magi-compile does. Options are
    magi-compile's flags with '_' for '-': compile_sizes=[1, 16],
    no_cubin=True, cache_mode="off", target="sm_90a", ... Raises MagiError
    with the diagnostics when the compile fails."""
    lib = compile_library()
    handle = lib.magiCompileOptionsCreate()
    try:
        settings = [("input", os.fspath(input_path)), ("o", os.fspath(output_dir))]
        settings += [(name.replace("_", "-"), _option_text(value))
                     for name, value in options.items()]
        for name, value in settings:
            error = ctypes.c_void_p()
            if lib.magiCompileOptionsSet(handle, name.encode(), value.encode(),
                                         ctypes.byref(error)):
                raise MagiError(take_string(lib, error.value))
        result = lib.magiCompile(handle)
        try:
            diagnostics = lib.magiCompileResultDiagnostics(result).decode()
            if not lib.magiCompileResultSucceeded(result):
                message = lib.magiCompileResultError(result).decode()
                raise MagiError(message + ("\n" + diagnostics if diagnostics else ""))
            return CompileResult(lib.magiCompileResultNumPieces(result),
                                 lib.magiCompileResultNumCachedPieces(result),
                                 lib.magiCompileResultSeconds(result), diagnostics)
        finally:
            lib.magiCompileResultDestroy(result)
    finally:
        lib.magiCompileOptionsDestroy(handle)


# MagiDtype (magi-c/Runtime.h) by torch dtype name.
_DTYPES = ["float32", "float16", "bfloat16", "float64", "int64", "int32", "int8",
           "uint8", "bool"]


# The __cuda_array_interface__ type of each runtime dtype (16-bit floats
# as int16, which the interface has no type for, viewed back afterwards).
_ARRAY_TYPES = {"float32": "<f4", "float16": "<f2", "bfloat16": "<i2", "float64": "<f8",
                "int64": "<i8", "int32": "<i4", "int8": "|i1", "uint8": "|u1", "bool": "|b1"}


class _RuntimeBuffer:
    """An output buffer of the runtime as __cuda_array_interface__, for
    torch.as_tensor; it holds the Artifact, so the runtime (and the memory)
    lives as long as any tensor made from it."""

    def __init__(self, owner, pointer, shape, dtype):
        self._owner = owner
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": _ARRAY_TYPES[dtype], "data": (pointer, False),
            "strides": None, "version": 3,
            # Written on the caller's current stream, where it is read.
            "stream": None}


class Artifact:
    """A compiled artifact loaded on a GPU. Call it with the graph's user
    inputs (torch CUDA tensors, contiguous, on this device): they are read
    where they are, not copied, on PyTorch's current stream (the call does
    not wait for the GPU). With outputs="copy" (the default) it returns new
    torch tensors (one device copy each out of the runtime's buffers, queued
    on that stream); with outputs="borrow" it returns tensors over the
    runtime's buffers themselves, no copy: valid until the next call, which
    overwrites them (as torch.compile's CUDA graphs return their static
    outputs), and to be read only (an output may be a weight itself, which
    a write would change for every later call). With pad_to_compile_sizes=
    True a size that is no compile size runs as the next larger one, inputs
    padded with zeros and outputs cut back (only for a graph whose outputs at
    a position depend on no later position: a causal language model)."""

    def __init__(self, artifact_dir, device=None, weights_from=None, outputs="copy",
                 pad_to_compile_sizes=False):
        if outputs not in ("copy", "borrow"):
            raise MagiError("outputs must be 'copy' or 'borrow', not %r" % (outputs,))
        if pad_to_compile_sizes not in (True, False):
            raise MagiError("pad_to_compile_sizes must be True or False, not %r" %
                            (pad_to_compile_sizes,))
        self._borrow = outputs == "borrow"
        import torch
        self._torch = torch
        self._lib = runtime_library()
        if device is None:
            device = torch.cuda.current_device()
        self.device = torch.device("cuda", device)
        # The runtime uses the device's primary context, which PyTorch made
        # current on this device.
        torch.cuda.init()
        error = ctypes.c_void_p()
        self._handle = self._lib.magiRuntimeLoad(
            os.fspath(artifact_dir).encode(), self.device.index,
            os.fspath(weights_from).encode() if weights_from else None,
            ctypes.byref(error))
        if not self._handle:
            raise MagiError(take_string(self._lib, error.value))
        if pad_to_compile_sizes:
            if self._lib.magiCApiVersion() < 3:
                raise MagiError("pad_to_compile_sizes needs C API version 3; the runtime "
                                "library has %d" % self._lib.magiCApiVersion())
            self._check(self._lib.magiRuntimeSetPadToCompileSizes(self._handle, 1))
        self.num_inputs = self._lib.magiRuntimeNumInputs(self._handle)
        self.num_outputs = self._lib.magiRuntimeNumOutputs(self._handle)

    def _check(self, status):
        if status:
            raise MagiError(self._lib.magiRuntimeLastError(self._handle).decode())

    def __call__(self, *inputs):
        torch = self._torch
        if len(inputs) != self.num_inputs:
            raise MagiError("the graph takes %d input(s), %d were given" %
                            (self.num_inputs, len(inputs)))
        for i, t in enumerate(inputs):
            if not isinstance(t, torch.Tensor) or t.device != self.device:
                raise MagiError("input %d must be a torch tensor on %s" % (i, self.device))
            if not t.is_contiguous():
                raise MagiError("input %d is not contiguous (call .contiguous())" % i)
            name = str(t.dtype).replace("torch.", "")
            if name not in _DTYPES:
                raise MagiError("input %d has dtype %s, which Magi does not take" % (i, name))
            sizes = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
            self._check(self._lib.magiRuntimeSetInput(
                self._handle, i, t.data_ptr(), _DTYPES.index(name), sizes, t.dim()))
        # Ordered after the work PyTorch queued on its current stream, and
        # that stream's later work after the run: no host wait.
        stream = torch.cuda.current_stream(self.device).cuda_stream
        self._check(self._lib.magiRuntimeRunOnStream(self._handle, stream))
        outputs = []
        for i in range(self.num_outputs):
            dtype, rank = ctypes.c_int(), ctypes.c_size_t()
            sizes = (ctypes.c_int64 * 16)()
            pointer = ctypes.c_uint64()
            self._check(self._lib.magiRuntimeOutput(
                self._handle, i, ctypes.byref(dtype), ctypes.byref(rank), sizes, 16,
                ctypes.byref(pointer)))
            shape, name = list(sizes[:rank.value]), _DTYPES[dtype.value]
            if self._borrow and pointer.value:
                out = torch.as_tensor(_RuntimeBuffer(self, pointer.value, shape, name),
                                      device=self.device)
                if name == "bfloat16":
                    out = out.view(torch.bfloat16)
                outputs.append(out)
                continue
            out = torch.empty(shape, dtype=getattr(torch, name), device=self.device)
            self._check(self._lib.magiRuntimeCopyOutputOnStream(
                self._handle, i, out.data_ptr(), out.numel() * out.element_size(), stream))
            outputs.append(out)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def close(self):
        # Frees the runtime's buffers: tensors borrowed from it (outputs=
        # "borrow") must not be read after this.
        if getattr(self, "_handle", None):
            self._lib.magiRuntimeDestroy(self._handle)
            self._handle = None

    def __del__(self):
        self.close()


def load(artifact_dir, device=None, weights_from=None, outputs="copy",
         pad_to_compile_sizes=False):
    """Loads an artifact onto a GPU (the current CUDA device by default);
    the weights from the files it names, or from `weights_from`, another
    torch.export archive of the same model. `outputs`: "copy" (each call
    returns new tensors) or "borrow" (tensors over the runtime's own output
    buffers, no copy, overwritten by the next call); `pad_to_compile_sizes`:
    run other sizes as the next compile size; see Artifact."""
    return Artifact(artifact_dir, device, weights_from, outputs, pad_to_compile_sizes)


def compile(model, example_inputs, dynamic_shapes=None, artifact_dir=None, **options):
    """torch.export's the model (then run_decompositions(): Magi imports
    core ATen, the set the shared fixtures are exported in), compiles the
    archive, loads the artifact. Returns a callable over the model's tensor
    inputs (with the weights the export lifted bound from the archive). The
    artifact goes into `artifact_dir` (a temporary folder by default)."""
    import torch
    # Without no_grad, export records the training graph (autograd's view
    # of parameters), which Magi, an inference compiler, does not take.
    with torch.no_grad():
        exported = torch.export.export(model, tuple(example_inputs),
                                       dynamic_shapes=dynamic_shapes).run_decompositions()
    if artifact_dir is None:
        artifact_dir = tempfile.mkdtemp(prefix="magi-")
    archive = os.path.join(artifact_dir, "model.pt2")
    os.makedirs(artifact_dir, exist_ok=True)
    torch.export.save(exported, archive)
    compile_file(archive, os.path.join(artifact_dir, "artifact"), **options)
    return load(os.path.join(artifact_dir, "artifact"))


def backend(gm, example_inputs, **options):
    """The Dynamo backend: torch.compile(model, backend="magi"). Compiles the
    captured graph through Magi (torch.export of the FX graph, sizes Dynamo
    made symbolic kept dynamic) and runs it; when Magi cannot compile it,
    says why (a warning) and runs the graph as PyTorch would.

    The export and compile happen at the graph's first call, with its real
    inputs: exporting while Dynamo compiles (inside this function) left
    Dynamo's guards for symbolic sizes failing on the very inputs they were
    made for ("Guard failed on the same frame it was created")."""
    import warnings
    try:
        captured, tensors, dynamic = _exportable(gm, example_inputs)
    except Exception as e:  # an input Magi cannot take
        warnings.warn("magi: running this graph with PyTorch, Magi cannot compile it: %s" % e)
        return gm.forward
    shapes = None if all(d is None for d in dynamic) else {"args": tuple(dynamic)}
    state = {}

    def call(*args):
        if "run" not in state:
            try:
                state["run"] = compile(captured, [args[i] for i in tensors],
                                       dynamic_shapes=shapes, **options)
            except Exception as e:  # Magi or torch.export refused the graph.
                warnings.warn("magi: running this graph with PyTorch, Magi cannot compile "
                              "it: %s" % e)
                state["run"] = None
        if state["run"] is None:
            return gm.forward(*args)
        result = state["run"](*[args[i] for i in tensors])
        return result if isinstance(result, tuple) else (result,)
    return call


def _exportable(gm, example_inputs):
    """A module over the tensor inputs of Dynamo's graph `gm` alone (the
    weights among them when Dynamo lifted them), for torch.export: a size
    input (a SymInt Dynamo made an input) is read from a tensor input's
    dimension of the same symbol, so that it stays symbolic; a plain int is
    a constant (Dynamo guards on it). Returns the module, the positions of
    the tensor inputs, and each one's dynamic dimensions (or None)."""
    import torch
    # The sizes Dynamo made symbolic are in its placeholders' fake values;
    # example_inputs may hold the real tensors, of concrete sizes.
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    symbolic = list(example_inputs)
    if len(placeholders) == len(example_inputs):
        symbolic = [p.meta.get("example_value", v) for p, v in zip(placeholders, example_inputs)]
    tensors = [i for i, t in enumerate(example_inputs) if isinstance(t, torch.Tensor)]
    sizes = {}
    for i, value in enumerate(symbolic):
        if i in tensors or (isinstance(value, int) and not isinstance(value, torch.SymInt)):
            continue
        if not isinstance(value, torch.SymInt):
            raise MagiError("graph input %d is a %s, not a tensor or a size" %
                            (i, type(value).__name__))
        source = next(((k, d) for k, j in enumerate(tensors)
                       for d, s in enumerate(getattr(symbolic[j], "shape", ()))
                       if isinstance(s, torch.SymInt) and s.node.expr == value.node.expr), None)
        if source is None:
            raise MagiError("graph input %d, the size %s, is no tensor input's dimension" %
                            (i, value))
        sizes[i] = source
    position = {j: k for k, j in enumerate(tensors)}

    class Captured(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.graph_module = gm

        def forward(self, *args):
            full = []
            for i, value in enumerate(example_inputs):
                if i in position:
                    full.append(args[position[i]])
                elif i in sizes:
                    k, d = sizes[i]
                    full.append(args[k].shape[d])
                else:
                    full.append(value)
            return self.graph_module(*full)

    dynamic = []
    for i in tensors:
        dims = {d: torch.export.Dim.AUTO for d, s in enumerate(getattr(symbolic[i], "shape", ()))
                if isinstance(s, torch.SymInt)}
        dynamic.append(dims or None)
    return Captured(), tensors, dynamic


def _register_backend():
    try:
        from torch._dynamo import register_backend
    except Exception:  # PyTorch absent: the rest of the package works.
        return
    try:
        register_backend(compiler_fn=backend, name="magi")
    except Exception:
        pass


_register_backend()
