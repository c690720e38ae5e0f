# -*- Python -*-
# lit configuration for Magi's IR tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Magi"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "Inputs", "fuzz"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.magi_obj_root, "test")

# Every FileCheck variable is scoped to its CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

config.substitutions.append(("%magi_src_root", config.magi_src_root))
# The `magi` Python package of this build (build/python), and its C API
# libraries (build/lib).
config.substitutions.append(("%magi_python", "env PYTHONPATH=" + os.path.join(config.magi_obj_root, "python") + " %python"))
# A sanitizer build's libraries need the sanitizer runtime loaded first,
# which python3 is not built with: the package is tested in the plain build.
if "-fsanitize" not in config.magi_cxx_flags:
    config.available_features.add("python-package")
# Runs a command and checks its peak RSS: %peak_rss LIMIT_MIB command...
config.substitutions.append(("%peak_rss", "%python " + os.path.join(config.magi_src_root, "test", "Inputs", "peak-rss.py")))
# The shared fixtures (real torch.export archives with reference outputs) sit
# beside the repository, as on developer machines and in CI.
fixtures = os.path.join(os.path.dirname(config.magi_src_root), "shared", "fixtures", "torch-export")
config.substitutions.append(("%fixtures", fixtures))
if os.path.isdir(fixtures):
    config.available_features.add("fixtures")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.magi_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["magi-opt", "magi-import", "magi-interp", "magi-cache", "magi-compile"], tool_dirs)

# The lowering tests run lowered code with upstream tools (mlir-opt,
# mlir-runner and its runtime libraries) and check PTX with ptxas.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
runner_utils = os.path.join(llvm_lib_dir, "libmlir_runner_utils.so")
c_runner_utils = os.path.join(llvm_lib_dir, "libmlir_c_runner_utils.so")
config.substitutions.append(("%mlir_runner_utils", runner_utils))
config.substitutions.append(("%mlir_c_runner_utils", c_runner_utils))
if (os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-runner"))
        and os.path.exists(runner_utils) and os.path.exists(c_runner_utils)):
    config.available_features.add("mlir-runner")
ptxas = "/usr/local/cuda/bin/ptxas"
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.substitutions.append(("%cuda_path", os.path.dirname(os.path.dirname(ptxas))))

# Full-disk tests mount a small tmpfs in a private mount namespace (root, or
# a user namespace that allows it).
import subprocess
import tempfile
with tempfile.TemporaryDirectory() as probe:
    try:
        if subprocess.run(["unshare", "--mount", "sh", "-c",
                           "mount -t tmpfs -o size=4k tmpfs " + probe],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          timeout=10).returncode == 0:
            config.available_features.add("tmpfs-mount")
    except (OSError, subprocess.SubprocessError):
        pass
