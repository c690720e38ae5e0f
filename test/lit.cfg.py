# -*- Python -*-
# lit configuration for Magi's IR tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Magi"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.magi_obj_root, "test")

# Every FileCheck variable is scoped to its CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

config.substitutions.append(("%magi_src_root", config.magi_src_root))
# The shared fixtures (real torch.export archives with reference outputs) sit
# beside the repository, as on developer machines and in CI.
fixtures = os.path.join(os.path.dirname(config.magi_src_root), "shared", "fixtures", "torch-export")
config.substitutions.append(("%fixtures", fixtures))
if os.path.isdir(fixtures):
    config.available_features.add("fixtures")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tool_dirs = [config.magi_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["magi-opt", "magi-import", "magi-interp", "magi-cache"], tool_dirs)
