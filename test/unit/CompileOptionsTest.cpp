//===- CompileOptionsTest.cpp - magi::CompileOptions by name and by flag --===//

#include "magi/Compile/CompileModel.h"
#include "magi/Target/GpuCompiler.h"
#include "llvm/Support/CommandLine.h"
#include "gtest/gtest.h"

#include <set>

using namespace magi;

namespace {

std::string set(CompileOptions &options, llvm::StringRef name, llvm::StringRef value) {
  llvm::Error e = setCompileOption(options, name, value);
  return e ? llvm::toString(std::move(e)) : "";
}

TEST(CompileOptionsTest, SetByNameReachesEveryField) {
  CompileOptions o;
  EXPECT_EQ(set(o, "input", "m.pt2"), "");
  EXPECT_EQ(set(o, "o", "out"), "");
  EXPECT_EQ(set(o, "compile-sizes", "1,16,512"), "");
  EXPECT_EQ(set(o, "no-cubin", ""), "");
  EXPECT_EQ(set(o, "no-library-gemm", "true"), "");
  EXPECT_EQ(set(o, "no-tiled-attention", "false"), "");
  EXPECT_EQ(set(o, "block-size", "512"), "");
  EXPECT_EQ(set(o, "splitting-ops", "magi.mm,magi.attention"), "");
  EXPECT_EQ(set(o, "cache-mode", "readonly"), "");
  EXPECT_EQ(set(o, "cache-max-size", "2G"), "");
  EXPECT_EQ(set(o, "target", "sm_80"), "");
  EXPECT_EQ(set(o, "attention-rows-per-warp", "32"), "");
  EXPECT_EQ(set(o, "attention-key-rows", "32"), "");
  EXPECT_EQ(set(o, "attention-query-in-shared", "true"), "");
  EXPECT_EQ(set(o, "attention-min-blocks-per-sm", "2"), "");
  EXPECT_EQ(set(o, "attention-key-splits", "8"), "");
  EXPECT_EQ(set(o, "kernel-pass-options", "magi-choose-kernel-config{one-wave=true}"), "");
  EXPECT_EQ(o.attentionKeySplits, 8);
  EXPECT_EQ(o.kernelPassOptions, "magi-choose-kernel-config{one-wave=true}");
  EXPECT_EQ(o.attentionRowsPerWarp, 32);
  EXPECT_EQ(o.attentionKeyRows, 32);
  EXPECT_TRUE(o.attentionQueryInShared);
  EXPECT_EQ(o.attentionMinBlocksPerSM, 2);
  EXPECT_EQ(o.inputPath, "m.pt2");
  EXPECT_EQ(o.outputDir, "out");
  EXPECT_EQ(o.compileSizes, (std::vector<int64_t>{1, 16, 512}));
  EXPECT_FALSE(o.emitCubin);
  EXPECT_FALSE(o.libraryGemm);
  EXPECT_TRUE(o.tiledAttention);
  EXPECT_EQ(o.blockSize, 512);
  EXPECT_EQ(o.splittingOps, (std::vector<std::string>{"magi.mm", "magi.attention"}));
  EXPECT_EQ(o.cacheMode, cache::CacheMode::ReadOnly);
  EXPECT_EQ(o.cacheMaxBytes, uint64_t(2) << 30);
  EXPECT_EQ(o.chip, "sm_80");
}

TEST(CompileOptionsTest, RefusesUnknownNamesAndMalformedValues) {
  CompileOptions o;
  EXPECT_EQ(set(o, "bogus", "1"), "unknown compile option 'bogus'");
  EXPECT_EQ(set(o, "block-size", "wide"), "option 'block-size' takes an integer, got 'wide'");
  EXPECT_EQ(set(o, "compile-sizes", "1,x"), "option 'compile-sizes' takes an integer, got 'x'");
  EXPECT_EQ(set(o, "no-cubin", "maybe"), "option 'no-cubin' takes true or false, got 'maybe'");
  EXPECT_EQ(set(o, "cache-mode", "sometimes"),
            "unknown --cache-mode 'sometimes' (readwrite, readonly, must-hit, off)");
  EXPECT_EQ(set(o, "cache-max-size", "lots"), "malformed --cache-max-size 'lots'");
  // Nothing was changed by the refusals.
  EXPECT_EQ(o.blockSize, 256);
  EXPECT_TRUE(o.compileSizes.empty());
  EXPECT_TRUE(o.emitCubin);
}

// The key text is the cache key's options factor: every option that changes
// the artifact changes it, the others do not.
TEST(CompileOptionsTest, KeyTextFollowsWhatChangesTheArtifact) {
  CompileOptions base;
  base.inputPath = "graph.mlir";
  base.outputDir = "out";
  std::string key = base.keyText();
  for (auto [name, value] :
       std::vector<std::pair<const char *, const char *>>{{"compile-sizes", "4"},
                                                          {"no-cubin", "true"},
                                                          {"no-merge-projections", "true"},
                                                          {"disable-fusions", "attention-layout"},
                                                          {"block-size", "128"},
                                                          {"reduction-block-size", "64"},
                                                          {"no-library-gemm", "true"},
                                                          {"no-tiled-attention", "true"},
                                                          {"attention-rows-per-warp", "16"},
                                                          {"attention-key-rows", "32"},
                                                          {"attention-query-in-shared", "true"},
                                                          {"attention-min-blocks-per-sm", "3"},
                                                          {"attention-key-splits", "8"},
                                                          {"kernel-pass-options", "magi-map-to-gpu{lean-row-groups=false}"},
                                                          {"splitting-ops", "magi.mm"},
                                                          {"pack-weights", "true"},
                                                          {"no-weights", "true"}}) {
    CompileOptions changed = base;
    ASSERT_EQ(set(changed, name, value), "");
    EXPECT_NE(changed.keyText(), key) << name;
  }
  for (auto [name, value] : std::vector<std::pair<const char *, const char *>>{
           {"cache-mode", "readonly"}, {"cache-dir", "/elsewhere"}, {"dump-dir", "d"}}) {
    CompileOptions same = base;
    ASSERT_EQ(set(same, name, value), "");
    EXPECT_EQ(same.keyText(), key) << name;
  }
}

// Every magi-compile flag that sets an option can be set by name too (the
// C API and Python reach all of them); the command line fills the struct.
TEST(CompileOptionsTest, CommandLineFlagsAreTheNamedOptions) {
  llvm::cl::OptionCategory category("compile options under test");
  CompileOptions options;
  CompileCommandLine commandLine(options, category);
  std::vector<std::string> names = compileOptionNames();
  std::set<std::string> known(names.begin(), names.end());
  // Flags of the tool only, not of the compile.
  std::set<std::string> toolOnly = {"quiet", "explain-cache"};
  size_t flags = 0;
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    if (!llvm::is_contained(option->Categories, &category))
      continue;
    ++flags;
    std::string name = entry.first.str();
    if (!toolOnly.count(name)) {
      EXPECT_TRUE(known.count(name)) << "--" << name << " cannot be set by name";
    }
  }
  EXPECT_EQ(flags + 1, names.size() + toolOnly.size()) << "the positional input is 'input'";

