"""ctypes declarations of Magi's C API (include/magi-c/).

The libraries are looked up in $MAGI_LIBRARY_DIR, else in the `lib` folder
beside this package's parent (P/python/magi -> P/lib, in an install prefix
and in the build tree alike).
"""

import ctypes
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def library_dir():
    return os.environ.get("MAGI_LIBRARY_DIR") or os.path.normpath(
        os.path.join(_HERE, "..", "..", "lib"))


class MagiError(RuntimeError):
    """A failure Magi reported (the message says what and where)."""


_loaded = {}


def _load(name):
    if name in _loaded:
        return _loaded[name]
    path = os.path.join(library_dir(), "lib%s.so" % name)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise MagiError("cannot load %s: %s (set MAGI_LIBRARY_DIR to the folder "
                        "that holds it)" % (path, e)) from None
    c = ctypes
    lib.magiCApiVersion.restype = c.c_int
    lib.magiVersionString.restype = c.c_char_p
    lib.magiStringFree.argtypes = [c.c_void_p]
    if name == "MagiCCompile":
        lib.magiCompileOptionsCreate.restype = c.c_void_p
        lib.magiCompileOptionsDestroy.argtypes = [c.c_void_p]
        lib.magiCompileOptionsSet.argtypes = [c.c_void_p, c.c_char_p, c.c_char_p,
                                              c.POINTER(c.c_void_p)]
        lib.magiCompileOptionsSet.restype = c.c_int
        lib.magiCompileOptionNames.restype = c.c_void_p
        lib.magiCompile.argtypes = [c.c_void_p]
        lib.magiCompile.restype = c.c_void_p
        lib.magiCompileResultDestroy.argtypes = [c.c_void_p]
        for f, t in (("Succeeded", c.c_int), ("Error", c.c_char_p),
                     ("Diagnostics", c.c_char_p), ("NumPieces", c.c_size_t),
                     ("NumCachedPieces", c.c_size_t), ("Seconds", c.c_double)):
            fn = getattr(lib, "magiCompileResult" + f)
            fn.argtypes = [c.c_void_p]
            fn.restype = t
    else:
        lib.magiRuntimeLoad.argtypes = [c.c_char_p, c.c_int, c.c_char_p,
                                        c.POINTER(c.c_void_p)]
        lib.magiRuntimeLoad.restype = c.c_void_p
        lib.magiRuntimeDestroy.argtypes = [c.c_void_p]
        lib.magiRuntimeLastError.argtypes = [c.c_void_p]
        lib.magiRuntimeLastError.restype = c.c_char_p
        lib.magiRuntimeNumInputs.argtypes = [c.c_void_p]
        lib.magiRuntimeNumInputs.restype = c.c_size_t
        lib.magiRuntimeNumOutputs.argtypes = [c.c_void_p]
        lib.magiRuntimeNumOutputs.restype = c.c_size_t
        lib.magiRuntimeInputSignature.argtypes = [
            c.c_void_p, c.c_size_t, c.POINTER(c.c_int), c.POINTER(c.c_size_t)]
        lib.magiRuntimeSetInput.argtypes = [
            c.c_void_p, c.c_size_t, c.c_uint64, c.c_int, c.POINTER(c.c_int64),
            c.c_size_t]
        lib.magiRuntimeRun.argtypes = [c.c_void_p]
        lib.magiRuntimeOutput.argtypes = [
            c.c_void_p, c.c_size_t, c.POINTER(c.c_int), c.POINTER(c.c_size_t),
            c.POINTER(c.c_int64), c.c_size_t, c.POINTER(c.c_uint64)]
        lib.magiRuntimeCopyOutput.argtypes = [c.c_void_p, c.c_size_t, c.c_void_p,
                                              c.c_size_t, c.c_int]
        lib.magiRuntimeRunOnStream.argtypes = [c.c_void_p, c.c_uint64]
        lib.magiRuntimeCopyOutputOnStream.argtypes = [c.c_void_p, c.c_size_t, c.c_uint64,
                                                      c.c_size_t, c.c_uint64]
        if lib.magiCApiVersion() >= 3:
            lib.magiRuntimeSetPadToCompileSizes.argtypes = [c.c_void_p, c.c_int]
    if lib.magiCApiVersion() < 2:
        raise MagiError("%s has C API version %d; this package needs 2" %
                        (path, lib.magiCApiVersion()))
    _loaded[name] = lib
    return lib


def compile_library():
    return _load("MagiCCompile")


def runtime_library():
    return _load("MagiCRuntime")


def take_string(lib, pointer):
    """A string the C API returned for the caller to free."""
    if not pointer:
        return ""
    text = ctypes.cast(pointer, ctypes.c_char_p).value.decode()
    lib.magiStringFree(pointer)
    return text