  const char *argv[] = {"magi-compile", "graph.mlir", "-o", "dir", "--compile-sizes=2,8",
                        "--no-cubin", "--cache-mode=off", "--target=sm_80"};
  ASSERT_TRUE(llvm::cl::ParseCommandLineOptions(8, argv, "", &llvm::nulls()));
  ASSERT_FALSE(bool(commandLine.finish()));
  EXPECT_EQ(options.inputPath, "graph.mlir");
  EXPECT_EQ(options.outputDir, "dir");
  EXPECT_EQ(options.compileSizes, (std::vector<int64_t>{2, 8}));
  EXPECT_FALSE(options.emitCubin);
  EXPECT_EQ(options.cacheMode, cache::CacheMode::Off);
  EXPECT_EQ(options.chip, "sm_80");
  EXPECT_EQ(options.blockSize, 256);
}

} // namespace

namespace {

std::string checkPassOptions(llvm::StringRef text, int64_t fewRowGemmRows = 16,
                             bool tiledAttention = true) {
  GpuTargetOptions target;
  target.fewRowGemmRows = fewRowGemmRows;
  target.tiledAttention = tiledAttention;
  target.kernelPassOptions = text.str();
  llvm::Error e = checkKernelPassOptions(target);
  return e ? llvm::toString(std::move(e)) : "";
}

TEST(CompileOptionsTest, KernelPassOptionsAreCheckedPassByPass) {
  EXPECT_EQ(checkPassOptions(""), "");
  EXPECT_EQ(checkPassOptions("  magi-choose-kernel-config{one-wave=true max-elements-per-thread=4}"
                             " magi-map-to-gpu{lean-row-groups=false} "),
            "");
  EXPECT_EQ(checkPassOptions("magi-tiled-attention-to-gpu{key-rows=32}"), "");
  EXPECT_EQ(checkPassOptions("cse{}"),
            "kernel pass options: 'cse' is not one of magi-few-row-matmul-to-gpu, "
            "magi-choose-kernel-config, magi-map-to-gpu, magi-tiled-attention-to-gpu");
  EXPECT_EQ(checkPassOptions("magi-map-to-gpu"),
            "kernel pass options: expected PASS{OPTIONS}, found 'magi-map-to-gpu'");
  EXPECT_EQ(checkPassOptions("magi-map-to-gpu{lean-row-groups=true"),
            "kernel pass options: no '}' closes 'magi-map-to-gpu{'");
  EXPECT_EQ(checkPassOptions("magi-few-row-matmul-to-gpu{warps=8}", /*fewRowGemmRows=*/0),
            "kernel pass options: 'magi-few-row-matmul-to-gpu' is not in the pipeline these "
            "options build (few-row-gemm-rows=0 leaves out the few-row products, no tiled "
            "attention the tiled attention)");
  EXPECT_EQ(checkPassOptions("magi-tiled-attention-to-gpu{key-rows=32}", 16,
                             /*tiledAttention=*/false),
            "kernel pass options: 'magi-tiled-attention-to-gpu' is not in the pipeline these "
            "options build (few-row-gemm-rows=0 leaves out the few-row products, no tiled "
            "attention the tiled attention)");
  EXPECT_EQ(checkPassOptions("magi-choose-kernel-config{block-size=many}").rfind(
                "kernel pass options of 'magi-choose-kernel-config': ", 0),
            0u);
}

} // namespace
