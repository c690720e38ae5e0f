//===- RuntimeTest.cpp - magi-run's device-independent library ------------===//
//
// JSON, expressions, fixture files, the output comparison, the manifest
// checks, input checking, and the graph executor: the last runs the
// self-test artifact (test/Runtime/selftest) on a host imitation of a GPU
// whose kernels are C++ copies of kernels.cu, and compares with the
// references that gen.py computed.
//
//===----------------------------------------------------------------------===//

#include "magi/Runtime/Executor.h"
#include "magi/Runtime/Expr.h"
#include "magi/Runtime/Json.h"
#include "magi/Runtime/Manifest.h"
#include "magi/Runtime/Profile.h"
#include "magi/Runtime/Tensor.h"

#include "gtest/gtest.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace magi::runtime;

namespace {

// Runs `f`, expects a RuntimeError whose message contains `fragment`.
template <typename F> void expectError(F f, const std::string &fragment) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing \"" << fragment << "\"";
  } catch (const RuntimeError &e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << fragment;
  }
}

//===--- JSON -------------------------------------------------------------===//

TEST(RuntimeJson, ParsesValues) {
  JsonValue v = parseJson(R"( {"a": [1, -2, 3.5, true, null, "x\u00e9\n"], "b": {}} )", "t");
  ASSERT_TRUE(v.isObject());
  const JsonValue *a = v.find("a");
  ASSERT_TRUE(a && a->isArray());
  ASSERT_EQ(a->items().size(), 6u);
  EXPECT_TRUE(a->items()[0].isInteger());
  EXPECT_EQ(a->items()[1].asInteger(), -2);
  EXPECT_FALSE(a->items()[2].isInteger());
  EXPECT_DOUBLE_EQ(a->items()[2].asDouble(), 3.5);
  EXPECT_TRUE(a->items()[3].asBool());
  EXPECT_TRUE(a->items()[4].isNull());
  EXPECT_EQ(a->items()[5].asString(), "x\xc3\xa9\n");
  EXPECT_TRUE(v.find("b")->isObject());
  EXPECT_EQ(v.find("c"), nullptr);
  EXPECT_EQ(parseJson("9223372036854775807", "t").asInteger(), INT64_MAX);
  EXPECT_EQ(parseJson("-9223372036854775808", "t").asInteger(), INT64_MIN);
}

TEST(RuntimeJson, RefusesBadInput) {
  expectError([] { parseJson("{\"a\": 1,}", "f.json"); }, "f.json:1:9: invalid JSON");
  expectError([] { parseJson("{\"a\": 1, \"a\": 2}", "f"); }, "duplicate key \"a\"");
  expectError([] { parseJson("[1, 2] x", "f"); }, "unexpected text after");
  expectError([] { parseJson("01", "f"); }, "leading zeros");
  expectError([] { parseJson("9223372036854775808", "f"); }, "does not fit in 64 bits");
  expectError([] { parseJson("\"abc", "f"); }, "unterminated string");
  expectError([] { parseJson("[1,\n 2,\n tru]", "f"); }, "f:3:2");
  expectError([] { parseJson("", "f"); }, "unexpected end of input");
  expectError([] { parseJson("\"\\q\"", "f"); }, "unknown escape");
  expectError([] { parseJson(std::string(1000, '['), "f"); }, "nested too deeply");
}

//===--- Expressions ------------------------------------------------------===//

int64_t eval(const std::string &text, std::map<std::string, int64_t> names = {}) {
  return Expr::parse(text).evaluate(
      [&](const std::string &name) -> std::optional<int64_t> {
        auto it = names.find(name);
        if (it == names.end())
          return std::nullopt;
        return it->second;
      },
      "test");
}

TEST(RuntimeExpr, Arithmetic) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 4 - 3"), 3);
  EXPECT_EQ(eval("--5"), 5);
  EXPECT_EQ(eval("-2 * -3"), 6);
  EXPECT_EQ(eval("arg0.d1 * 128 + v0", {{"arg0.d1", 3}, {"v0", 1}}), 385);
  EXPECT_EQ(eval("s70 floordiv 4 * 4", {{"s70", 7}}), 4);
  EXPECT_EQ(eval("min(3, 1, 2) + max(4, 9)"), 10);
  EXPECT_EQ(eval("select(eq(1, 1), 10, 20) + select(0, 1, 2)"), 12);
  EXPECT_EQ(eval("ne(1,2) + lt(1,2) + le(2,2) + gt(1,2) + ge(1,2)"), 3);
}

TEST(RuntimeExpr, PythonDivisionSemantics) {
  EXPECT_EQ(eval("7 floordiv 2"), 3);
  EXPECT_EQ(eval("-7 floordiv 2"), -4);
  EXPECT_EQ(eval("7 floordiv -2"), -4);
  EXPECT_EQ(eval("-7 floordiv -2"), 3);
  EXPECT_EQ(eval("7 ceildiv 2"), 4);
  EXPECT_EQ(eval("-7 ceildiv 2"), -3);
  EXPECT_EQ(eval("7 ceildiv -2"), -3);
  EXPECT_EQ(eval("6 ceildiv 2"), 3);
  EXPECT_EQ(eval("7 mod 3"), 1);
  EXPECT_EQ(eval("-7 mod 3"), 2);
  EXPECT_EQ(eval("7 mod -3"), -2);
  EXPECT_EQ(eval("-7 mod -3"), -1);
  EXPECT_EQ(eval("6 mod 3"), 0);
}

TEST(RuntimeExpr, Errors) {
  expectError([] { eval("1 floordiv 0"); }, "division by zero");
  expectError([] { eval("1 mod (2 - 2)"); }, "division by zero");
  expectError([] { eval("1 ceildiv 0"); }, "division by zero");
  expectError([] { eval("s1 + 1"); }, "unknown name 's1'");
  expectError([] { eval("9223372036854775807 + 1"); }, "overflow");
  expectError([] { eval("3037000500 * 3037000500"); }, "overflow");
  expectError([] { Expr::parse("1 +"); }, "bad expression");
  expectError([] { Expr::parse("(1"); }, "expected ')'");
  expectError([] { Expr::parse("foo(1)"); }, "unknown function 'foo'");
  expectError([] { Expr::parse("select(1, 2)"); }, "takes 3 argument(s)");
  expectError([] { Expr::parse("1 / 2"); }, "unexpected '/ 2'");
  expectError([] { Expr::parse("floordiv 2"); }, "needs a left operand");
  expectError([] { Expr::fromJson(JsonValue::makeDouble(1.5), "here"); }, "here: expected an integer");
}

// Evaluating, listing names and freeing an expression recurse over it, so
// its nesting and size are bounded when parsed.
TEST(RuntimeExpr, Limits) {
  auto nested = [](int depth) {
    return std::string(size_t(depth), '(') + "1" + std::string(size_t(depth), ')');
  };
  EXPECT_EQ(eval(nested(100)), 1);
  expectError([&] { Expr::parse(nested(200)); }, "nested more than 128 deep");
  expectError([] { Expr::parse(std::string(200, '-') + "1"); }, "nested more than 128 deep");
  expectError([] { Expr::parse(std::string(100000, '(')); }, "nested more than 128 deep");
  auto sum = [](int terms) {
    std::string text = "1";
    for (int i = 1; i < terms; ++i)
      text += " + 1";
    return text;
  };
  EXPECT_EQ(eval(sum(1000)), 1000);
  expectError([&] { Expr::parse(sum(100000)); }, "more than 4096 operations");
}

TEST(RuntimeExpr, Names) {
  Expr e = Expr::parse("arg0.d1 * v2 + min(s0, 4)");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"arg0.d1", "v2", "s0"}));
  EXPECT_FALSE(e.isConstant());
  EXPECT_TRUE(Expr::parse("2 * (3 + 4)").isConstant());
}

//===--- Tensors and comparison -------------------------------------------===//

HostTensor makeF32(std::vector<int64_t> shape, std::vector<float> values) {
  HostTensor t;
  t.dtype = Dtype::F32;
  t.shape = shape;
  t.bytes.resize(values.size() * 4);
  if (!values.empty())
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

HostTensor makeI64(std::vector<int64_t> shape, std::vector<int64_t> values) {
  HostTensor t;
  t.dtype = Dtype::I64;
  t.shape = shape;
  t.bytes.resize(values.size() * 8);
  if (!values.empty())
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

// A fresh directory under $TMPDIR (or /tmp), removed with its contents
// when the test ends (they once piled up, hundreds of them).
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/magi-runtime-test-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!mkdtemp(buffer.data()))
      throw std::runtime_error("cannot create a directory like " + pattern);
    path_ = buffer.data();
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(RuntimeTensor, Dtypes) {
  EXPECT_EQ(dtypeFromFixtureName("bfloat16"), Dtype::BF16);
  EXPECT_EQ(dtypeFromFixtureName("bool"), Dtype::I1);
  EXPECT_EQ(dtypeFromManifestName("i64"), Dtype::I64);
  EXPECT_FALSE(dtypeFromManifestName("int64"));
  EXPECT_EQ(elementSize(Dtype::BF16), 2);
  EXPECT_FLOAT_EQ(bfloat16ToFloat(0x3F80), 1.0f);
  EXPECT_FLOAT_EQ(bfloat16ToFloat(0xC040), -3.0f);
  EXPECT_FLOAT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_FLOAT_EQ(halfToFloat(0xC500), -5.0f);
  EXPECT_FLOAT_EQ(halfToFloat(0x0001), 5.9604645e-08f);
}

TEST(RuntimeTensor, RawFilesRoundTrip) {
  TempDir temp;
  std::string dir = temp.path();
  HostTensor t = makeI64({1, 3}, {5, -6, 7});
  writeRawTensor(t, dir + "/t.bin", dir + "/t.json");
  HostTensor back = readTensorFile(dir + "/t.json");
  EXPECT_EQ(back.dtype, Dtype::I64);
  EXPECT_EQ(back.shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(back.getInt(1), -6);

  writeFile(dir + "/bad.json", R"({"shape": [2, 2], "dtype": "float32"})");
  writeFile(dir + "/bad.bin", std::string(12, '\0'));
  expectError([&] { readTensorFile(dir + "/bad.bin"); }, "holds 12 bytes, but float32 [2, 2]");
  writeFile(dir + "/bad.json", R"({"shape": [2], "dtype": "complex64"})");
  expectError([&] { readTensorFile(dir + "/bad.bin"); }, "unknown dtype \"complex64\"");
  writeFile(dir + "/bad.json", R"({"shape": [2], "dtype": "int64", "extra": 1})");
  expectError([&] { readTensorFile(dir + "/bad.bin"); }, "unknown field \"extra\"");
  expectError([&] { readTensorFile(dir + "/missing.bin"); }, "cannot open");
  expectError([&] { readTensorFile(dir + "/x.npy"); }, "neither a .bin nor a .json");
}

TEST(RuntimeTensor, CompareOutput) {
  std::ostringstream os;
  EXPECT_TRUE(compareOutput(0, makeF32({2}, {3, 4}), makeF32({2}, {3, 4}), std::nullopt, os));
  EXPECT_EQ(os.str(), "out0: rel_err=0.000e+00 OK\n");
  os.str("");
  // |(0, 0.5)| / |(3, 4)| = 0.1
  EXPECT_FALSE(compareOutput(1, makeF32({2}, {3, 4.5}), makeF32({2}, {3, 4}), std::nullopt, os));
  EXPECT_EQ(os.str(), "out1: rel_err=1.000e-01 FAIL\n");
  os.str("");
  EXPECT_TRUE(compareOutput(1, makeF32({2}, {3, 4.5}), makeF32({2}, {3, 4}), 0.2, os));
  EXPECT_EQ(os.str(), "out1: rel_err=1.000e-01 OK\n");
  os.str("");
  EXPECT_FALSE(compareOutput(2, makeI64({2}, {1, 2}), makeI64({2}, {1, 3}), 10.0, os));
  EXPECT_EQ(os.str(), "out2: rel_err=3.162e-01 FAIL (integer outputs must match exactly)\n");
  os.str("");
  EXPECT_FALSE(compareOutput(0, makeF32({1, 2}, {3, 4}), makeF32({2}, {3, 4}), std::nullopt, os));
  EXPECT_EQ(os.str(), "out0: rel_err=inf FAIL (shape [1, 2], reference [2])\n");
  os.str("");
  // A NaN (an unwritten, poisoned output) always fails.
  EXPECT_FALSE(compareOutput(0, makeF32({1}, {NAN}), makeF32({1}, {1}), 1.0, os));
  os.str("");
  EXPECT_FALSE(compareOutput(0, makeF32({2}, {1, 2}), makeI64({2}, {1, 2}), std::nullopt, os));
  EXPECT_EQ(os.str(), "out0: rel_err=0.000e+00 FAIL (dtype float32, reference int64)\n");
  os.str("");
  HostTensor bf = makeF32({1}, {0});
  bf.dtype = Dtype::BF16;
  bf.bytes = {0x80, 0x3F}; // 1.0
  HostTensor bfRef = bf;
  bfRef.bytes = {0x82, 0x3F}; // 1.015625
  EXPECT_TRUE(compareOutput(0, bf, bfRef, std::nullopt, os)); // 1.5e-2 < 3e-2
}

//===--- Manifest ---------------------------------------------------------===//

std::string selftestDir() { return std::string(MAGI_SOURCE_DIR) + "/test/Runtime/selftest"; }

std::string selftestManifest() {
  return readFileBytes(selftestDir() + "/artifact/manifest.json");
}

// The self-test manifest with `from` replaced by `to` (which must occur).
std::string edited(const std::string &from, const std::string &to) {
  std::string text = selftestManifest();
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "not in the manifest: " << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

TEST(RuntimeManifest, LoadsTheSelfTest) {
  Manifest m = loadManifest(selftestDir() + "/artifact");
  EXPECT_EQ(m.version, 2);
  EXPECT_EQ(m.targetChip, "sm_90");
  ASSERT_EQ(m.weightFiles.size(), 1u);
  EXPECT_EQ(m.weightFiles[0].path, "weights.bin");
  EXPECT_EQ(m.weightFiles[0].bytes, 272);
  ASSERT_EQ(m.graph.inputs.size(), 3u);
  // Packed (--pack-weights): a range of weights.bin, stored, no entry.
  ASSERT_TRUE(m.graph.inputs[1].weight.has_value());
  const WeightRef &bias = *m.graph.inputs[1].weight;
  EXPECT_EQ(bias.file, 0);
  EXPECT_EQ(bias.entry, "");
  EXPECT_EQ(bias.method, ZipMethod::Stored);
  EXPECT_EQ(bias.offset, 256);
  EXPECT_EQ(bias.storedBytes, 16);
  EXPECT_EQ(bias.bytes, 16);
  EXPECT_EQ(bias.storageOffset, 0);
  EXPECT_EQ(bias.strides, (std::vector<int64_t>{1}));
  EXPECT_EQ(m.graph.inputs[0].weight->strides, (std::vector<int64_t>{8, 1}));
  EXPECT_FALSE(m.graph.inputs[2].weight.has_value());
  ASSERT_EQ(m.pieces.size(), 2u);
  EXPECT_EQ(m.pieces[0].variants.size(), 2u);
  EXPECT_EQ(m.pieces[0].variants[0].symbols.at("s0"), 3);
  EXPECT_FALSE(m.pieces[1].variants[0].cubin.has_value());
  EXPECT_TRUE(m.pieces[1].variants[0].plan[1].bias.has_value());
}

// One schema for both sides: what printManifest writes, parseManifest reads
// back to the same manifest (printing it again gives the same bytes), and
// every field survives.
TEST(RuntimeManifest, PrintsWhatItReads) {
  Manifest m = loadManifest(selftestDir() + "/artifact");
  std::string text = printManifest(m);
  Manifest again = parseManifest(text, "printed");
  EXPECT_EQ(printManifest(again), text);
  EXPECT_EQ(again.producer.describe(), m.producer.describe());
  EXPECT_EQ(again.targetFeatures, m.targetFeatures);
  EXPECT_EQ(again.sourceFile, m.sourceFile);
  ASSERT_TRUE(again.graph.inputs[1].weight.has_value());
  EXPECT_EQ(again.graph.inputs[1].weight->offset, 256);
  EXPECT_EQ(again.graph.inputs[1].weight->crc32, m.graph.inputs[1].weight->crc32);
  EXPECT_EQ(again.weightFiles[0].path, "weights.bin");
  EXPECT_TRUE(again.pieces[1].variants[0].plan[1].bias.has_value());
  EXPECT_EQ(again.pieces[0].variants[0].symbols.at("s0"), 3);
  // A programmatic launch is written only when it is one, and read back.
  EXPECT_EQ(text.find("programmatic"), std::string::npos);
  Manifest early = m;
  early.version = kArtifactVersion;
  early.pieces[0].variants[0].plan[1].programmatic = true;
  ASSERT_EQ(early.pieces[0].variants[0].plan[1].kind, PlanOp::Kind::Launch);
  Manifest earlyAgain = parseManifest(printManifest(early), "printed");
  EXPECT_TRUE(earlyAgain.pieces[0].variants[0].plan[1].programmatic);
  EXPECT_FALSE(earlyAgain.pieces[0].variants[1].plan[1].programmatic);
  // Members print sorted, two spaces deep, with a final newline.
  EXPECT_EQ(text.substr(0, 30), "{\n  \"format\": \"magi-artifact\",");
  EXPECT_EQ(text.back(), '\n');

  // A variant body alone (the compile cache's plan.json) reads back against
  // its piece's signature, and is refused against another.
  const Variant &variant = m.pieces[1].variants[0];
  std::string body = printVariantBody(variant);
  EXPECT_EQ(printVariantBody(parseVariantBody(body, "plan.json", m.pieces[1])), body);
  expectError([&] { parseVariantBody(body, "plan.json", m.pieces[0]); }, "plan.json: ");
  Variant out;
  std::string error;
  EXPECT_FALSE(tryParseVariantBody("{", "plan.json", m.pieces[1], out, error));
  EXPECT_NE(error.find("plan.json:1:2: invalid JSON"), std::string::npos) << error;
}

TEST(RuntimeManifest, TargetRunsOnItsChipOnly) {
  EXPECT_TRUE(targetRunsOn("sm_90", "sm_90"));
  EXPECT_TRUE(targetRunsOn("sm_90a", "sm_90")); // wgmma: Hopper only
  EXPECT_FALSE(targetRunsOn("sm_90", "sm_100"));
  EXPECT_FALSE(targetRunsOn("sm_90a", "sm_100"));
  EXPECT_FALSE(targetRunsOn("sm_100", "sm_90"));
}

TEST(RuntimeJson, PrintsSortedAndEscaped) {
  JsonValue v = JsonValue::makeObject(
      {{"b", JsonValue::makeArray({JsonValue::makeInteger(-3), JsonValue::makeDouble(0.1)})},
       {"a", JsonValue::makeString("q\"\\\n\x01")},
       {"c", JsonValue::makeObject({})}});
  EXPECT_EQ(printJson(v), "{\"a\":\"q\\\"\\\\\\n\\u0001\",\"b\":[-3,0.10000000000000001],\"c\":{}}");
  EXPECT_EQ(printJson(v, 2), "{\n  \"a\": \"q\\\"\\\\\\n\\u0001\",\n  \"b\": [\n    -3,\n"
                             "    0.10000000000000001\n  ],\n  \"c\": {}\n}");
  EXPECT_EQ(printJson(parseJson(printJson(v), "x")), printJson(v));
}

TEST(RuntimeManifest, RefusesBadManifests) {
  auto refuse = [](const std::string &text, const std::string &fragment) {
    expectError([&] { parseManifest(text, "manifest.json"); }, fragment);
  };
  // The self-test manifest (version 2) with `from` replaced by `to`, at
  // format version `version`.
  auto editedAt = [](int version, const std::string &from, const std::string &to) {
    std::string text = edited(from, to);
    text.replace(text.find("\"version\": 2"), 12, "\"version\": " + std::to_string(version));
    return text;
  };
  refuse(edited("\"version\": 2", "\"version\": 1"),
         "manifest.json: version: this magi-run reads artifact format versions 2 to 14, not 1");
  // Programmatic launches (format 7), a boolean.
  const std::string launch = "\"block\": [64, 1, 1], \"shared_bytes\": 0,";
  refuse(edited(launch, launch + " \"programmatic\": true,"),
         ".programmatic: programmatic launches need format version 7");
  refuse(editedAt(7, launch, launch + " \"programmatic\": 1,"),
         ".programmatic: expected true or false");
  const std::string symbols = "\"symbols\": [{\"name\": \"s0\", \"min\": 1, \"max\": 64, \"input\": 2, \"dim\": 0}],";
  refuse(edited(symbols, symbols + " \"checks\": [{\"expr\": \"eq(s0 mod 2, 0)\", \"message\": \"even\"}],"),
         "graph.checks: checks need format version 6");
  refuse(editedAt(6, symbols, symbols + " \"checks\": [{\"expr\": \"eq(s9, 0)\", \"message\": \"m\"}],"),
         "graph.checks[0].expr: 's9' is not a symbol of the graph");
  refuse(edited("\"magi-artifact\"", "\"other\""), "format: expected \"magi-artifact\"");
  refuse(edited("\"weights\": {\"files\": [{\"path\": \"weights.bin\", \"bytes\": 272}]}",
                "\"weights\": {\"files\": [{\"path\": \"weights.bin\"}]}"),
         "weights.files[0]: missing field \"bytes\"");
  refuse(edited("\"weights\": {\"files\": [{\"path\": \"weights.bin\", \"bytes\": 272}]}",
                "\"weights\": {\"file\": \"weights.bin\", \"bytes\": 272}"),
         "weights: unknown field");
  refuse(edited("\"dtype\": \"f32\", \"shape\": [4, 8]", "\"dtype\": \"float\", \"shape\": [4, 8]"),
         "graph.inputs[0].dtype: unknown dtype \"float\"");
  // The bias's stored bytes [256, 272) of weights.bin (272 bytes).
  refuse(edited("\"offset\": 256, \"stored_bytes\": 16, \"bytes\": 16",
                "\"offset\": 260, \"stored_bytes\": 16, \"bytes\": 16"),
         "graph.inputs[1].weight: stored bytes [260, +16) lie outside weights.bin (272 bytes)");
  refuse(edited("\"offset\": 256, \"stored_bytes\": 16, \"bytes\": 16",
                "\"offset\": 256, \"stored_bytes\": 12, \"bytes\": 12"),
         "graph.inputs[1].weight: the view of f32 [4] reaches byte 16 of storage that holds 12");
  refuse(edited("\"offset\": 256, \"stored_bytes\": 16, \"bytes\": 16",
                "\"offset\": 256, \"stored_bytes\": 16, \"bytes\": 20"),
         "graph.inputs[1].weight: a stored weight");
  refuse(edited("\"method\": \"stored\", \"offset\": 256", "\"method\": \"bzip2\", \"offset\": 256"),
         "graph.inputs[1].weight.method: expected \"stored\" or \"deflate\", got \"bzip2\"");
  refuse(edited("\"storage_offset\": 0, \"strides\": [8, 1]", "\"storage_offset\": 0, \"strides\": [1]"),
         "graph.inputs[0].weight: the view of f32 [4, 8] has 1 strides for rank 2");
  refuse(edited("\"storage_offset\": 0, \"strides\": [8, 1]", "\"storage_offset\": 1, \"strides\": [8, 1]"),
         "graph.inputs[0].weight: the view of f32 [4, 8] reaches byte 132 of storage that holds 128");
  refuse(edited("\"weight\": {\"file\": 0, \"method\": \"stored\", \"offset\": 256",
                "\"weight\": {\"file\": 1, \"method\": \"stored\", \"offset\": 256"),
         "graph.inputs[1].weight.file: weight file 1 does not exist");
  refuse(edited("{\"piece\": 0, \"args\"", "{\"piece\": 5, \"args\""),
         "graph.steps[0].piece: piece 5 does not exist");
  refuse(edited("{\"step\": 0, \"result\": 1}]", "{\"step\": 1, \"result\": 1}]"),
         "graph.steps[1].args[3].step: step 1 has not run yet");
  refuse(edited("{\"step\": 0, \"result\": 1}]", "{\"input\": 2}]"),
         "graph.steps[1].args[3]: argument 3 of piece 1 is an index, but this is a rank-2 f32 tensor");
  refuse(edited("{\"symbol\": \"s0\"}", "{\"symbol\": \"s9\"}"),
         "graph.steps[0].args[1].symbol: \"s9\" is not a graph symbol");
  refuse(edited("\"shape\": [\"s0\", 8]", "\"shape\": [\"s1\", 8]"),
         "graph.inputs[2].shape[0]: \"s1\" uses 's1', which is not a graph symbol");
  refuse(edited("\"values\": [\"arg0.d0\", \"arg1.d0\"]", "\"values\": [\"arg0.d2\", \"arg1.d0\"]"),
         "pieces[1].variants[0].values[0]: \"arg0.d2\" uses 'arg0.d2': argument 0 has rank 2");
  refuse(edited("\"values\": [\"arg0.d0\", \"arg1.d0\"]", "\"values\": [\"v1\", \"arg1.d0\"]"),
         "v1 is not defined before this point");
  refuse(edited("{\"i64\": \"arg3\"}", "{\"i64\": \"arg0\"}"),
         "argument 0 is a tensor (use argN.dD for a size)");
  refuse(edited("{\"op\": \"alloc\", \"buffer\": \"b0\", \"bytes\": \"v0 * v1 * 4\"},", ""),
         "pieces[1].variants[0].plan[0].c.base: buffer \"b0\" is not allocated before this point");
  refuse(edited("\"kernel\": \"selftest_add_index\"", "\"kernel\": \"nope\""),
         "\"nope\" is not in the variant's kernels");
  refuse(edited("\"shared_bytes\": 0,\n             \"args\": [\n               {\"memref\": {\"base\": \"b0\", \"offset\": 0, \"sizes\": [\"v0\"",
                "\"args\": [\n               {\"memref\": {\"base\": \"b0\", \"offset\": 0, \"sizes\": [\"v0\""),
         "missing field \"shared_bytes\"");
  refuse(edited("\"op\": \"gemm\"", "\"op\": \"gemm\", \"alpha\": 2"), "unknown field \"alpha\"");
  refuse(edited("\"bias\": {\"base\": \"arg2\", \"offset\": 0, \"sizes\": [\"v1\"], \"strides\": [1]}",
                "\"bias\": {\"base\": \"arg2\", \"offset\": 0, \"sizes\": [\"v1\", 1], \"strides\": [1, 1]}"),
         "the bias has rank 1");
  refuse(edited("\"symbols\": {\"s0\": 3}", "\"symbols\": {\"s7\": 3}"), "\"s7\" is not a graph symbol");
  refuse(edited("{\"i32\": \"arg0.d0 mod 4\"}", "{\"i16\": 1}"), "unknown kernel argument kind \"i16\"");
  refuse(edited("\"grid\": [\"v1\", 1, 1]", "\"grid\": [\"v1\", 1]"), "expected 3 entries");
  refuse(edited("{\"index\": \"v2\"}", "{\"index\": \"v2 floordiv\"}"), "bad expression");
  refuse(edited("\"kind\": \"compute\", \"graph_index\": 0,\n      \"cuda_graph\": true",
                "\"kind\": \"splitting\", \"graph_index\": 0,\n      \"cuda_graph\": true"),
         "pieces[0].graph_index: a splitting piece has no graph index (null)");
  refuse(edited("\"index\": 1, \"name\"", "\"index\": 0, \"name\""),
         "pieces[1].index: is 0, but pieces must be listed in index order");
}

//===--- Inputs -----------------------------------------------------------===//

TEST(RuntimeInputs, BindsAndChecks) {
  Manifest m = loadManifest(selftestDir() + "/artifact");
  std::vector<float> data(5 * 8, 1.0f);
  std::map<std::string, int64_t> symbols = bindInputs(m.graph, {makeF32({5, 8}, data)});
  EXPECT_EQ(symbols.at("s0"), 5);

  expectError([&] { bindInputs(m.graph, std::vector<HostTensor>{}); }, "the graph takes 1 user input(s), but 0 were given");
  expectError([&] { bindInputs(m.graph, {makeI64({5, 8}, std::vector<int64_t>(40))}); },
              "user input 0 ('x') must be f32 (float32), but int64 was given");
  expectError([&] { bindInputs(m.graph, {makeF32({40}, data)}); },
              "user input 0 ('x') must have rank 2, but [40] was given");
  expectError([&] { bindInputs(m.graph, {makeF32({5, 4}, std::vector<float>(20))}); },
              "user input 0 ('x') must have shape [s0 = 5, 8], but [5, 4] was given");
  expectError([&] { bindInputs(m.graph, {makeF32({65, 8}, std::vector<float>(65 * 8))}); },
              "size 65 of dimension 0 (symbol s0) is outside [1, 64]");
  expectError([&] { bindInputs(m.graph, {makeF32({0, 8}, {})}); }, "outside [1, 64]");
}

// torch.export's runtime assertions (format 6's graph.checks) are tested
// after the sizes, before anything runs, naming the symbols' values.
TEST(RuntimeInputs, TestsTheGraphsChecks) {
  const std::string symbols =
      "\"symbols\": [{\"name\": \"s0\", \"min\": 1, \"max\": 64, \"input\": 2, \"dim\": 0}],";
  std::string text = edited(symbols, symbols + " \"checks\": [{\"expr\": \"eq(s0 mod 5, 0)\", "
                                               "\"message\": \"a multiple of five\"}],");
  text.replace(text.find("\"version\": 2"), 12, "\"version\": 6");
  Manifest m = parseManifest(text, "manifest.json");
  ASSERT_EQ(m.graph.checks.size(), 1u);
  EXPECT_EQ(parseManifest(printManifest(m), "printed").graph.checks[0].expr.text(),
            "eq(s0 mod 5, 0)");
  std::vector<float> data(10 * 8, 1.0f);
  EXPECT_EQ(bindInputs(m.graph, {makeF32({10, 8}, data)}).at("s0"), 10);
  expectError([&] { bindInputs(m.graph, {makeF32({6, 8}, std::vector<float>(48))}); },
              "runtime assertion failed: a multiple of five (eq(s0 mod 5, 0) with s0 = 6)");
}

//===--- The executor on a host device ------------------------------------===//

// Host stand-ins for the 16-bit float types (round to nearest even;
// normal numbers and zero, which is all the tests produce).
uint16_t floatToBfloat16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return uint16_t((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

uint16_t floatToHalf(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  int32_t exponent = int32_t((bits >> 23) & 0xFF) - 127 + 15;
  if (exponent <= 0)
    return sign;
  uint32_t mantissa = bits & 0x7FFFFF;
  uint32_t half = (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return uint16_t(sign | half);
}

float loadFloat(DevicePtr ptr, Dtype dtype) {
  uint16_t bits;
  switch (dtype) {
  case Dtype::F32: {
    float v;
    std::memcpy(&v, reinterpret_cast<const void *>(ptr), 4);
    return v;
  }
  case Dtype::BF16:
    std::memcpy(&bits, reinterpret_cast<const void *>(ptr), 2);
    return bfloat16ToFloat(bits);
  case Dtype::F16:
    std::memcpy(&bits, reinterpret_cast<const void *>(ptr), 2);
    return halfToFloat(bits);
  default:
    ADD_FAILURE() << "not a gemm dtype";
    return 0;
  }
}

void storeFloat(DevicePtr ptr, Dtype dtype, float v) {
  uint16_t bits = dtype == Dtype::BF16 ? floatToBfloat16(v) : floatToHalf(v);
  if (dtype == Dtype::F32)
    std::memcpy(reinterpret_cast<void *>(ptr), &v, 4);
  else
    std::memcpy(reinterpret_cast<void *>(ptr), &bits, 2);
}

// A "GPU" in host memory: pointers are host addresses, kernels are C++
// copies of test/Runtime/selftest/kernels.cu, gemm is a triple loop. A
// CUDA graph is the list of launches and gemms recorded while capturing.
class HostDevice : public Device {
public:
  ~HostDevice() override {
    for (auto &entry : allocations_)
      std::free(reinterpret_cast<void *>(entry.first - DevicePtr(misalignment)));
  }
  DevicePtr allocate(int64_t bytes) override {
    EXPECT_FALSE(capturing_) << "an allocation while capturing";
    size_t rounded = (size_t(bytes + misalignment) + 255) / 256 * 256;
    void *p = std::aligned_alloc(256, rounded);
    std::memset(p, 0xFF, rounded);
    DevicePtr ptr = DevicePtr(p) + DevicePtr(misalignment);
    allocations_[ptr] = bytes;
    ++numAllocations;
    lastAllocation = ptr;
    return ptr;
  }
  void release(DevicePtr ptr) override {
    EXPECT_FALSE(capturing_) << "a release while capturing";
    ASSERT_TRUE(allocations_.count(ptr));
    allocations_.erase(ptr);
    std::free(reinterpret_cast<void *>(ptr - DevicePtr(misalignment)));
  }
  // Bytes past 256-byte alignment every allocation starts at (a device
  // that breaks the alignment kernels assume).
  int64_t misalignment = 0;
  void upload(DevicePtr dst, const void *src, int64_t bytes) override {
    checkRange(dst, bytes);
    std::memcpy(reinterpret_cast<void *>(dst), src, size_t(bytes));
  }
  // Chunks of an odd size, so that a streamed storage's CRC-32 combines
  // pieces of odd lengths.
  void uploadFilled(DevicePtr dst, int64_t bytes, const ChunkFiller &fill) override {
    constexpr int64_t kChunkBytes = (int64_t(3) << 20) + 4097;
    std::vector<unsigned char> host(static_cast<size_t>(kChunkBytes));
    for (int64_t done = 0; done < bytes; done += kChunkBytes) {
      int64_t chunk = std::min(kChunkBytes, bytes - done);
      fill(host.data(), done, chunk);
      upload(dst + DevicePtr(done), host.data(), chunk);
      ++numFilledChunks;
    }
  }
  void download(void *dst, DevicePtr src, int64_t bytes) override {
    checkRange(src, bytes);
    std::memcpy(dst, reinterpret_cast<const void *>(src), size_t(bytes));
  }
  void copy(DevicePtr dst, DevicePtr src, int64_t bytes) override {
    checkRange(dst, bytes);
    checkRange(src, bytes);
    std::memmove(reinterpret_cast<void *>(dst), reinterpret_cast<const void *>(src),
                 size_t(bytes));
    ++numCopies;
  }
  int numCopies = 0;
  int loadModule(const std::string &ptxPath, const std::optional<std::string> &cubinPath) override {
    readFileBytes(ptxPath); // must exist
    if (cubinPath)
      readFileBytes(*cubinPath);
    modules.push_back(ptxPath);
    return int(modules.size() - 1);
  }
  void launch(int, const LaunchCall &call) override {
    if (failLaunchWhileCapturing && capturing_)
      throw RuntimeError("launch failed while capturing");
    if (capturing_)
      recording_.push_back([this, call] { runLaunch(call); });
    else
      runLaunch(call);
  }
  void gemm(const GemmCall &call) override {
    gemmsForAnySize += call.anySize;
    if (capturing_)
      recording_.push_back([this, call] { runGemm(call); });
    else
      runGemm(call);
  }
  void synchronize(const std::string &) override {
    EXPECT_FALSE(capturing_) << "a synchronization while capturing";
    ++numSyncs;
  }
  void poison(DevicePtr ptr, int64_t bytes) override {
    checkRange(ptr, bytes);
    std::memset(reinterpret_cast<void *>(ptr), 0xFF, size_t(bytes));
  }
  void beginCapture(const std::string &) override {
    EXPECT_FALSE(capturing_);
    capturing_ = true;
    recording_.clear();
  }
  int endCapture(const std::string &) override {
    EXPECT_TRUE(capturing_);
    capturing_ = false;
    graphs_.push_back(std::move(recording_));
    recording_.clear();
    ++numCaptures;
    return int(graphs_.size() - 1);
  }
  void cancelCapture() override {
    capturing_ = false;
    recording_.clear();
    ++numCancelledCaptures;
  }
  void replay(int graph, const std::string &) override {
    EXPECT_FALSE(capturing_);
    ASSERT_LT(size_t(graph), graphs_.size());
    ASSERT_FALSE(released_.count(graph)) << "replay of a released graph";
    ++numReplays;
    for (auto &work : graphs_[size_t(graph)])
      work();
  }
  void releaseGraph(int graph) override {
    EXPECT_FALSE(released_.count(graph)) << "graph released twice";
    released_.insert(graph);
  }

  // A clock that runs one millisecond per launch and gemm run (eagerly or
  // by a replay): the profile's times are then exact.
  int markTime() override {
    EXPECT_FALSE(capturing_) << "a time mark while capturing";
    marks_.push_back(clockMs_);
    return int(marks_.size() - 1);
  }
  double millisecondsBetween(int from, int to) override {
    return marks_.at(size_t(to)) - marks_.at(size_t(from));
  }
  void clearTimeMarks() override { marks_.clear(); }

  bool capturing() const { return capturing_; }
  size_t liveGraphs() const { return graphs_.size() - released_.size(); }
  size_t liveAllocations() const { return allocations_.size(); }

  std::vector<std::string> modules;
  std::vector<std::string> launches; // kernels run, eagerly or by a replay
  std::vector<bool> programmatic;     // whether each of those came as one
  int numAllocations = 0, numGemms = 0, gemmsForAnySize = 0, numSyncs = 0, numFilledChunks = 0;
  DevicePtr lastAllocation = 0;
  int numCaptures = 0, numReplays = 0, numCancelledCaptures = 0;
  bool failLaunchWhileCapturing = false;

private:
  void runLaunch(const LaunchCall &call) {
    clockMs_ += 1;
    launches.push_back(call.kernel);
    programmatic.push_back(call.programmatic);
    const std::vector<KernelParam> &p = call.params;
    int64_t threads = call.grid[0] * call.grid[1] * call.grid[2] * call.block[0] *
                      call.block[1] * call.block[2];
    if (call.kernel == "selftest_scale_add") {
      ASSERT_EQ(p.size(), 16u);
      ASSERT_EQ(p[15].size, 4u);
      float *x = reinterpret_cast<float *>(p[1].asI64());
      float *y = reinterpret_cast<float *>(p[8].asI64());
      EXPECT_EQ(p[0].asI64(), p[1].asI64()); // allocated == aligned
      int64_t n = p[3].asI64() * p[4].asI64();
      for (int64_t i = 0; i < n && i < threads; ++i) {
        int64_t row = i / p[4].asI64(), col = i % p[4].asI64();
        float v = x[p[2].asI64() + row * p[5].asI64() + col * p[6].asI64()];
        y[p[9].asI64() + row * p[12].asI64() + col * p[13].asI64()] =
            v * p[15].asF32() + float(p[14].asI64());
      }
    } else if (call.kernel == "selftest_add_index") {
      ASSERT_EQ(p.size(), 9u);
      ASSERT_EQ(p[8].size, 4u);
      float *z = reinterpret_cast<float *>(p[1].asI64());
      int64_t n = p[3].asI64() * p[4].asI64();
      for (int64_t i = 0; i < n && i < threads; ++i) {
        int64_t row = i / p[4].asI64(), col = i % p[4].asI64();
        float *e = z + p[2].asI64() + row * p[5].asI64() + col * p[6].asI64();
        *e = *e + (float(p[7].asI64()) + 0.5f * float(p[8].asI32()));
      }
    } else if (call.kernel == "test_decrement" || call.kernel == "test_positive") {
      // Two rank-1 memrefs of one element (5 parameters each): i64 in, and
      // i64 out (in - 1, wrapping as the GPU's integers do: the tests read
      // INT64_MIN) or bool out (in > 0).
      ASSERT_EQ(p.size(), 10u);
      int64_t in = reinterpret_cast<int64_t *>(p[1].asI64())[p[2].asI64()];
      if (call.kernel == "test_decrement")
        reinterpret_cast<int64_t *>(p[6].asI64())[p[7].asI64()] =
            static_cast<int64_t>(static_cast<uint64_t>(in) - 1);
      else
        reinterpret_cast<uint8_t *>(p[6].asI64())[p[7].asI64()] = in > 0;
    } else {
      FAIL() << "unknown kernel " << call.kernel;
    }
  }
  void runGemm(const GemmCall &call) {
    clockMs_ += 1;
    ++numGemms;
    const MatrixOperand &a = call.a, &b = call.b, &c = call.c;
    auto at = [](const MatrixOperand &m, Dtype dtype, int64_t bt, int64_t i, int64_t j) {
      return m.ptr + DevicePtr((bt * m.strides[0] + i * m.strides[1] + j * m.strides[2]) *
                               elementSize(dtype));
    };
    for (int64_t bt = 0; bt < c.sizes[0]; ++bt)
      for (int64_t i = 0; i < c.sizes[1]; ++i)
        for (int64_t j = 0; j < c.sizes[2]; ++j) {
          double acc = call.hasBias
                           ? loadFloat(call.bias + DevicePtr(j * elementSize(call.cDtype)),
                                       call.cDtype)
                           : 0.0;
          for (int64_t k = 0; k < a.sizes[2]; ++k)
            acc += double(loadFloat(at(a, call.dtype, a.sizes[0] == 1 ? 0 : bt, i, k),
                                    call.dtype)) *
                   loadFloat(at(b, call.dtype, b.sizes[0] == 1 ? 0 : bt, k, j), call.dtype);
          storeFloat(at(c, call.cDtype, bt, i, j), call.cDtype, float(acc));
        }
  }
  void checkRange(DevicePtr ptr, int64_t bytes) {
    for (auto &entry : allocations_)
      if (ptr >= entry.first && ptr + DevicePtr(bytes) <= entry.first + DevicePtr(entry.second))
        return;
    ADD_FAILURE() << "copy outside any allocation";
  }
  std::map<DevicePtr, int64_t> allocations_;
  bool capturing_ = false;
  double clockMs_ = 0;
  std::vector<double> marks_;
  std::vector<std::function<void()>> recording_;
  std::vector<std::vector<std::function<void()>>> graphs_;
  std::set<int> released_;
};

void runSelftestCase(const std::string &caseName, size_t expectedVariant) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  std::ostringstream verbose;
  ExecutorOptions options;
  options.verbose = &verbose;
  options.syncEach = true;
  GraphExecutor executor(m, dir + "/artifact", device, options);
  executor.uploadWeights();
  std::string prefix = dir + "/fixture/" + caseName;
  executor.setInputs({readRawTensor(prefix + "_in0.bin", prefix + "_in0.json")});
  std::vector<DeviceTensor> outputs = executor.run();
  ASSERT_EQ(outputs.size(), 2u);
  std::ostringstream lines;
  for (unsigned i = 0; i < 2; ++i) {
    std::string ref = prefix + "_out" + std::to_string(i);
    HostTensor out = executor.download(outputs[i]);
    EXPECT_TRUE(compareOutput(i, out, readRawTensor(ref + ".bin", ref + ".json"), std::nullopt,
                              lines));
  }
  EXPECT_NE(lines.str().find("out0: rel_err="), std::string::npos) << lines.str();
  EXPECT_NE(verbose.str().find("piece 0 (selftest_piece_0, compute), variant " +
                               std::to_string(expectedVariant)),
            std::string::npos)
      << verbose.str();
  // The empty launch (grid 0) of the general variant is skipped.
  EXPECT_EQ(device.launches,
            (std::vector<std::string>{"selftest_scale_add", "selftest_add_index"}));
  EXPECT_EQ(device.numGemms, 1);
  // One synchronization after uploading the weights, one per launch and
  // gemm (syncEach).
  EXPECT_EQ(device.numSyncs, 1 + 3);
  EXPECT_EQ(device.modules.size(), 2u);

  // A second run reuses the buffers of the first.
  int allocations = device.numAllocations;
  outputs = executor.run();
  EXPECT_EQ(device.numAllocations, allocations);
  HostTensor again = executor.download(outputs[0]);
  std::ostringstream ignored;
  EXPECT_TRUE(compareOutput(0, again,
                            readRawTensor(prefix + "_out0.bin", prefix + "_out0.json"),
                            std::nullopt, ignored));
}

TEST(RuntimeExecutor, SelftestCase0GeneralVariant) { runSelftestCase("case0", 1); }
TEST(RuntimeExecutor, SelftestCase1SpecialisedVariant) { runSelftestCase("case1", 0); }

// A launch the plan marks programmatic (format 7) reaches the device as one;
// the others do not.
TEST(RuntimeExecutor, PassesProgrammaticLaunchesOn) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  for (Piece &piece : m.pieces)
    for (Variant &variant : piece.variants)
      for (PlanOp &op : variant.plan)
        op.programmatic = op.kind == PlanOp::Kind::Launch && op.kernel == "selftest_add_index";
  HostDevice device;
  GraphExecutor executor(m, dir + "/artifact", device, ExecutorOptions());
  executor.uploadWeights();
  std::string prefix = dir + "/fixture/case0";
  executor.setInputs({readRawTensor(prefix + "_in0.bin", prefix + "_in0.json")});
  executor.run();
  EXPECT_EQ(device.launches,
            (std::vector<std::string>{"selftest_scale_add", "selftest_add_index"}));
  EXPECT_EQ(device.programmatic, (std::vector<bool>{false, true}));
}

// A piece compiled for the compile sizes only (magi-compile does so for a
// cond on the sizes, which folds away when specialized) runs those sizes and
// refuses the others by name.
TEST(RuntimeExecutor, PieceWithoutAGeneralVariant) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  std::vector<Variant> &variants = m.pieces[0].variants;
  variants.erase(std::remove_if(variants.begin(), variants.end(),
                                [](const Variant &v) { return v.symbols.empty(); }),
                 variants.end());
  ASSERT_EQ(variants.size(), 1u);
  HostDevice device;
  GraphExecutor executor(m, dir + "/artifact", device);
  executor.uploadWeights();
  auto run = [&](const std::string &caseName) {
    std::string prefix = dir + "/fixture/" + caseName;
    executor.setInputs({readRawTensor(prefix + "_in0.bin", prefix + "_in0.json")});
    return executor.run();
  };
  EXPECT_EQ(run("case1").size(), 2u); // s0 = 3, the specialized variant
  expectError([&] { run("case0"); },
              "piece 0 (selftest_piece_0) has no variant for s0=5 and no general variant ({})");
}

//===--- CUDA graphs ------------------------------------------------------===//

TEST(RuntimeGraphs, ChooseStepMode) {
  StepGraphState state;
  EXPECT_EQ(chooseStepMode(state, "a"), StepMode::Eager); // never ran
  rememberEagerCall(state, "a");
  EXPECT_EQ(chooseStepMode(state, "a"), StepMode::Capture); // ran once like this
  EXPECT_EQ(chooseStepMode(state, "b"), StepMode::Eager);
  state.graphs.push_back({"a", 0});
  EXPECT_EQ(chooseStepMode(state, "a"), StepMode::Replay);
  rememberEagerCall(state, "b");                            // b ran eagerly
  EXPECT_EQ(chooseStepMode(state, "b"), StepMode::Capture); // a's graph kept
  state.graphs.push_back({"b", 1});
  EXPECT_EQ(chooseStepMode(state, "a"), StepMode::Replay);
  EXPECT_EQ(chooseStepMode(state, "b"), StepMode::Replay);
  EXPECT_EQ(chooseStepMode(state, "c"), StepMode::Eager);
  // Signatures that alternate capture on their second call all the same
  // (c, d, c, d: the second c and d capture).
  rememberEagerCall(state, "c");
  EXPECT_EQ(chooseStepMode(state, "d"), StepMode::Eager);
  rememberEagerCall(state, "d");
  EXPECT_EQ(chooseStepMode(state, "c"), StepMode::Capture);
  EXPECT_EQ(chooseStepMode(state, "d"), StepMode::Capture);
  // Only the last kMostGraphsPerStep eager calls are remembered.
  for (size_t i = 0; i < kMostGraphsPerStep; ++i)
    rememberEagerCall(state, "e" + std::to_string(i));
  EXPECT_EQ(chooseStepMode(state, "c"), StepMode::Eager);
  EXPECT_EQ(chooseStepMode(state, "e0"), StepMode::Capture);
  EXPECT_EQ(state.eagerSignatures.size(), kMostGraphsPerStep);
  EXPECT_STREQ(stepModeName(StepMode::Eager), "eager");
  EXPECT_STREQ(stepModeName(StepMode::Capture), "captured");
  EXPECT_STREQ(stepModeName(StepMode::Replay), "replayed");
}

TEST(RuntimeGraphs, SignatureCoversEveryParameter) {
  DeviceOp launch;
  launch.kind = DeviceOp::Kind::Launch;
  launch.module = 0;
  launch.launch.kernel = "k0";
  launch.launch.grid[0] = 2;
  launch.launch.block[0] = 128;
  launch.launch.params = {KernelParam::pointer(0x1000), KernelParam::i64(5),
                          KernelParam::i32(7), KernelParam::f32(1.5f)};
  launch.where = "plan[1] (kernel k0)";
  DeviceOp gemm;
  gemm.kind = DeviceOp::Kind::Gemm;
  gemm.gemm.dtype = Dtype::BF16;
  gemm.gemm.cDtype = Dtype::F32;
  gemm.gemm.a = {0x2000, {1, 4, 8}, {0, 8, 1}};
  gemm.gemm.b = {0x3000, {1, 8, 3}, {0, 3, 1}};
  gemm.gemm.c = {0x4000, {1, 4, 3}, {0, 3, 1}};
  gemm.gemm.hasBias = true;
  gemm.gemm.bias = 0x5000;
  const std::vector<DeviceOp> ops = {launch, gemm};
  const std::string base = deviceWorkSignature(0, ops);
  EXPECT_EQ(deviceWorkSignature(0, std::vector<DeviceOp>(ops)), base);
  // Where an op comes from is not a parameter.
  std::vector<DeviceOp> renamed = ops;
  renamed[0].where = "elsewhere";
  EXPECT_EQ(deviceWorkSignature(0, renamed), base);

  EXPECT_NE(deviceWorkSignature(1, ops), base); // another variant
  using Change = std::function<void(std::vector<DeviceOp> &)>;
  std::vector<std::pair<const char *, Change>> changes = {
      {"kernel", [](auto &o) { o[0].launch.kernel = "k1"; }},
      {"module", [](auto &o) { o[0].module = 1; }},
      {"grid", [](auto &o) { o[0].launch.grid[0] = 3; }},
      {"block", [](auto &o) { o[0].launch.block[2] = 2; }},
      {"shared bytes", [](auto &o) { o[0].launch.sharedBytes = 16; }},
      {"a pointer", [](auto &o) { o[0].launch.params[0] = KernelParam::pointer(0x1100); }},
      {"an i64", [](auto &o) { o[0].launch.params[1] = KernelParam::i64(6); }},
      {"i32 to i64", [](auto &o) { o[0].launch.params[2] = KernelParam::i64(7); }},
      {"an f32", [](auto &o) { o[0].launch.params[3] = KernelParam::f32(2.5f); }},
      {"a parameter less", [](auto &o) { o[0].launch.params.pop_back(); }},
      {"skipped", [](auto &o) { o[0].skipped = true; }},
      {"gemm dtype", [](auto &o) { o[1].gemm.dtype = Dtype::F16; }},
      {"gemm c dtype", [](auto &o) { o[1].gemm.cDtype = Dtype::BF16; }},
      {"a's pointer", [](auto &o) { o[1].gemm.a.ptr += 2; }},
      {"b's size", [](auto &o) { o[1].gemm.b.sizes[2] = 4; }},
      {"c's stride", [](auto &o) { o[1].gemm.c.strides[1] = 4; }},
      {"the bias", [](auto &o) { o[1].gemm.bias = 0x5100; }},
      {"no bias", [](auto &o) { o[1].gemm.hasBias = false; }},
      {"an op less", [](auto &o) { o.pop_back(); }},
      {"ops swapped", [](auto &o) { std::swap(o[0], o[1]); }},
  };
  for (auto &[what, change] : changes) {
    std::vector<DeviceOp> changed = ops;
    change(changed);
    EXPECT_NE(deviceWorkSignature(0, changed), base) << what;
  }
}

// Downloads `outputs` and compares them with PREFIX_outN; all must pass.
void expectOutputsMatch(GraphExecutor &executor, const std::vector<DeviceTensor> &outputs,
                        const std::string &prefix, const std::string &when) {
  std::ostringstream lines;
  bool passed = true;
  for (unsigned i = 0; i < outputs.size(); ++i) {
    std::string ref = prefix + "_out" + std::to_string(i);
    passed &= compareOutput(i, executor.download(outputs[i]),
                            readRawTensor(ref + ".bin", ref + ".json"), std::nullopt, lines);
  }
  EXPECT_TRUE(passed) << when << ":\n" << lines.str();
}

HostTensor fixtureInput(const std::string &prefix, int n) {
  std::string stem = prefix + "_in" + std::to_string(n);
  return readRawTensor(stem + ".bin", stem + ".json");
}

// Inputs bound where they are on the device (the C API's and PyTorch's
// way): read without a copy, checked as uploaded ones are, and a captured
// graph is replayed only while the pointer stays the same.
// `host`'s bytes in new device memory.
DeviceTensor onDevice(HostDevice &device, const HostTensor &host) {
  DeviceTensor t;
  t.dtype = host.dtype;
  t.shape = host.shape;
  t.ptr = device.allocate(int64_t(host.bytes.size()));
  device.upload(t.ptr, host.bytes.data(), int64_t(host.bytes.size()));
  return t;
}

TEST(RuntimeExecutor, DeviceInputsAreReadWhereTheyAre) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  GraphExecutor executor(m, dir + "/artifact", device, ExecutorOptions{});
  executor.uploadWeights();
  std::string case0 = dir + "/fixture/case0", case1 = dir + "/fixture/case1";
  DeviceTensor input0 = onDevice(device, fixtureInput(case0, 0));
  int allocations = device.numAllocations;
  executor.setDeviceInputs({input0});
  EXPECT_EQ(device.numAllocations, allocations) << "the input was copied";
  using M = StepMode;
  for (int run = 0; run < 3; ++run) {
    std::vector<DeviceTensor> outputs = executor.run();
    expectOutputsMatch(executor, outputs, case0, "device input, run " + std::to_string(run));
  }
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Replay, M::Replay}));
  // Another buffer with other sizes: it moved, so it is copied into the
  // executor's own buffer (MovingDeviceInputsAreStagedSoThatGraphsReplay),
  // and the steps are evaluated anew.
  DeviceTensor input1 = onDevice(device, fixtureInput(case1, 0));
  executor.setDeviceInputs({input1});
  expectOutputsMatch(executor, executor.run(), case1, "second device input");
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Eager, M::Eager}));

  // The same checks as uploaded inputs.
  DeviceTensor wrongDtype = input0;
  wrongDtype.dtype = Dtype::I64;
  expectError([&] { executor.setDeviceInputs({wrongDtype}); }, "must be f32 (float32)");
  DeviceTensor wrongRank = input0;
  wrongRank.shape.push_back(1);
  expectError([&] { executor.setDeviceInputs({wrongRank}); }, "must have rank");
  expectError([&] { executor.setDeviceInputs({}); },
              "the graph takes 1 user input(s), but 0 were given");
  DeviceTensor noMemory = input0;
  noMemory.ptr = 0;
  expectError([&] { executor.setDeviceInputs({noMemory}); }, "has no device memory");
}

TEST(RuntimeExecutor, MovingDeviceInputsAreStagedSoThatGraphsReplay) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  GraphExecutor executor(m, dir + "/artifact", device, ExecutorOptions{});
  executor.uploadWeights();
  std::string case0 = dir + "/fixture/case0";
  HostTensor host = fixtureInput(case0, 0);
  using M = StepMode;
  // The first call binds it where it is; the second finds it moved and
  // copies it into the executor's buffer, as every call after. The first
  // step reads it (a new address once, then the same), the second step
  // only the first one's results.
  const std::vector<std::pair<int64_t, std::vector<M>>> expected = {
      {0, {M::Eager, M::Eager}},    {1, {M::Eager, M::Capture}},
      {1, {M::Capture, M::Replay}}, {1, {M::Replay, M::Replay}},
      {1, {M::Replay, M::Replay}}};
  for (size_t call = 0; call < expected.size(); ++call) {
    // A fresh device tensor every call, as a caller's new token ids are.
    DeviceTensor input = onDevice(device, host);
    int before = device.numAllocations;
    executor.setDeviceInputs({input});
    EXPECT_EQ(executor.inputStats().staged, expected[call].first) << "call " << call;
    EXPECT_EQ(executor.inputStats().stagedBytes,
              expected[call].first * int64_t(host.bytes.size()))
        << "call " << call;
    // Its buffer is made once, then reused.
    EXPECT_EQ(device.numAllocations - before, call == 1 ? 1 : 0) << "call " << call;
    executor.poisonPlanBuffers();
    std::vector<DeviceTensor> outputs = executor.run();
    EXPECT_EQ(executor.lastRunModes(), expected[call].second) << "call " << call;
    expectOutputsMatch(executor, outputs, case0, "call " + std::to_string(call));
    // Garbage where the caller had it: a later replay that read there fails.
    std::vector<unsigned char> garbage(host.bytes.size(), 0xFF);
    device.upload(input.ptr, garbage.data(), int64_t(garbage.size()));
  }
}

TEST(RuntimeExecutor, CudaGraphsCaptureThenReplay) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  std::ostringstream verbose;
  ExecutorOptions options;
  options.verbose = &verbose;
  options.syncEach = true;
  GraphExecutor executor(m, dir + "/artifact", device, options);
  executor.uploadWeights();
  std::string case0 = dir + "/fixture/case0", case1 = dir + "/fixture/case1";
  executor.setInputs({fixtureInput(case0, 0)});

  using M = StepMode;
  const std::vector<std::vector<M>> expected = {
      {M::Eager, M::Eager}, {M::Capture, M::Capture}, {M::Replay, M::Replay}, {M::Replay, M::Replay}};
  int allocations = 0;
  for (size_t run = 0; run < expected.size(); ++run) {
    // Poisoned again: a replay that wrote nothing would fail the comparison.
    if (run > 0)
      executor.poisonPlanBuffers();
    std::vector<DeviceTensor> outputs = executor.run();
    EXPECT_EQ(executor.lastRunModes(), expected[run]) << "run " << run;
    expectOutputsMatch(executor, outputs, case0, "case0, run " + std::to_string(run));
    if (run == 0)
      allocations = device.numAllocations;
    EXPECT_EQ(device.numAllocations, allocations) << "run " << run;
  }
  EXPECT_EQ(device.numCaptures, 2);
  EXPECT_EQ(device.numReplays, 6); // after each capture, and 2 runs of 2 steps
  // The same arguments every run: each step was evaluated once.
  EXPECT_EQ(executor.numStepEvaluations(), 2);
  // A captured or replayed step synchronizes once, not per launch.
  EXPECT_NE(verbose.str().find("variant 1: eager (first run with these parameters)"),
            std::string::npos)
      << verbose.str();
  EXPECT_NE(verbose.str().find("variant 0: captured\n"), std::string::npos) << verbose.str();
  EXPECT_NE(verbose.str().find("variant 0: replayed\n"), std::string::npos) << verbose.str();

  // The same sizes again: the input is uploaded into its old buffer and the
  // graphs stay valid.
  executor.setInputs({fixtureInput(case0, 0)});
  EXPECT_EQ(device.numAllocations, allocations);
  std::vector<DeviceTensor> outputs = executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Replay, M::Replay}));
  expectOutputsMatch(executor, outputs, case0, "case0 after setInputs");

  EXPECT_EQ(executor.numStepEvaluations(), 2);

  // Other sizes (s0 = 3, piece 0's specialised variant): eager, then
  // captured; the graphs of the first sizes stay.
  executor.setInputs({fixtureInput(case1, 0)});
  outputs = executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Eager, M::Eager}));
  EXPECT_EQ(executor.numStepEvaluations(), 4);
  EXPECT_EQ(device.liveGraphs(), 2u);
  expectOutputsMatch(executor, outputs, case1, "case1, run 0");
  executor.poisonPlanBuffers();
  outputs = executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Capture, M::Capture}));
  expectOutputsMatch(executor, outputs, case1, "case1, run 1");
  EXPECT_NE(verbose.str().find("no graph for these parameters yet"), std::string::npos);

  // And back: the input kept its buffer (it only grows) and the arena its
  // plan for these sizes, so the first sizes' graphs replay at once.
  executor.setInputs({fixtureInput(case0, 0)});
  for (int run = 0; run < 2; ++run) {
    executor.poisonPlanBuffers();
    outputs = executor.run();
    EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Replay, M::Replay})) << run;
    expectOutputsMatch(executor, outputs, case0, "case0 again, run " + std::to_string(run));
  }
  EXPECT_EQ(device.numCaptures, 4);
  EXPECT_EQ(device.liveGraphs(), 4u);
}

// A step keeps at most kMostGraphsPerStep graphs: one more size releases
// the least recently used, which then runs eagerly again.
TEST(RuntimeExecutor, CudaGraphsKeptPerSizeUpToALimit) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  GraphExecutor executor(m, dir + "/artifact", device, ExecutorOptions{});
  executor.uploadWeights();
  auto rows = [](int64_t n) {
    HostTensor t;
    t.dtype = Dtype::F32;
    t.shape = {n, 8};
    t.bytes.assign(size_t(n * 8 * 4), 0);
    return t;
  };
  using M = StepMode;
  // The largest first, so that no buffer grows (and moves) afterwards.
  const int64_t sizes = int64_t(kMostGraphsPerStep) + 1;
  for (int64_t n = sizes; n >= 1; --n) {
    executor.setInputs({rows(n)});
    executor.run();
    EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Eager, M::Eager})) << n;
    executor.run();
    EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Capture, M::Capture})) << n;
  }
  EXPECT_EQ(device.liveGraphs(), 2 * kMostGraphsPerStep);
  // The most recent sizes replay; the first (the largest) was released.
  executor.setInputs({rows(1)});
  executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Replay, M::Replay}));
  executor.setInputs({rows(sizes)});
  executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Eager, M::Eager}));
  executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Capture, M::Capture}));
  EXPECT_EQ(device.liveGraphs(), 2 * kMostGraphsPerStep);
}

TEST(RuntimeExecutor, CudaGraphsOff) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  std::ostringstream verbose;
  ExecutorOptions options;
  options.verbose = &verbose;
  options.cudaGraphs = false;
  GraphExecutor executor(m, dir + "/artifact", device, options);
  executor.uploadWeights();
  executor.setInputs({fixtureInput(dir + "/fixture/case0", 0)});
  for (int run = 0; run < 3; ++run) {
    std::vector<DeviceTensor> outputs = executor.run();
    EXPECT_EQ(executor.lastRunModes(), (std::vector<StepMode>{StepMode::Eager, StepMode::Eager}));
    expectOutputsMatch(executor, outputs, dir + "/fixture/case0", "run " + std::to_string(run));
  }
  EXPECT_EQ(device.numCaptures, 0);
  EXPECT_EQ(device.numReplays, 0);
  EXPECT_NE(verbose.str().find("eager (CUDA graphs off)"), std::string::npos) << verbose.str();
}

//===--- Profiles ---------------------------------------------------------===//
TEST(RuntimeProfile, ViewElementsCountWhatAKernelTouchesOnce) {
  // Dense: the span and the count agree.
  EXPECT_EQ(viewElements({4, 8}, {8, 1}), 32);
  // A column half of a 4 x 16 buffer: its 32 elements, not the 56 its span
  // covers.
  EXPECT_EQ(viewElements({4, 8}, {16, 1}), 32);
  // A row broadcast four times: the 8 elements read, not 32.
  EXPECT_EQ(viewElements({4, 8}, {0, 1}), 8);
  EXPECT_EQ(viewElements({4, 0}, {8, 1}), 0);
  EXPECT_EQ(viewElements({}, {}), 1);
  // Saturates instead of overflowing.
  int64_t big = int64_t(1) << 40;
  EXPECT_EQ(viewElements({big, big}, {big, 1}), std::numeric_limits<int64_t>::max());
}

TEST(RuntimeExecutor, ProfileTimesStepsLaunchesAndGemms) {
  std::string dir = selftestDir();
  // One memref argument with its dtype (format 4): its launch's bytes are
  // known; the other launch's are not (older artifacts give no dtypes).
  Manifest m = parseManifest(
      edited("{\"memref\": {\"base\": \"b0\", \"offset\": 0, \"sizes\": [\"v0\", \"v1\"],",
             "{\"dtype\": \"f32\", \"memref\": {\"base\": \"b0\", \"offset\": 0, "
             "\"sizes\": [\"v0\", \"v1\"],"),
      "manifest.json");
  HostDevice device;
  ExecutorOptions options;
  options.cudaGraphs = false;
  options.profile = true;
  GraphExecutor executor(m, dir + "/artifact", device, options);
  executor.uploadWeights();
  executor.setInputs({fixtureInput(dir + "/fixture/case0", 0)});
  std::vector<DeviceTensor> outputs = executor.run();
  expectOutputsMatch(executor, outputs, dir + "/fixture/case0", "profiled run");
  const RunProfile &profile = executor.lastProfile();
  ASSERT_EQ(profile.steps.size(), 2u);
  EXPECT_EQ(profile.steps[0].name, "step 0 (piece 0 'selftest_piece_0', variant 1)");
  EXPECT_EQ(profile.steps[0].mode, "eager");
  ASSERT_EQ(profile.ops.size(), 3u);
  EXPECT_EQ(profile.ops[0].name, "selftest_scale_add");
  EXPECT_FALSE(profile.ops[0].isGemm);
  EXPECT_EQ(profile.ops[0].bytes, -1);
  EXPECT_TRUE(profile.ops[1].isGemm);
  EXPECT_EQ(profile.ops[1].name, "gemm f32 [1, 5, 8] x [1, 8, 4]");
  // a 5x8, b 8x4, c 5x4 and a bias of 4, f32: (40 + 32 + 20 + 4) * 4
  // bytes; 2 * 5 * 4 * 8 flops.
  EXPECT_EQ(profile.ops[1].bytes, (40 + 32 + 20 + 4) * 4);
  EXPECT_EQ(profile.ops[1].flops, 2.0 * 5 * 4 * 8);
  EXPECT_EQ(profile.ops[2].name, "selftest_add_index");
  EXPECT_GT(profile.ops[2].bytes, 0);
  EXPECT_EQ(profile.ops[0].step, 0u);
  EXPECT_EQ(profile.ops[1].step, 1u);
  EXPECT_EQ(profile.ops[2].step, 1u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(profile.ops[i].ms, 1.0) << i;
    EXPECT_EQ(profile.ops[i].startMs, double(i)) << i;
  }
  EXPECT_EQ(profile.steps[1].startMs, 1.0);
  EXPECT_EQ(profile.steps[1].ms, 2.0);
  EXPECT_EQ(profile.totalMs, 3.0);

  std::string table = formatProfile(profile, 1000, 100);
  EXPECT_NE(table.find("profile: 2 steps, 2 kernel launches, 1 gemms in 3.000 ms (copy 1000 GB/s, "
                       "gemm 100 TFLOP/s, measured here)"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("| step | kernel or gemm | grid | block | us | MB |"), std::string::npos)
      << table;
  EXPECT_NE(table.find("kernels: 2, 2.000 ms; gemms: 1, 1.000 ms; between them 0.000 ms"),
            std::string::npos)
      << table;
  JsonValue trace = parseJson(chromeTrace(profile), "trace.json");
  const JsonValue *events = trace.find("traceEvents");
  ASSERT_TRUE(events && events->isArray());
  // Two track names, two steps, three ops.
  EXPECT_EQ(events->items().size(), 7u);
  const JsonValue &gemm = events->items()[5];
  EXPECT_EQ(gemm.find("name")->asString(), "gemm f32 [1, 5, 8] x [1, 8, 4]");
  EXPECT_EQ(gemm.find("ts")->asDouble(), 1000.0);
  EXPECT_EQ(gemm.find("dur")->asDouble(), 1000.0);
  EXPECT_EQ(gemm.find("args")->find("bytes")->asInteger(), (40 + 32 + 20 + 4) * 4);
}

TEST(RuntimeExecutor, ProfileOfGraphsTimesTheirSteps) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  ExecutorOptions options;
  options.profile = true;
  GraphExecutor executor(m, dir + "/artifact", device, options);
  executor.uploadWeights();
  executor.setInputs({fixtureInput(dir + "/fixture/case0", 0)});
  for (const char *mode : {"eager", "captured", "replayed"}) {
    std::vector<DeviceTensor> outputs = executor.run();
    expectOutputsMatch(executor, outputs, dir + "/fixture/case0", mode);
    const RunProfile &profile = executor.lastProfile();
    ASSERT_EQ(profile.steps.size(), 2u);
    EXPECT_EQ(profile.steps[1].mode, mode);
    // Ops are timed one by one only when they run eagerly.
    EXPECT_EQ(profile.ops.size(), std::string(mode) == "eager" ? 3u : 0u) << mode;
    EXPECT_EQ(profile.totalMs, 3.0) << mode;
  }
  std::string table = formatProfile(executor.lastProfile(), 0, 0);
  EXPECT_NE(table.find("2 steps from CUDA graphs, 3.000 ms (their kernels are not timed one by "
                       "one: --cuda-graphs=off for that)"),
            std::string::npos)
      << table;

  // The whole run as one graph: one step once it is captured.
  options.fullGraph = true;
  GraphExecutor whole(m, dir + "/artifact", device, options);
  whole.shareWeights(executor);
  whole.setInputs({fixtureInput(dir + "/fixture/case0", 0)});
  whole.run();
  EXPECT_EQ(whole.lastProfile().steps.size(), 2u);
  whole.run();
  ASSERT_EQ(whole.lastProfile().steps.size(), 1u);
  EXPECT_EQ(whole.lastProfile().steps[0].name, "the whole run");
  EXPECT_EQ(whole.lastProfile().steps[0].mode, "captured (one CUDA graph)");
}

// The self-test with its second piece made a splitting piece.
Manifest selftestWithSplittingPiece() {
  return parseManifest(
      edited("\"index\": 1, \"name\": \"selftest_piece_1\", \"kind\": \"compute\", \"graph_index\": 0,\n"
             "      \"cuda_graph\": true,",
             "\"index\": 1, \"name\": \"selftest_piece_1\", \"kind\": \"splitting\", "
             "\"graph_index\": null,\n      \"cuda_graph\": false,"),
      "manifest.json");
}

TEST(RuntimeExecutor, SplittingPiecesRunEagerly) {
  std::string dir = selftestDir();
  Manifest m = selftestWithSplittingPiece();
  ASSERT_TRUE(m.pieces[1].isSplitting);
  HostDevice device;
  std::ostringstream verbose;
  ExecutorOptions options;
  options.verbose = &verbose;
  GraphExecutor executor(m, dir + "/artifact", device, options);
  executor.uploadWeights();
  executor.setInputs({fixtureInput(dir + "/fixture/case0", 0)});
  using M = StepMode;
  for (M mode : {M::Eager, M::Capture, M::Replay}) {
    executor.poisonPlanBuffers();
    std::vector<DeviceTensor> outputs = executor.run();
    EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{mode, M::Eager}));
    expectOutputsMatch(executor, outputs, dir + "/fixture/case0", stepModeName(mode));
  }
  EXPECT_NE(verbose.str().find("splitting), variant 0: eager (splitting piece)"), std::string::npos)
      << verbose.str();
}

TEST(RuntimeExecutor, FullGraphCapturesTheWholeRun) {
  // A splitting piece too: in full mode it is in the one graph.
  std::string dir = selftestDir();
  Manifest m = selftestWithSplittingPiece();
  HostDevice device;
  std::ostringstream verbose;
  ExecutorOptions options;
  options.verbose = &verbose;
  options.fullGraph = true;
  GraphExecutor executor(m, dir + "/artifact", device, options);
  executor.uploadWeights();
  std::string case0 = dir + "/fixture/case0", case1 = dir + "/fixture/case1";
  executor.setInputs({fixtureInput(case0, 0)});
  using M = StepMode;
  for (M mode : {M::Eager, M::Capture, M::Replay, M::Replay}) {
    executor.poisonPlanBuffers();
    std::vector<DeviceTensor> outputs = executor.run();
    EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{mode, mode}));
    expectOutputsMatch(executor, outputs, case0, std::string("full, ") + stepModeName(mode));
  }
  EXPECT_EQ(device.numCaptures, 1); // one graph for both steps
  EXPECT_EQ(device.numReplays, 3);
  EXPECT_EQ(device.liveGraphs(), 1u);
  EXPECT_NE(verbose.str().find("run: one CUDA graph for all 2 steps: eager (first run with "
                               "these parameters)"),
            std::string::npos)
      << verbose.str();
  EXPECT_NE(verbose.str().find("run: one CUDA graph for all 2 steps: replayed"), std::string::npos);

  // Other sizes: eager again (the first sizes' graph kept), then captured.
  executor.setInputs({fixtureInput(case1, 0)});
  std::vector<DeviceTensor> outputs = executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Eager, M::Eager}));
  EXPECT_EQ(device.liveGraphs(), 1u);
  expectOutputsMatch(executor, outputs, case1, "full, case1 eager");
  executor.poisonPlanBuffers();
  outputs = executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Capture, M::Capture}));
  expectOutputsMatch(executor, outputs, case1, "full, case1 captured");
  EXPECT_NE(verbose.str().find("no graph for these parameters yet"), std::string::npos);
  // And back: replayed.
  executor.setInputs({fixtureInput(case0, 0)});
  executor.poisonPlanBuffers();
  outputs = executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Replay, M::Replay}));
  expectOutputsMatch(executor, outputs, case0, "full, case0 again");
  EXPECT_EQ(device.liveGraphs(), 2u);
}

TEST(RuntimeExecutor, ReleasingRunStateFreesBuffersAndGraphs) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  GraphExecutor executor(m, dir + "/artifact", device);
  executor.uploadWeights();
  std::string case0 = dir + "/fixture/case0";
  executor.setInputs({fixtureInput(case0, 0)});
  int before = device.numAllocations;
  for (int run = 0; run < 3; ++run)
    executor.run();
  EXPECT_EQ(device.liveGraphs(), 2u);
  int withBuffers = device.numAllocations;
  EXPECT_GT(withBuffers, before);
  executor.releaseRunState();
  EXPECT_EQ(device.liveGraphs(), 0u);
  // Everything runs again from scratch: eager, with fresh buffers.
  std::vector<DeviceTensor> outputs = executor.run();
  EXPECT_EQ(executor.lastRunModes(), (std::vector<StepMode>{StepMode::Eager, StepMode::Eager}));
  EXPECT_EQ(device.numAllocations, withBuffers + (withBuffers - before));
  expectOutputsMatch(executor, outputs, case0, "after releaseRunState");
}

// The self-test graph with two more steps: s1 passes s0's result y on as a
// view of its argument (piece 2, no plan ops), s2 computes 2x + 100 into a
// buffer nothing reads, and piece 1 (s3) reads y through s1's view:
//   outputs [z, y] as in the self-test's fixtures.
// Were the view's buffer taken for dead after s0, s2 would be placed over y.
std::string viewChainManifest() {
  std::string text = selftestManifest();
  auto replace = [&](const std::string &from, const std::string &to) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "not in the manifest: " << from;
    if (at != std::string::npos)
      text.replace(at, from.size(), to);
  };
  replace(R"("steps": [
      {"piece": 0, "args": [{"input": 2}, {"symbol": "s0"}]},
      {"piece": 1, "args": [{"step": 0, "result": 0}, {"input": 0}, {"input": 1},
                            {"step": 0, "result": 1}]}
    ],
    "outputs": [{"step": 1, "result": 0}, {"step": 0, "result": 0}])",
          R"("steps": [
      {"piece": 0, "args": [{"input": 2}, {"symbol": "s0"}]},
      {"piece": 2, "args": [{"step": 0, "result": 0}]},
      {"piece": 0, "args": [{"input": 2}, {"int": 100}]},
      {"piece": 1, "args": [{"step": 1, "result": 0}, {"input": 0}, {"input": 1},
                            {"step": 0, "result": 1}]}
    ],
    "outputs": [{"step": 3, "result": 0}, {"step": 1, "result": 0}])");
  size_t last = text.rfind(']');
  text.insert(last, R"(,
    {
      "index": 2, "name": "selftest_view", "kind": "compute", "graph_index": 0,
      "cuda_graph": true,
      "args": [{"kind": "tensor", "dtype": "f32", "rank": 2}],
      "results": [{"kind": "tensor", "dtype": "f32", "rank": 2}],
      "variants": [
        {"symbols": {}, "ptx": "pieces/piece_1.ptx", "cubin": null, "kernels": [], "values": [],
         "plan": [],
         "results": [{"tensor": {"base": "arg0", "offset": 0, "sizes": ["arg0.d0", "arg0.d1"],
                                 "strides": ["arg0.d1", 1]}}]}
      ]
    }
  )");
  return text;
}

TEST(RuntimeExecutor, PlanBuffersShareOneArenaByLiveRange) {
  Manifest m = parseManifest(viewChainManifest(), "manifest.json");
  std::string dir = selftestDir();
  HostDevice device;
  GraphExecutor executor(m, dir + "/artifact", device);
  executor.uploadWeights();
  std::string case0 = dir + "/fixture/case0"; // s0 = 5
  executor.setInputs({fixtureInput(case0, 0)});
  int allocationsBefore = device.numAllocations;
  for (int run = 0; run < 4; ++run) {
    executor.poisonPlanBuffers();
    std::vector<DeviceTensor> outputs = executor.run();
    expectOutputsMatch(executor, outputs, case0, "run " + std::to_string(run));
  }
  // y (176 bytes, live to the end through the view), s2's 176 and s3's z
  // (80, an output), each rounded to 256: s2's dies before s3's is born, so
  // they share.
  const RunMemoryStats &stats = executor.memoryStats();
  EXPECT_EQ(stats.buffers, 3);
  EXPECT_EQ(stats.bufferBytes, 768);
  EXPECT_EQ(stats.peakLiveBytes, 512);
  EXPECT_EQ(stats.arenaBytes, 512);
  EXPECT_EQ(stats.describe(),
            "run buffers: 3 buffers, 0.000 GB in all, live at most 0.000 GB, placed in 0.000 GB");
  EXPECT_EQ(device.numAllocations - allocationsBefore, 1); // the arena, once
  // The plan held from run to run: every step captured, then replayed.
  EXPECT_EQ(executor.lastRunModes(), std::vector<StepMode>(4, StepMode::Replay));

  // Smaller sizes: a new plan that fits the arena (nothing allocated), and
  // the steps evaluated again for it.
  std::string case1 = dir + "/fixture/case1"; // s0 = 3
  executor.setInputs({fixtureInput(case1, 0)}); // the input's own buffer is replaced
  int64_t evaluations = executor.numStepEvaluations();
  allocationsBefore = device.numAllocations;
  std::vector<DeviceTensor> outputs = executor.run();
  expectOutputsMatch(executor, outputs, case1, "case1");
  EXPECT_EQ(executor.numStepEvaluations() - evaluations, 4);
  EXPECT_EQ(device.numAllocations, allocationsBefore);
  // The view step issues nothing, before as now: its empty graph replays.
  using M = StepMode;
  EXPECT_EQ(executor.lastRunModes(), (std::vector<M>{M::Eager, M::Replay, M::Eager, M::Eager}));
}

TEST(RuntimePlaceBuffers, ReusesWhatIsDeadAndNeverOverlapsWhatIsLive) {
  // a [0, 2] and b [1, 3] overlap; c [3, 4] overlaps b only; d [5, 5]
  // overlaps nothing. Largest first: a at 0, b after it, c in a's place, d at 0.
  std::vector<BufferLifetime> buffers = {
      {1000, 0, 2}, {300, 1, 3}, {700, 3, 4}, {2000, 5, 5}};
  std::vector<int64_t> offsets;
  RunMemoryStats stats = placeBuffers(buffers, offsets);
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 1024, 0, 0}));
  EXPECT_EQ(stats.buffers, 4);
  EXPECT_EQ(stats.bufferBytes, 1024 + 512 + 768 + 2048);
  EXPECT_EQ(stats.peakLiveBytes, 2048);
  EXPECT_EQ(stats.arenaBytes, 2048);
  // An end and a start at the same time overlap (the op that frees one is
  // the op that uses the other).
  stats = placeBuffers({{256, 0, 1}, {256, 1, 2}}, offsets);
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 256}));
  EXPECT_EQ(stats.peakLiveBytes, 512);
  // Empty buffers still get an address of their own.
  stats = placeBuffers({{0, 0, 0}, {0, 0, 0}}, offsets);
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 256}));
  expectError([] {
    std::vector<int64_t> unused;
    placeBuffers({{int64_t(1) << 62, 0, 0}, {int64_t(1) << 62, 0, 0}}, unused);
  }, "the run's plan buffers add up to more than 2^63 bytes");
}

TEST(RuntimeExecutor, FailedCaptureIsCancelled) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  GraphExecutor executor(m, dir + "/artifact", device);
  executor.uploadWeights();
  executor.setInputs({fixtureInput(dir + "/fixture/case0", 0)});
  executor.run();
  device.failLaunchWhileCapturing = true;
  expectError([&] { executor.run(); }, "launch failed while capturing");
  EXPECT_FALSE(device.capturing());
  EXPECT_EQ(device.numCancelledCaptures, 1);
  // Nothing was kept of the failed capture: the next run captures again.
  device.failLaunchWhileCapturing = false;
  std::vector<DeviceTensor> outputs = executor.run();
  EXPECT_EQ(executor.lastRunModes(),
            (std::vector<StepMode>{StepMode::Capture, StepMode::Capture}));
  expectOutputsMatch(executor, outputs, dir + "/fixture/case0", "after the failed capture");
}

TEST(RuntimeExecutor, RefusesMissingWeights) {
  TempDir temp;
  std::string dir = temp.path();
  Manifest m = loadManifest(selftestDir() + "/artifact");
  HostDevice device;
  GraphExecutor executor(m, dir, device);
  expectError([&] { executor.uploadWeights(); },
              "cannot open '" + dir + "/weights.bin' (weights.files[0], whose first weight is "
              "'linear.weight'): No such file or directory");
  writeFile(dir + "/weights.bin", std::string(100, '\0'));
  expectError([&] { executor.uploadWeights(); },
              "'" + dir + "/weights.bin' changed since it was compiled: it holds 100 bytes, but "
              "the artifact recorded 272 (weights.files[0], whose first weight is 'linear.weight')");
  EXPECT_EQ(device.numAllocations, 0); // refused before anything was allocated
}

// A copy of the self-test artifact in a temporary directory.
// The self-test artifact's manifest and weights, copied into `temp`.
std::string copySelftestArtifact(const TempDir &temp) {
  std::string dir = temp.path();
  for (const char *file : {"manifest.json", "weights.bin"})
    writeFile(dir + "/" + file, readFileBytes(selftestDir() + "/artifact/" + file));
  return dir;
}

TEST(RuntimeExecutor, RefusesChangedWeights) {
  TempDir temp;
  std::string dir = copySelftestArtifact(temp);
  Manifest m = loadManifest(dir);
  HostDevice device;
  GraphExecutor executor(m, dir, device);
  // One byte more.
  std::string bytes = readFileBytes(dir + "/weights.bin");
  writeFile(dir + "/weights.bin", bytes + '\0');
  expectError([&] { executor.uploadWeights(); },
              "weights.bin' changed since it was compiled: it holds 273 bytes, but the artifact "
              "recorded 272");
  // The same size, one bit of the bias flipped.
  std::string flipped = bytes;
  flipped[260] ^= 1;
  writeFile(dir + "/weights.bin", flipped);
  uint32_t recorded = m.graph.inputs[1].weight->crc32;
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%08x", recorded);
  expectError([&] { executor.uploadWeights(); },
              "weight 'linear.bias': the CRC-32 of bytes 256..272 of '" + dir +
                  "/weights.bin' is 0x" /* then the new CRC */);
  expectError([&] { executor.uploadWeights(); },
              std::string(", but the artifact recorded ") + hex +
                  ": the file changed since it was compiled, or is corrupt");
  // Restored, it loads.
  writeFile(dir + "/weights.bin", bytes);
  executor.uploadWeights();
  EXPECT_EQ(executor.weightStats().tensors, 2);
}

TEST(RuntimeExecutor, RefusesAnArtifactWithoutWeights) {
  // What magi-compile --no-weights writes: weights without "weight".
  std::string text = readFileBytes(selftestDir() + "/artifact/manifest.json");
  size_t bias = text.find("\"name\": \"linear.bias\"");
  ASSERT_NE(bias, std::string::npos);
  size_t from = text.find(",\n       \"weight\": {", bias);
  ASSERT_NE(from, std::string::npos);
  size_t to = text.find('}', from);
  ASSERT_NE(to, std::string::npos);
  text.erase(from, to + 1 - from);
  Manifest m = parseManifest(text, "manifest.json");
  EXPECT_FALSE(m.graph.inputs[1].weight.has_value());
  EXPECT_TRUE(m.graph.inputs[0].weight.has_value());
  HostDevice device;
  TempDir temp;
  GraphExecutor executor(m, temp.path(), device);
  expectError([&] { executor.uploadWeights(); },
              "the artifact has no bytes for weight linear.bias (it was compiled with "
              "--no-weights");
}

// A plan's view must stay inside its base: a huge or negative offset is an
// error when the step runs, not an access.
TEST(RuntimeExecutor, RefusesViewsOutsideTheirBase) {
  std::string dir = selftestDir();
  std::string text = readFileBytes(dir + "/artifact/manifest.json");
  for (const char *offset : {"4611686018427387904", "-5"}) {
    std::string edited = text;
    std::string from = "{\"tensor\": {\"base\": \"b0\", \"offset\": 0,";
    ASSERT_NE(edited.find(from), std::string::npos);
    edited.replace(edited.find(from), from.size(),
                   std::string("{\"tensor\": {\"base\": \"b0\", \"offset\": ") + offset + ",");
    Manifest m = parseManifest(edited, "manifest.json");
    HostDevice device;
    GraphExecutor executor(m, dir + "/artifact", device);
    executor.uploadWeights();
    std::string prefix = dir + "/fixture/case0";
    executor.setInputs({readRawTensor(prefix + "_in0.bin", prefix + "_in0.json")});
    expectError([&] { executor.run(); }, "of b0 (");
  }
}

// Kernels move streamed elements 16 bytes at a time from their buffers'
// starts: a buffer that is not 16-byte aligned is refused before a launch.
TEST(RuntimeExecutor, RefusesMisalignedKernelBuffers) {
  std::string dir = selftestDir();
  Manifest m = loadManifest(dir + "/artifact");
  HostDevice device;
  device.misalignment = 8;
  GraphExecutor executor(m, dir + "/artifact", device);
  executor.uploadWeights();
  std::string prefix = dir + "/fixture/case0";
  executor.setInputs({readRawTensor(prefix + "_in0.bin", prefix + "_in0.json")});
  expectError([&] { executor.run(); }, "-byte aligned, which the kernels assume");
  EXPECT_EQ(device.launches.size(), 0u);
}

TEST(RuntimeExecutor, GemmChecks) {
  GemmCall call;
  call.a = {0, {1, 4, 8}, {32, 8, 1}};
  call.b = {0, {1, 8, 3}, {0, 1, 8}};
  call.c = {0, {1, 4, 3}, {12, 3, 1}};
  checkGemm(call, 0, "g");
  call.hasBias = true;
  expectError([&] { checkGemm(call, 4, "g"); }, "g: gemm: the bias has 4 elements, but n = 3");
  call.hasBias = false;
  GemmCall bad = call;
  bad.b.strides[1] = 2;
  expectError([&] { checkGemm(bad, 0, "g"); }, "its last or second-to-last stride must be 1");
  bad = call;
  bad.b.sizes[1] = 7;
  expectError([&] { checkGemm(bad, 0, "g"); }, "a is [.., 4, 8] but b is [.., 7, 3]");
  bad = call;
  bad.c.sizes[0] = 2;
  bad.c.strides[0] = 0;
  expectError([&] { checkGemm(bad, 0, "g"); }, "batch stride 0");
  bad.a.sizes[0] = 3;
  expectError([&] { checkGemm(bad, 0, "g"); }, "batch sizes");
}

} // namespace

namespace {

// The gemm artifact (test/Runtime/gemm) runs only on a GPU; here its
// manifest and fixture inputs must at least be valid.
std::string gemmDir() { return std::string(MAGI_SOURCE_DIR) + "/test/Runtime/gemm"; }

TEST(RuntimeManifest, GemmArtifactIsValid) {
  Manifest m = loadManifest(gemmDir() + "/artifact");
  std::vector<HostTensor> inputs;
  for (int i = 0; i < 4; ++i)
    inputs.push_back(fixtureInput(gemmDir() + "/fixture/case0", i));
  EXPECT_TRUE(bindInputs(m.graph, inputs).empty());
  const std::vector<PlanOp> &plan = m.pieces[0].variants[0].plan;
  ASSERT_EQ(plan.size(), 14u);
  // c_dtype defaults to dtype.
  EXPECT_EQ(plan[1].gemmCDtype, Dtype::F32);
  EXPECT_EQ(plan[9].gemmDtype, Dtype::F16);
  EXPECT_EQ(plan[9].gemmCDtype, Dtype::F16);
  EXPECT_EQ(plan[11].gemmDtype, Dtype::BF16);
  EXPECT_EQ(plan[11].gemmCDtype, Dtype::F32);
  EXPECT_EQ(plan[13].gemmCDtype, Dtype::F32);
}

// Which variants serve any size (their products may share a cuBLASLt
// algorithm across row counts of a size class): the self-test's piece 0 has
// one for s0 = 3 and one for any s0; piece 1 only the latter; the gemm
// artifact's piece takes no symbol, so its one variant is for its sizes only.
TEST(RuntimeManifest, VariantsForAnySize) {
  Manifest selftest = loadManifest(selftestDir() + "/artifact");
  ASSERT_EQ(selftest.pieces.size(), 2u);
  ASSERT_EQ(selftest.pieces[0].variants.size(), 2u);
  EXPECT_FALSE(isVariantForAnySize(selftest.pieces[0], selftest.pieces[0].variants[0]));
  EXPECT_TRUE(isVariantForAnySize(selftest.pieces[0], selftest.pieces[0].variants[1]));
  EXPECT_TRUE(isVariantForAnySize(selftest.pieces[1], selftest.pieces[1].variants[0]));
  Manifest gemm = loadManifest(gemmDir() + "/artifact");
  EXPECT_FALSE(isVariantForAnySize(gemm.pieces[0], gemm.pieces[0].variants[0]));
}

TEST(RuntimeManifest, RefusesBadGemmCDtypes) {
  std::string text = readFileBytes(gemmDir() + "/artifact/manifest.json");
  auto refuse = [&](const std::string &from, const std::string &to, const std::string &fragment) {
    std::string changed = text;
    size_t at = changed.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    changed.replace(at, from.size(), to);
    expectError([&] { parseManifest(changed, "manifest.json"); }, fragment);
  };
  refuse("\"dtype\": \"bf16\", \"c_dtype\": \"f32\"", "\"dtype\": \"f32\", \"c_dtype\": \"bf16\"",
         "pieces[0].variants[0].plan[11].c_dtype: bf16 with dtype f32: c has the inputs' dtype, "
         "or f32 for bf16/f16 inputs");
  refuse("\"dtype\": \"f16\", \"c_dtype\": \"f32\"", "\"dtype\": \"f16\", \"c_dtype\": \"bf16\"",
         "plan[13].c_dtype: bf16 with dtype f16");
  refuse("\"c_dtype\": \"f32\"", "\"c_dtype\": \"i32\"", "plan[11].c_dtype: i32 with dtype bf16");
  refuse("\"c_dtype\": \"f32\"", "\"c_dtype\": \"float32\"", "unknown dtype \"float32\"");
  refuse("\"c_dtype\": \"f32\"", "\"cdtype\": \"f32\"", "unknown field \"cdtype\"");
}

// The whole gemm artifact on the host device, with CUDA graphs (eager,
// captured, replayed), against gen.py's references: dtypes, c_dtype, the
// offsets of c in its own element size, the f32 bias of a bf16 gemm.
TEST(RuntimeExecutor, GemmArtifactOnHost) {
  Manifest m = loadManifest(gemmDir() + "/artifact");
  HostDevice device;
  GraphExecutor executor(m, gemmDir() + "/artifact", device);
  executor.uploadWeights();
  std::string prefix = gemmDir() + "/fixture/case0";
  std::vector<HostTensor> inputs;
  for (int i = 0; i < 4; ++i)
    inputs.push_back(fixtureInput(prefix, i));
  executor.setInputs(inputs);
  for (StepMode mode : {StepMode::Eager, StepMode::Capture, StepMode::Replay}) {
    executor.poisonPlanBuffers();
    std::vector<DeviceTensor> outputs = executor.run();
    ASSERT_EQ(outputs.size(), 6u);
    EXPECT_EQ(executor.lastRunModes(), std::vector<StepMode>{mode});
    expectOutputsMatch(executor, outputs, prefix, stepModeName(mode));
  }
  EXPECT_EQ(device.numGemms, 6 * 3);
  EXPECT_EQ(device.gemmsForAnySize, 0); // static sizes: no size class
}

} // namespace

namespace {

//===--- Weights: files, storages, views, rebinding -----------------------===//

// test/Runtime/archives: zip archives laid out like torch.export's (gen.py
// says what they hold).
std::string archivesDir() { return std::string(MAGI_SOURCE_DIR) + "/test/Runtime/archives"; }

// Entries are found by name, or across exports whose folder differs.
TEST(RuntimeZip, FindsEntriesIgnoringTheFolder) {
  ZipDirectory zip = readZipDirectory(archivesDir() + "/model-b.zip");
  const ZipEntry *exact = zip.findIgnoringFolder("model-b/data/0");
  ASSERT_TRUE(exact);
  EXPECT_EQ(exact->name, "model-b/data/0");
  EXPECT_EQ(zip.findIgnoringFolder("model-a/data/0"), exact);
  EXPECT_EQ(zip.findIgnoringFolder("data/0"), exact);
  EXPECT_EQ(zip.findIgnoringFolder("model-a/data/9"), nullptr);
  EXPECT_EQ(withoutFolder("a/b/c"), "b/c");
  EXPECT_EQ(withoutFolder("c"), "c");
}

std::vector<float> archiveFloats(const std::string &model, int entry) {
  std::vector<float> v;
  bool b = model == "model-b";
  if (entry == 0)
    for (int i = 0; i < 12; ++i)
      v.push_back(b ? 100 + 0.5f * float(i) : 0.5f * float(i) - 1);
  else
    for (int i = 0; i < 16; ++i)
      v.push_back(float(i % 4) + (b ? 100 : 0));
  return v;
}

std::vector<int64_t> archiveInts(const std::string &model) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < 6; ++i)
    v.push_back(model == "model-b" ? 1000 + i : 10 * i - 7);
  return v;
}

struct ArchiveWeight {
  const char *name;
  Dtype dtype;
  std::vector<int64_t> shape;
  const char *entry; // inside the archive's folder
  int64_t storageOffset;
  std::vector<int64_t> strides;
};

// Views of model-a's storages: dense, transposed (gathered), at an offset
// of a deflated storage, strided into a deflated storage, an i64 transpose,
// a scalar.
const std::vector<ArchiveWeight> &archiveWeights() {
  static const std::vector<ArchiveWeight> weights = {
      {"w", Dtype::F32, {3, 4}, "data/0", 0, {4, 1}},
      {"wt", Dtype::F32, {4, 3}, "data/0", 0, {1, 4}},
      {"b", Dtype::F32, {2}, "data/1", 5, {1}},
      {"cols", Dtype::F32, {4, 2}, "data/1", 1, {1, 8}},
      {"idx", Dtype::I64, {3, 2}, "data/2", 0, {1, 3}},
      {"s", Dtype::F32, {}, "data/0", 7, {}},
  };
  return weights;
}

// Appends `in` (a weight) to `m`'s inputs and returns it as a graph output.
void addWeightAsOutput(Manifest &m, GraphInput in) {
  ValueRef out;
  out.kind = ValueRef::Kind::Input;
  out.index = int64_t(m.graph.inputs.size());
  m.graph.outputs.push_back(out);
  m.graph.inputs.push_back(std::move(in));
}

// What magi-compile writes for weights referenced in an archive: a manifest
// whose weights are entries of `archive` (a path relative to `dir`), and
// whose graph outputs are the weights themselves (no steps).
Manifest archiveManifest(const std::string &dir, const std::string &archive) {
  ZipDirectory zip = readZipDirectory(dir + "/" + archive);
  std::string folder = archive.substr(0, archive.size() - 4);
  Manifest m;
  m.targetChip = "sm_90";
  m.sourceFile = "model.pt2";
  m.weightFiles = {WeightFile{archive, zip.fileBytes}};
  for (const ArchiveWeight &aw : archiveWeights()) {
    GraphInput in;
    in.name = aw.name;
    in.kind = InputKind::Parameter;
    in.dtype = aw.dtype;
    for (int64_t size : aw.shape)
      in.shape.push_back(Expr::parse(std::to_string(size)));
    const ZipEntry *entry = zip.find(folder + "/" + aw.entry);
    EXPECT_TRUE(entry) << aw.entry;
    if (!entry)
      continue;
    WeightRef w;
    w.setStorage(0, *entry);
    w.storageOffset = aw.storageOffset;
    w.strides = aw.strides;
    in.weight = w;
    addWeightAsOutput(m, std::move(in));
  }
  return m;
}

// Uploads the weights and checks each against its view of `model`'s values.
void expectArchiveWeights(GraphExecutor &executor, const std::string &model) {
  std::vector<DeviceTensor> outputs = executor.run();
  const std::vector<ArchiveWeight> &weights = archiveWeights();
  ASSERT_EQ(outputs.size(), weights.size());
  for (size_t i = 0; i < weights.size(); ++i) {
    const ArchiveWeight &aw = weights[i];
    HostTensor t = executor.download(outputs[i]);
    EXPECT_EQ(t.shape, aw.shape) << aw.name;
    EXPECT_EQ(outputs[i].ptr % 256, 0u) << aw.name;
    int64_t n = t.numElements();
    // The expected element at each (row-major) index of the view.
    std::vector<int64_t> index(aw.shape.size(), 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t at = aw.storageOffset;
      for (size_t d = 0; d < index.size(); ++d)
        at += index[d] * aw.strides[d];
      int entry = aw.entry[5] - '0';
      if (aw.dtype == Dtype::I64)
        EXPECT_EQ(t.getInt(e), archiveInts(model)[size_t(at)]) << aw.name << " element " << e;
      else
        EXPECT_EQ(t.getDouble(e), archiveFloats(model, entry)[size_t(at)])
            << model << " " << aw.name << " element " << e;
      for (size_t d = index.size(); d-- > 0;)
        if (++index[d] < aw.shape[d])
          break;
        else
          index[d] = 0;
    }
  }
}

TEST(RuntimeWeights, LoadsStoredAndDeflatedEntriesAndGathersViews) {
  Manifest m = archiveManifest(archivesDir(), "model-a.zip");
  ASSERT_EQ(m.graph.inputs.size(), 6u);
  EXPECT_EQ(m.graph.inputs[2].weight->method, ZipMethod::Deflate);
  EXPECT_EQ(m.graph.inputs[0].weight->method, ZipMethod::Stored);
  // What magi-compile would write reads back.
  Manifest again = parseManifest(printManifest(m), "manifest.json");
  EXPECT_EQ(printManifest(again), printManifest(m));
  EXPECT_EQ(again.graph.inputs[3].weight->entry, "model-a/data/1");

  HostDevice device;
  std::ostringstream verbose;
  ExecutorOptions options;
  options.verbose = &verbose;
  GraphExecutor executor(again, archivesDir(), device, options);
  executor.uploadWeights();
  const WeightLoadStats &stats = executor.weightStats();
  EXPECT_EQ(stats.tensors, 6);
  EXPECT_EQ(stats.storages, 3); // data/0 (3 views), data/1 (2), data/2
  EXPECT_EQ(stats.files, 1);
  EXPECT_EQ(stats.inflated, 1);
  EXPECT_EQ(stats.gathered, 3); // wt, cols, idx
  EXPECT_EQ(stats.bytesUploaded, 48 + 48 + 8 + 32 + 48 + 4);
  EXPECT_EQ(device.numAllocations, 1); // one allocation for every weight
  EXPECT_EQ(stats.describe().rfind("weights: 6 tensors, 0.000 GB from 1 file(s) in ", 0), 0u)
      << stats.describe();
  EXPECT_NE(verbose.str().find("weights: 3 storage(s) (1 inflated, 0 streamed), "), std::string::npos)
      << verbose.str();
  expectArchiveWeights(executor, "model-a");
}

// model-a's weights plus `w2` (data/1 as 4x4) and `wcat`, the
// concatenation of `w` (3x4) and `w2` along dim 0 (magi-merge-projections).
Manifest concatManifest() {
  Manifest m = archiveManifest(archivesDir(), "model-a.zip");
  m.version = kArtifactVersion;
  GraphInput w2 = m.graph.inputs[2]; // b: data/1, deflated
  w2.name = "w2";
  w2.shape = {Expr::parse("4"), Expr::parse("4")};
  w2.weight->storageOffset = 0;
  w2.weight->strides = {4, 1};
  addWeightAsOutput(m, w2);
  GraphInput cat;
  cat.name = "w+w2";
  cat.kind = InputKind::Parameter;
  cat.dtype = Dtype::F32;
  cat.shape = {Expr::parse("7"), Expr::parse("4")};
  cat.concatOf = {0, 6};
  addWeightAsOutput(m, cat);
  return m;
}

TEST(RuntimeWeights, LaysConcatenationsOutAdjacently) {
  Manifest m = parseManifest(printManifest(concatManifest()), "manifest.json");
  ASSERT_EQ(m.graph.inputs.size(), 8u);
  EXPECT_EQ(m.graph.inputs[7].concatOf, (std::vector<int64_t>{0, 6}));
  EXPECT_FALSE(m.graph.inputs[7].weight);
  HostDevice device;
  GraphExecutor executor(m, archivesDir(), device);
  executor.uploadWeights();
  EXPECT_EQ(executor.weightStats().tensors, 7); // the concatenation is its parts
  std::vector<DeviceTensor> outputs = executor.run();
  ASSERT_EQ(outputs.size(), 8u);
  EXPECT_EQ(outputs[7].ptr, outputs[0].ptr);
  EXPECT_EQ(outputs[6].ptr, outputs[0].ptr + 3 * 4 * 4); // right after w
  EXPECT_EQ(outputs[0].ptr % 256, 0u);
  HostTensor cat = executor.download(outputs[7]);
  EXPECT_EQ(cat.shape, (std::vector<int64_t>{7, 4}));
  for (int64_t e = 0; e < 28; ++e)
    EXPECT_EQ(cat.getDouble(e), e < 12 ? archiveFloats("model-a", 0)[size_t(e)]
                                       : archiveFloats("model-a", 1)[size_t(e - 12)])
        << "element " << e;
}

TEST(RuntimeManifest, RefusesBadConcatenations) {
  auto refuses = [](std::function<void(Manifest &)> edit, const std::string &fragment) {
    Manifest m = concatManifest();
    edit(m);
    std::string text = printManifest(m);
    expectError([&] { parseManifest(text, "manifest.json"); }, fragment);
  };
  refuses([](Manifest &m) { m.graph.inputs[7].concatOf = {0}; },
          "graph.inputs[7].concat_of: a concatenation has at least two parts");
  refuses([](Manifest &m) { m.graph.inputs[7].concatOf = {0, 7}; },
          "graph.inputs[7].concat_of[1]: graph input 7 is not another input");
  refuses([](Manifest &m) { m.graph.inputs[7].concatOf = {0, 9}; },
          "graph input 9 is not another input");
  refuses([](Manifest &m) { m.graph.inputs[7].concatOf = {0, 0}; },
          "graph.inputs[7].concat_of[1]: graph input 0 (w) is already a part of graph input 7");
  refuses([](Manifest &m) { m.graph.inputs[7].concatOf = {0, 1}; },
          "graph input 1 (wt, f32 [4, 3]) does not stack along dim 0 into f32 [7, 4]");
  refuses([](Manifest &m) { m.graph.inputs[7].shape[0] = Expr::parse("8"); },
          "graph.inputs[7].concat_of: the parts have 7 rows, the input 8");
  refuses([](Manifest &m) { m.graph.inputs[7].dtype = Dtype::F16; },
          "does not stack along dim 0 into f16 [7, 4]");
  refuses([](Manifest &m) { m.graph.inputs[7].weight = m.graph.inputs[0].weight; },
          "only a weight without a \"weight\" of its own is a concatenation");
  refuses([](Manifest &m) { m.version = 2; },
          "graph.inputs[7].concat_of: concatenated weights need format version 3");
  refuses(
      [](Manifest &m) {
        GraphInput again = m.graph.inputs[7];
        again.name = "again";
        m.graph.inputs.push_back(again);
      },
      "graph.inputs[8].concat_of[0]: graph input 0 (w) is already a part of graph input 7");
  refuses(
      [](Manifest &m) {
        GraphInput nested = m.graph.inputs[7];
        nested.name = "nested";
        nested.shape[0] = Expr::parse("14");
        nested.concatOf = {7, 7};
        m.graph.inputs.push_back(nested);
      },
      "graph input 7 (w+w2) is not a plain weight");
}

TEST(RuntimeWeights, RefusesCorruptEntries) {
  TempDir temp;
  std::string dir = temp.path();
  std::string bytes = readFileBytes(archivesDir() + "/model-a.zip");
  writeFile(dir + "/model-a.zip", bytes);
  Manifest m = archiveManifest(dir, "model-a.zip");
  HostDevice device;
  {
    // A CRC-32 that is not the entry's.
    Manifest wrong = m;
    wrong.graph.inputs[0].weight->crc32 ^= 1;
    GraphExecutor executor(wrong, dir, device);
    expectError([&] { executor.uploadWeights(); },
                "weight 'w': the CRC-32 of entry 'model-a/data/0' of '" + dir +
                    "/model-a.zip' is 0x");
  }
  // One bit of data/0 flipped in the file: the same size, another CRC.
  std::string flipped = bytes;
  flipped[size_t(m.graph.inputs[0].weight->offset + 5)] ^= 0x10;
  writeFile(dir + "/model-a.zip", flipped);
  {
    GraphExecutor executor(m, dir, device);
    expectError([&] { executor.uploadWeights(); },
                "weight 'w': the CRC-32 of entry 'model-a/data/0' of '" + dir + "/model-a.zip'");
    expectError([&] { executor.uploadWeights(); }, "the file changed since it was compiled");
  }
  // The deflated entry's stream cut short in the manifest.
  writeFile(dir + "/model-a.zip", bytes);
  {
    Manifest cut = m;
    for (GraphInput &in : cut.graph.inputs)
      if (in.weight->method == ZipMethod::Deflate)
        in.weight->storedBytes -= 4;
    GraphExecutor executor(cut, dir, device);
    expectError([&] { executor.uploadWeights(); },
                "weight 'b' (entry 'model-a/data/1' of '" + dir + "/model-a.zip'): corrupt "
                "deflate data");
  }
  // A changed size is refused before anything is read.
  writeFile(dir + "/model-a.zip", bytes + "trailing");
  {
    GraphExecutor executor(m, dir, device);
    expectError([&] { executor.uploadWeights(); },
                "model-a.zip' changed since it was compiled: it holds " +
                    std::to_string(bytes.size() + 8) + " bytes, but the artifact recorded " +
                    std::to_string(bytes.size()) +
                    " (weights.files[0], whose first weight is 'w')");
  }
}

// A packed weights file: `big` (9 MiB and 12 bytes of a pattern, streamed)
// then `small` (16 bytes, below the streaming size), each its own storage.
Manifest streamedManifest(const std::string &dir, std::string &bytes) {
  const int64_t bigBytes = (int64_t(9) << 20) + 12;
  bytes.resize(size_t(bigBytes + 16));
  uint32_t x = 12345;
  for (char &c : bytes) {
    x = x * 1103515245u + 12345u;
    c = char(x >> 24);
  }
  writeFile(dir + "/weights.bin", bytes);
  Manifest m;
  m.targetChip = "sm_90";
  m.weightFiles = {WeightFile{"weights.bin", int64_t(bytes.size())}};
  auto add = [&](const std::string &name, int64_t offset, int64_t length) {
    GraphInput in;
    in.name = name;
    in.kind = InputKind::Parameter;
    in.dtype = Dtype::F32;
    in.shape = {Expr::parse(std::to_string(length / 4))};
    WeightRef w;
    w.offset = offset;
    w.storedBytes = w.bytes = length;
    w.crc32 = crc32Update(0, bytes.data() + offset, size_t(length));
    w.strides = {1};
    in.weight = w;
    addWeightAsOutput(m, std::move(in));
  };
  add("big", 0, bigBytes);
  add("small", bigBytes, 16);
  return m;
}

TEST(RuntimeWeights, StreamsLargeStoragesAndChecksTheirCrc) {
  TempDir temp;
  std::string dir = temp.path(), bytes;
  Manifest m = streamedManifest(dir, bytes);
  HostDevice device;
  std::ostringstream verbose;
  ExecutorOptions options;
  options.verbose = &verbose;
  GraphExecutor executor(m, dir, device, options);
  executor.uploadWeights();
  const WeightLoadStats &stats = executor.weightStats();
  EXPECT_EQ(stats.tensors, 2);
  EXPECT_EQ(stats.storages, 2);
  EXPECT_EQ(stats.streamed, 1); // big; small is copied from the mapping
  EXPECT_EQ(stats.bytesRead, int64_t(bytes.size()));
  EXPECT_EQ(stats.bytesUploaded, int64_t(bytes.size()));
  EXPECT_EQ(device.numFilledChunks, 3); // 9 MiB + 12 bytes in chunks of 3 MiB + 4097
  EXPECT_NE(verbose.str().find("weights: 2 storage(s) (0 inflated, 1 streamed), "),
            std::string::npos)
      << verbose.str();
  std::vector<DeviceTensor> outputs = executor.run();
  ASSERT_EQ(outputs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    HostTensor t = executor.download(outputs[i]);
    int64_t offset = m.graph.inputs[i].weight->offset;
    ASSERT_EQ(int64_t(t.bytes.size()), m.graph.inputs[i].weight->bytes);
    EXPECT_EQ(std::memcmp(t.bytes.data(), bytes.data() + offset, t.bytes.size()), 0)
        << m.graph.inputs[i].name;
  }

  // One byte flipped in the last chunk.
  std::string flipped = bytes;
  flipped[size_t(8 << 20) + 100] ^= 0x40;
  writeFile(dir + "/weights.bin", flipped);
  expectError([&] { executor.uploadWeights(); },
              "weight 'big': the CRC-32 of bytes 0..9437196 of '" + dir + "/weights.bin' is 0x");
  expectError([&] { executor.uploadWeights(); },
              "the file changed since it was compiled, or is corrupt");
}

TEST(RuntimeWeights, RebindsToAnotherArchive) {
  // The artifact was compiled against model-a; model-b holds the same
  // entries in another folder, order and methods, with other values.
  Manifest m = archiveManifest(archivesDir(), "model-a.zip");
  Manifest rebound = m;
  std::string other = archivesDir() + "/model-b.zip";
  rebindWeights(rebound, other);
  ASSERT_EQ(rebound.weightFiles.size(), 1u);
  EXPECT_EQ(rebound.weightFiles[0].path, other); // already absolute
  EXPECT_EQ(rebound.weightFiles[0].bytes, int64_t(readFileBytes(other).size()));
  ZipDirectory zip = readZipDirectory(other);
  const WeightRef &w = *rebound.graph.inputs[0].weight;
  EXPECT_EQ(w.entry, "model-b/data/0");
  EXPECT_EQ(w.method, ZipMethod::Deflate);
  EXPECT_EQ(w.offset, zip.find("model-b/data/0")->dataOffset);
  EXPECT_EQ(w.crc32, zip.find("model-b/data/0")->crc32);
  EXPECT_EQ(rebound.graph.inputs[1].weight->strides, (std::vector<int64_t>{1, 4})); // the view stays
  EXPECT_EQ(rebound.graph.inputs[2].weight->storageOffset, 5);
  EXPECT_EQ(rebound.graph.inputs[2].weight->method, ZipMethod::Stored);

  HostDevice device;
  // The artifact directory no longer matters: the archive's path is absolute.
  TempDir temp;
  GraphExecutor executor(rebound, temp.path(), device);
  executor.uploadWeights();
  EXPECT_EQ(executor.weightStats().inflated, 1);
  expectArchiveWeights(executor, "model-b");

  // A relative archive path is made absolute (magi-run's is relative to the
  // working directory, not to the artifact).
  Manifest relative = m;
  std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(archivesDir());
  rebindWeights(relative, "model-b.zip");
  std::filesystem::current_path(cwd);
  EXPECT_EQ(relative.weightFiles[0].path, archivesDir() + "/model-b.zip");
}

TEST(RuntimeWeights, RebindingListsEveryMismatch) {
  Manifest m = archiveManifest(archivesDir(), "model-a.zip");
  Manifest before = m;
  std::string bad = archivesDir() + "/model-bad.zip";
  try {
    rebindWeights(m, bad);
    ADD_FAILURE() << "model-bad.zip was accepted";
  } catch (const RuntimeError &e) {
    std::string message = e.what();
    for (const std::string &line : std::vector<std::string>{
             "'" + bad + "' does not hold the artifact's weights (5 problem(s)):",
             "\n  weight 'w' (entry 'model-a/data/0'): the archive has no entry '<folder>/data/0'",
             "\n  weight 'wt' (entry 'model-a/data/0'): the archive has no entry",
             "\n  weight 'b' (entry 'model-a/data/1'): its view (f32 [2], storage offset 5, "
             "strides [1]) does not fit entry 'model-bad/data/1', which holds 16 bytes: it "
             "reaches byte 28 of storage that holds 16",
             "\n  weight 'cols' (entry 'model-a/data/1'): its view (f32 [4, 2], storage offset "
             "1, strides [1, 8]) does not fit",
             "\n  weight 's' (entry 'model-a/data/0'): the archive has no entry"})
      EXPECT_NE(message.find(line), std::string::npos) << message << "\nmissing: " << line;
    EXPECT_EQ(message.find("'idx'"), std::string::npos) << message; // data/2 fits
  }
  // Nothing was changed.
  EXPECT_EQ(printManifest(m), printManifest(before));
  expectError([&] { rebindWeights(m, archivesDir() + "/missing.zip"); },
              "cannot open '" + archivesDir() + "/missing.zip'");
  expectError([&] { rebindWeights(m, selftestDir() + "/artifact/weights.bin"); },
              "not a zip archive");
}

TEST(RuntimeWeights, PackedWeightsCannotBeRebound) {
  Manifest m = loadManifest(selftestDir() + "/artifact");
  expectError([&] { rebindWeights(m, archivesDir() + "/model-b.zip"); },
              "the artifact's weights are packed into its own weights.bin (magi-compile "
              "--pack-weights), not read from zip entries: weight 'linear.weight' has no entry "
              "name to look up in another archive");
}

// A storage large enough that its CRC-32 is computed on worker threads
// while its weights upload: a dense view and a transposed one of it.
TEST(RuntimeWeights, LargeStorages) {
  TempDir temp;
  std::string dir = temp.path();
  const int64_t rows = 1024, cols = 1280; // 5 MiB of f32
  std::vector<float> values(size_t(rows * cols));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = float(i % 1000003);
  std::string bytes(reinterpret_cast<const char *>(values.data()), values.size() * 4);
  writeFile(dir + "/weights.bin", "header" + bytes);
  Manifest m;
  m.weightFiles = {WeightFile{"weights.bin", int64_t(bytes.size() + 6)}};
  for (bool transposed : {false, true}) {
    GraphInput in;
    in.name = transposed ? "big.t" : "big";
    in.kind = InputKind::Constant;
    in.shape = {Expr::parse(std::to_string(transposed ? cols : rows)),
                Expr::parse(std::to_string(transposed ? rows : cols))};
    WeightRef w;
    w.offset = 6;
    w.storedBytes = w.bytes = int64_t(bytes.size());
    w.crc32 = crc32Update(0, bytes.data(), bytes.size());
    w.strides = transposed ? std::vector<int64_t>{1, cols} : std::vector<int64_t>{cols, 1};
    in.weight = w;
    addWeightAsOutput(m, std::move(in));
  }
  HostDevice device;
  {
    GraphExecutor executor(m, dir, device);
    executor.uploadWeights();
    EXPECT_EQ(executor.weightStats().storages, 1);
    EXPECT_EQ(executor.weightStats().gathered, 1);
    std::vector<DeviceTensor> outputs = executor.run();
    HostTensor dense = executor.download(outputs[0]), t = executor.download(outputs[1]);
    EXPECT_EQ(std::memcmp(dense.bytes.data(), bytes.data(), bytes.size()), 0);
    bool same = true;
    for (int64_t i = 0; i < cols && same; ++i)
      for (int64_t j = 0; j < rows && same; ++j)
        same = t.getDouble(i * rows + j) == values[size_t(j * cols + i)];
    EXPECT_TRUE(same);
  }
  m.graph.inputs[1].weight->crc32 ^= 0x80000000u;
  m.graph.inputs[0].weight->crc32 ^= 0x80000000u;
  GraphExecutor executor(m, dir, device);
  expectError([&] { executor.uploadWeights(); },
              "weight 'big': the CRC-32 of bytes 6..5242886 of '" + dir + "/weights.bin' is ");
}

// crc32Update folds with carry-less multiplication where the CPU can; it
// must be zlib's CRC at every length, alignment and starting CRC.
TEST(RuntimeZip, Crc32IsZlibsAtEveryLengthAndAlignment) {
  std::vector<unsigned char> data((size_t(1) << 20) + 77);
  uint32_t state = 7;
  for (unsigned char &b : data)
    b = (unsigned char)((state = state * 1103515245u + 12345u) >> 24);
  for (size_t length = 0; length <= 600; ++length)
    for (size_t align : {0, 1, 7, 8, 15}) {
      uint32_t start = uint32_t(length * 2654435761u);
      EXPECT_EQ(crc32Update(start, data.data() + align, length),
                uint32_t(::crc32(start, data.data() + align, uInt(length))))
          << length << " bytes at +" << align;
    }
  for (size_t length : {size_t(4096), size_t(65536) + 15, data.size() - 3})
    EXPECT_EQ(crc32Update(0, data.data() + 3, length),
              uint32_t(::crc32(0, data.data() + 3, uInt(length))))
        << length;
  // All zeros and all ones, and continuing where a first part ended.
  std::vector<unsigned char> zeros(1000, 0), ones(1000, 0xFF);
  EXPECT_EQ(crc32Update(0, zeros.data(), zeros.size()), uint32_t(::crc32(0, zeros.data(), 1000)));
  EXPECT_EQ(crc32Update(0, ones.data(), ones.size()), uint32_t(::crc32(0, ones.data(), 1000)));
  EXPECT_EQ(crc32Update(crc32Update(0, data.data(), 100), data.data() + 100, 900),
            crc32Update(0, data.data(), 1000));
}

TEST(RuntimeWeights, BalancedPieces) {
  const int64_t mb = int64_t(1) << 20, kb = 1024;
  // A 64 MiB upload chunk: 32 pieces of 2 MiB, two full rounds of 16.
  EXPECT_EQ(balancedPieceBytes(64 * mb, 16, 2 * mb, 256 * kb), 2 * mb);
  // A 4096x4096 bf16 weight (32 MiB + a little): 32 pieces of just over
  // 1 MiB, not 17 of 2 MiB (a second round with one piece).
  int64_t w = 4096 * 4096 * 2 + 100;
  int64_t piece = balancedPieceBytes(w, 16, 2 * mb, 256 * kb);
  EXPECT_EQ((w + piece - 1) / piece, 32);
  EXPECT_EQ(piece % 4096, 0);
  // The 26 MiB tail of a 90 MB storage: one round of 16.
  piece = balancedPieceBytes(26 * mb, 16, 2 * mb, 256 * kb);
  EXPECT_EQ((26 * mb + piece - 1) / piece, 16);
  // Small uploads stay in pieces of at least the minimum; nothing is empty.
  EXPECT_EQ(balancedPieceBytes(1 * mb, 16, 2 * mb, 256 * kb), 256 * kb);
  EXPECT_EQ(balancedPieceBytes(10, 16, 2 * mb, 256 * kb), 256 * kb);
  EXPECT_EQ(balancedPieceBytes(0, 16, 2 * mb, 256 * kb), 1);
  EXPECT_EQ(balancedPieceBytes(5 * mb, 1, 2 * mb, 256 * kb), 5 * mb / 3 / 4096 * 4096 + 4096);
}

TEST(RuntimeWeights, ParallelCrcAndViews) {
  std::vector<unsigned char> data((size_t(9) << 20) + 12345);
  uint32_t state = 1;
  for (unsigned char &b : data)
    b = (unsigned char)((state = state * 1103515245u + 12345u) >> 24);
  uint32_t serial = crc32Update(0, data.data(), data.size());
  EXPECT_EQ(crc32Parallel(data.data(), data.size()), serial);
  for (size_t chunk : {size_t(1) << 20, size_t(777777), data.size(), data.size() * 2})
    for (unsigned threads : {1u, 3u, 8u})
      EXPECT_EQ(crc32Parallel(data.data(), data.size(), chunk, threads), serial)
          << chunk << " " << threads;
  EXPECT_EQ(crc32Parallel(data.data(), 0, 1024, 4), 0u);

  EXPECT_TRUE(isDenseView({2, 3}, {3, 1}));
  EXPECT_TRUE(isDenseView({2, 1, 3}, {3, 99, 1})); // a size of 1 has any stride
  EXPECT_TRUE(isDenseView({}, {}));
  EXPECT_TRUE(isDenseView({4, 0}, {5, 7})); // empty
  EXPECT_FALSE(isDenseView({2, 3}, {1, 2}));
  EXPECT_FALSE(isDenseView({2, 3}, {4, 1})); // padded rows
  EXPECT_FALSE(isDenseView({2}, {1, 1}));

  // A 2x3x2 view with a negative and a zero stride (a broadcast), 2-byte
  // elements.
  std::vector<uint16_t> storage(20);
  for (size_t i = 0; i < storage.size(); ++i)
    storage[i] = uint16_t(i);
  std::vector<uint16_t> out(12);
  gatherView(reinterpret_cast<const unsigned char *>(storage.data()), 2, {2, 3, 2}, {-6, 0, 3},
             10, reinterpret_cast<unsigned char *>(out.data()));
  EXPECT_EQ(out, (std::vector<uint16_t>{10, 13, 10, 13, 10, 13, 4, 7, 4, 7, 4, 7}));

  // Permutations of a dense [a, b, c] storage (transposes are copied in
  // blocks), sizes around the block size, 1- to 8-byte and 3-byte
  // elements, against an element-by-element copy.
  struct Case {
    std::vector<int64_t> sizes; // of the storage, row-major
    std::vector<size_t> perm;   // view dimension d is storage dimension perm[d]
  };
  for (const Case &c : std::vector<Case>{{{3, 130, 70}, {0, 2, 1}},
                                         {{65, 2, 129}, {2, 1, 0}},
                                         {{5, 64, 64}, {1, 2, 0}},
                                         {{1, 7, 200}, {2, 0, 1}},
                                         {{2, 3, 4}, {0, 1, 2}}})
    for (int64_t size : {1, 2, 3, 4, 8}) {
      std::vector<int64_t> storageStrides = {c.sizes[1] * c.sizes[2], c.sizes[2], 1};
      std::vector<int64_t> shape, strides;
      for (size_t d : c.perm) {
        shape.push_back(c.sizes[d]);
        strides.push_back(storageStrides[d]);
      }
      int64_t n = numElements(c.sizes);
      std::vector<unsigned char> bytes(size_t(n * size));
      for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = (unsigned char)(i * 7 + i / 251);
      std::vector<unsigned char> got(bytes.size()), want(bytes.size());
      gatherView(bytes.data(), size, shape, strides, 0, got.data());
      for (int64_t e = 0; e < n; ++e) {
        int64_t rest = e, at = 0;
        for (size_t d = shape.size(); d-- > 0;) {
          at += rest % shape[d] * strides[d];
          rest /= shape[d];
        }
        std::memcpy(&want[size_t(e * size)], &bytes[size_t(at * size)], size_t(size));
      }
      EXPECT_TRUE(got == want) << formatShape(shape) << " strides " << formatShape(strides)
                               << ", " << size << "-byte elements";
    }
}

} // namespace

// A manifest whose graph mutates two buffers: output 7 (weight w) is the
// new value of buffer "cache" (copied back), output 8 of buffer "kept"
// (itself: in place). Outputs 0-5 are the archive's weights, output 6 the
// cache's memory.
Manifest mutationManifest() {
  Manifest m = archiveManifest(archivesDir(), "model-a.zip");
  m.version = kArtifactVersion;
  GraphInput cache = m.graph.inputs[0]; // w's storage, another view of it
  cache.name = "cache";
  cache.kind = InputKind::Buffer;
  cache.weight->strides = {1, 3};
  addWeightAsOutput(m, cache); // input 6, output 6
  GraphInput kept = m.graph.inputs[0];
  kept.name = "kept";
  kept.kind = InputKind::Buffer;
  m.graph.inputs.push_back(kept); // input 7
  ValueRef w, itself;
  w.kind = itself.kind = ValueRef::Kind::Input;
  w.index = 0;
  itself.index = 7;
  m.graph.outputs.push_back(w);      // output 7
  m.graph.outputs.push_back(itself); // output 8
  m.graph.mutations = {GraphMutation{7, 6}, GraphMutation{8, 7}};
  return m;
}

TEST(RuntimeExecutor, WritesBackMutations) {
  Manifest m = parseManifest(printManifest(mutationManifest()), "manifest.json");
  ASSERT_EQ(m.graph.mutations.size(), 2u);
  EXPECT_EQ(m.graph.numUserOutputs(), 7u);
  HostDevice device;
  GraphExecutor executor(m, archivesDir(), device);
  executor.uploadWeights();
  std::vector<DeviceTensor> outputs = executor.run();
  ASSERT_EQ(outputs.size(), 7u); // the mutations are not returned
  EXPECT_EQ(executor.mutationStats().inPlace, 1);
  EXPECT_EQ(executor.mutationStats().copied, 1);
  EXPECT_EQ(executor.mutationStats().copiedBytes, 48);
  EXPECT_EQ(device.numCopies, 1);
  EXPECT_EQ(executor.mutationStats().describe(),
            "mutations: 1 written in place, 1 copied back (48 bytes)");
  // The cache now holds w.
  HostTensor cache = executor.download(outputs[6]);
  HostTensor w = executor.download(outputs[0]);
  ASSERT_EQ(cache.shape, (std::vector<int64_t>{3, 4}));
  for (int64_t e = 0; e < 12; ++e)
    EXPECT_EQ(cache.getDouble(e), w.getDouble(e)) << "element " << e;
}

TEST(RuntimeExecutor, MutatedUserInputsStayWhereTheCallerHasThem) {
  // "kept" as a user input the graph mutates (in place): given at a new
  // address every call, it is still never copied, since its new value
  // belongs in the caller's memory.
  Manifest m = mutationManifest();
  GraphInput &kept = m.graph.inputs[7];
  kept.kind = InputKind::UserInput;
  kept.weight.reset();
  HostDevice device;
  GraphExecutor executor(m, archivesDir(), device);
  executor.uploadWeights();
  for (int call = 0; call < 3; ++call) {
    DeviceTensor t;
    t.dtype = kept.dtype;
    t.shape = {3, 4};
    t.ptr = device.allocate(t.byteSize());
    executor.setDeviceInputs({t});
    EXPECT_EQ(executor.inputStats().staged, 0) << "call " << call;
    executor.run();
    EXPECT_EQ(executor.mutationStats().inPlace, 1) << "call " << call;
  }
}

TEST(RuntimeManifest, RefusesBadMutations) {
  auto refuses = [](std::function<void(Manifest &)> edit, const std::string &fragment) {
    Manifest m = mutationManifest();
    edit(m);
    std::string text = printManifest(m);
    expectError([&] { parseManifest(text, "manifest.json"); }, fragment);
  };
  refuses([](Manifest &m) { m.version = 4; },
          "graph.mutations: mutations need format version 5");
  refuses([](Manifest &m) { m.graph.mutations[1].output = 9; },
          "graph.mutations[1].output: graph output 9 does not exist");
  refuses([](Manifest &m) { m.graph.mutations[1].output = 7; },
          "graph.mutations[1].output: mutations must be listed by increasing output");
  refuses([](Manifest &m) { m.graph.mutations[1].input = 8; },
          "graph.mutations[1].input: graph input 8 does not exist");
  refuses([](Manifest &m) { m.graph.mutations[1].input = 6; },
          "graph input 6 (cache) is mutated twice");
  refuses([](Manifest &m) { m.graph.mutations[1].input = 0; },
          "graph input 0 (w) is no buffer or user_input: only those are mutated");
  refuses([](Manifest &m) { m.graph.outputs[8].index = 4; }, // idx, an i64 tensor
          "the new value of input 7 (kept)");
}

//===--- Padding to the compile sizes ------------------------------------===//

namespace {

// A graph whose output is its user input x, f32 [2, s0, 3], and whose one
// piece only passes s0 on: specialized for s0 = 4 and 6, and for any size.
std::string passThroughManifest(const std::string &xShape = "[2, \"s0\", 3]") {
  std::string variant = R"({"symbols": SYMBOLS, "ptx": "pieces/p.ptx", "cubin": null,
      "kernels": [], "values": [], "plan": [], "results": [{"index": "arg0"}]})";
  auto withSymbols = [&](const std::string &symbols) {
    std::string v = variant;
    return v.replace(v.find("SYMBOLS"), 7, symbols);
  };
  return R"({"format": "magi-artifact", "version": 8,
  "producer": {"magi": null, "llvm": null, "ptxas": null},
  "target": {"chip": "sm_90", "features": "+ptx80", "triple": "nvptx64-nvidia-cuda"},
  "source": {"file": "none", "sha256": ""}, "weights": {"files": []},
  "graph": {
    "inputs": [{"name": "x", "kind": "user_input", "dtype": "f32", "shape": )" +
         xShape + R"(}],
    "symbols": [{"name": "s0", "min": 1, "max": 16, "input": 0, "dim": 1}],
    "steps": [{"piece": 0, "args": [{"symbol": "s0"}]}],
    "outputs": [{"input": 0}],
    "output_shapes": [)" +
         xShape + R"(]},
  "pieces": [{"index": 0, "name": "pass_s0", "kind": "compute", "graph_index": 0,
    "cuda_graph": true, "args": [{"kind": "index"}], "results": [{"kind": "index"}],
    "variants": [)" +
         withSymbols(R"({"s0": 4})") + ", " + withSymbols(R"({"s0": 6})") + ", " +
         withSymbols("{}") + "]}]}";
}

HostTensor rowsTensor(int64_t size) {
  HostTensor t;
  t.dtype = Dtype::F32;
  t.shape = {2, size, 3};
  for (int64_t e = 0; e < 2 * size * 3; ++e) {
    float v = float(e + 1);
    const auto *bytes = reinterpret_cast<const uint8_t *>(&v);
    t.bytes.insert(t.bytes.end(), bytes, bytes + 4);
  }
  return t;
}

} // namespace

TEST(RuntimePadding, RunsTheNextCompileSizeAndCutsTheOutputsBack) {
  Manifest m = parseManifest(passThroughManifest(), "manifest.json");
  ASSERT_EQ(m.graph.outputShapes.size(), 1u);
  PaddingPlan plan = planPadding(m);
  EXPECT_EQ(plan.symbol, "s0");
  EXPECT_EQ(plan.sizes, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(plan.inputDims, (std::map<size_t, size_t>{{0, 1}}));
  EXPECT_EQ(plan.outputDims, (std::map<size_t, size_t>{{0, 1}}));
  EXPECT_EQ(paddedSize(plan, 3), std::optional<int64_t>(4));
  EXPECT_EQ(paddedSize(plan, 5), std::optional<int64_t>(6));
  EXPECT_EQ(paddedSize(plan, 4), std::nullopt);
  EXPECT_EQ(paddedSize(plan, 7), std::nullopt);

  HostDevice device;
  std::ostringstream verbose;
  ExecutorOptions options;
  options.padToCompileSizes = true;
  options.verbose = &verbose;
  GraphExecutor executor(m, ".", device, options);
  for (int64_t size : {3, 5, 4, 7}) {
    HostTensor x = rowsTensor(size);
    executor.setInputs({x});
    const PaddingStats &stats = executor.paddingStats();
    EXPECT_EQ(stats.given, size);
    int64_t expectedSize = size == 3 ? 4 : size == 5 ? 6 : size;
    EXPECT_EQ(stats.padded, expectedSize != size) << size;
    EXPECT_EQ(stats.size, expectedSize);
    EXPECT_EQ(executor.symbols().at("s0"), expectedSize);
    int copies = device.numCopies;
    std::vector<DeviceTensor> outputs = executor.run();
    ASSERT_EQ(outputs.size(), 1u);
    // Two rows (the dimension before s0) cut and packed: one copy each.
    EXPECT_EQ(device.numCopies - copies, stats.padded ? 2 : 0) << size;
    HostTensor out = executor.download(outputs[0]);
    EXPECT_EQ(out.shape, x.shape) << size;
    EXPECT_EQ(out.bytes, x.bytes) << size;
  }
  std::string text = verbose.str();
  EXPECT_NE(text.find("padding: s0 = 3 runs as 4 (the next compile size)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("padding: s0 = 4 runs unpadded (a compile size)"), std::string::npos);
  EXPECT_NE(text.find("padding: s0 = 7 runs unpadded (above every compile size)"),
            std::string::npos);
}

TEST(RuntimePadding, PadsDeviceInputsWithZerosIntoBuffersThatStay) {
  Manifest m = parseManifest(passThroughManifest(), "manifest.json");
  HostDevice device;
  ExecutorOptions options;
  options.padToCompileSizes = true;
  GraphExecutor executor(m, ".", device, options);
  DevicePtr padded = 0;
  for (int call = 0; call < 3; ++call) {
    // A new address every call, 3 rows (padded to 4), then 2 (to 4 again).
    HostTensor x = rowsTensor(call == 2 ? 2 : 3);
    int64_t size = x.shape[1];
    DeviceTensor given{device.allocate(int64_t(x.bytes.size())), Dtype::F32, x.shape};
    device.upload(given.ptr, x.bytes.data(), int64_t(x.bytes.size()));
    int allocations = device.numAllocations;
    executor.setDeviceInputs({given});
    EXPECT_TRUE(executor.paddingStats().padded);
    EXPECT_EQ(executor.paddingStats().size, 4);
    // The padded copy is a buffer that stays: nothing staged, allocated once.
    EXPECT_EQ(executor.inputStats().staged, 0);
    if (call == 0) {
      EXPECT_EQ(device.numAllocations, allocations + 1);
      padded = device.lastAllocation;
    } else {
      EXPECT_EQ(device.numAllocations, allocations);
    }
    const float *rows = reinterpret_cast<const float *>(padded);
    const float *xs = reinterpret_cast<const float *>(x.bytes.data());
    for (int64_t outer = 0; outer < 2; ++outer)
      for (int64_t row = 0; row < 4; ++row)
        for (int64_t col = 0; col < 3; ++col)
          EXPECT_EQ(rows[(outer * 4 + row) * 3 + col],
                    row < size ? xs[(outer * size + row) * 3 + col] : 0.0f)
              << "call " << call << " at " << outer << ", " << row << ", " << col;
    HostTensor out = executor.download(executor.run()[0]);
    EXPECT_EQ(out.shape, x.shape);
    EXPECT_EQ(out.bytes, x.bytes);
  }
}

TEST(RuntimePadding, SelftestRunsTheSpecializedVariant) {
  // The self-test artifact (version 2) with its output shapes: s0 = 2 runs
  // as 3, variant 0, and gives the first two rows of a run at 3 on the
  // input padded by hand.
  Manifest m = loadManifest(selftestDir() + "/artifact");
  m.version = kArtifactVersion;
  m.graph.outputShapes = {{Expr::parse("s0"), Expr::parse("4")},
                          {Expr::parse("s0"), Expr::parse("8")}};
  m = parseManifest(printManifest(m), "manifest.json");
  std::string prefix = selftestDir() + "/fixture/case1";
  HostTensor three = readRawTensor(prefix + "_in0.bin", prefix + "_in0.json");
  ASSERT_EQ(three.shape, (std::vector<int64_t>{3, 8}));
  HostTensor two = three, zeroPadded = three;
  two.shape = {2, 8};
  two.bytes.resize(2 * 8 * 4);
  std::fill(zeroPadded.bytes.begin() + 2 * 8 * 4, zeroPadded.bytes.end(), 0);

  auto runOn = [&](const HostTensor &x, bool pad, std::ostringstream &verbose) {
    HostDevice device;
    ExecutorOptions options;
    options.padToCompileSizes = pad;
    options.verbose = &verbose;
    GraphExecutor executor(m, selftestDir() + "/artifact", device, options);
    executor.uploadWeights();
    executor.setInputs({x});
    std::vector<HostTensor> out;
    for (const DeviceTensor &t : executor.run())
      out.push_back(executor.download(t));
    return out;
  };
  std::ostringstream paddedLog, referenceLog;
  std::vector<HostTensor> padded = runOn(two, true, paddedLog);
  std::vector<HostTensor> reference = runOn(zeroPadded, false, referenceLog);
  ASSERT_EQ(padded.size(), 2u);
  EXPECT_NE(paddedLog.str().find("piece 0 (selftest_piece_0, compute), variant 0"),
            std::string::npos)
      << paddedLog.str();
  for (size_t i = 0; i < 2; ++i) {
    int64_t width = i == 0 ? 4 : 8;
    EXPECT_EQ(padded[i].shape, (std::vector<int64_t>{2, width}));
    std::vector<uint8_t> firstRows(reference[i].bytes.begin(),
                                   reference[i].bytes.begin() + 2 * width * 4);
    EXPECT_EQ(padded[i].bytes, firstRows) << "output " << i;
  }
}

TEST(RuntimePadding, RefusesWhatItCannotPad) {
  auto refuses = [](const std::string &text, const std::string &fragment) {
    Manifest m = parseManifest(text, "manifest.json");
    HostDevice device;
    ExecutorOptions options;
    options.padToCompileSizes = true;
    expectError([&] { GraphExecutor executor(m, ".", device, options); }, fragment);
  };
  refuses(selftestManifest(), "the artifact records no output shapes (graph.output_shapes, "
                              "format 8): compile it again");
  refuses(passThroughManifest(R"([2, "s0 * 2", 3])"),
          "user input 0 ('x') has size 's0 * 2' in dimension 1: only a size that is s0 "
          "itself can be padded");
  refuses(passThroughManifest(R"([2, "s0", "s0"])"),
          "user input 0 ('x') has s0 in dimensions 1 and 2: padding pads one dimension");
  std::string unspecialized = passThroughManifest();
  for (std::string from : {R"({"s0": 4})", R"({"s0": 6})"})
    unspecialized.replace(unspecialized.find(from), from.size(), "{}");
  refuses(unspecialized, "no variant is specialized for a size of s0 (compile with "
                         "--compile-sizes)");
  // An output without s0 (a pooled vector, the last position's logits), and
  // a graph that writes an input (a KV cache).
  Manifest pooled = parseManifest(passThroughManifest(), "manifest.json");
  GraphInput y;
  y.name = "y";
  y.dtype = Dtype::F32;
  y.shape = {Expr::parse("4")};
  pooled.graph.inputs.push_back(y);
  pooled.graph.outputs.push_back(ValueRef{ValueRef::Kind::Input, 1, 0, "", 0});
  pooled.graph.outputShapes.push_back({Expr::parse("4")});
  expectError([&] { planPadding(pooled); },
              "output 1 has no dimension s0 to cut back: what it holds for a padded sequence "
              "(its last position's, a pooled value) is not the unpadded one's");
  Manifest writes = pooled;
  writes.graph.mutations.push_back(GraphMutation{1, 1});
  expectError([&] { planPadding(writes); },
              "the graph writes 'y' (graph.mutations): the padded positions would be written too");
  // A graph that chooses on the size would choose for the padded one: a
  // branch on it, or a piece whose control flow on it folded for each
  // compile size (no variant for any size).
  Manifest branches = parseManifest(passThroughManifest(), "manifest.json");
  GraphBranch branch;
  branch.condition = Expr::parse("gt(s0, 3)");
  branch.thenResults = branch.elseResults = {ValueRef{ValueRef::Kind::Input, 0, 0, "", 0}};
  branches.graph.branches.push_back(branch);
  expectError([&] { planPadding(branches); },
              "branch 0's condition (gt(s0, 3)) reads s0, and a padded run would choose for the "
              "padded size");
  Manifest folded = parseManifest(passThroughManifest(), "manifest.json");
  folded.pieces[0].variants.pop_back();
  expectError([&] { planPadding(folded); },
              "piece 0 (pass_s0) has no variant for any size (control flow on s0 folded for each "
              "compile size), and a padded run would take the padded size's way");
  // Without the option nothing is checked.
  Manifest m = parseManifest(passThroughManifest(R"([2, "s0", "s0"])"), "manifest.json");
  HostDevice device;
  GraphExecutor executor(m, ".", device);
  EXPECT_FALSE(executor.paddingPlan());
}

TEST(RuntimeManifest, ReadsAndChecksOutputShapes) {
  Manifest m = parseManifest(passThroughManifest(), "manifest.json");
  ASSERT_EQ(m.graph.outputShapes.size(), 1u);
  EXPECT_EQ(m.graph.outputShapes[0][1].text(), "s0");
  EXPECT_EQ(parseManifest(printManifest(m), "manifest.json").graph.outputShapes.size(), 1u);
  auto refuses = [](std::string text, const std::string &from, const std::string &to,
                    const std::string &fragment) {
    size_t at = text.rfind(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    expectError([&] { parseManifest(text, "manifest.json"); }, fragment);
  };
  std::string text = passThroughManifest();
  refuses(text, R"("output_shapes": [[2, "s0", 3]])", R"("output_shapes": [])",
          "graph.output_shapes: has 0 shape(s) for 1 output(s)");
  refuses(text, R"("output_shapes": [[2, "s0", 3]])", R"("output_shapes": [[2, "s0"]])",
          "graph.output_shapes[0]: has 2 size(s), but output 0 has rank 3");
  refuses(text, R"("output_shapes": [[2, "s0", 3]])", R"("output_shapes": [[2, "s9", 3]])",
          "graph.output_shapes[0][1]: \"s9\" uses 's9', which is not a graph symbol");
  refuses(text, R"("version": 8)", R"("version": 7)",
          "graph.output_shapes: output shapes need format version 8");
}

TEST(RuntimePadding, TurnedOnAndOffBetweenBinds) {
  Manifest m = parseManifest(passThroughManifest(), "manifest.json");
  HostDevice device;
  GraphExecutor executor(m, ".", device);
  HostTensor x = rowsTensor(3);
  executor.setInputs({x});
  EXPECT_FALSE(executor.paddingStats().padded);
  EXPECT_EQ(executor.symbols().at("s0"), 3);
  executor.setPadToCompileSizes(true);
  executor.setInputs({x});
  EXPECT_TRUE(executor.paddingStats().padded);
  EXPECT_EQ(executor.symbols().at("s0"), 4);
  // Off after a padded bind: that bind's run is still cut back.
  executor.setPadToCompileSizes(false);
  HostTensor out = executor.download(executor.run()[0]);
  EXPECT_EQ(out.bytes, x.bytes);
  executor.setInputs({x});
  EXPECT_FALSE(executor.paddingStats().padded);
  EXPECT_EQ(executor.symbols().at("s0"), 3);
  EXPECT_EQ(executor.download(executor.run()[0]).bytes, x.bytes);
  // An artifact that cannot be padded is refused when it is turned on.
  Manifest old = loadManifest(selftestDir() + "/artifact");
  GraphExecutor selftest(old, selftestDir() + "/artifact", device);
  expectError([&] { selftest.setPadToCompileSizes(true); }, "records no output shapes");
}

TEST(RuntimePadding, RefusesAPieceThatHasOnlyItsCompileSizes) {
  // A piece with control flow on the size has no variant for any size
  // (docs/compile.md, Limits): unpadded, s0 = 3 is refused; padded, it
  // would run the way the padded size takes, so padding is refused too.
  std::string text = passThroughManifest();
  std::string general = R"(, {"symbols": {}, )";
  size_t at = text.find(general);
  ASSERT_NE(at, std::string::npos);
  size_t end = text.find('}', text.find("\"results\"", at)) + 2; // past "}]"
  end = text.find('}', end) + 1;
  text.erase(at, end - at);
  Manifest m = parseManifest(text, "manifest.json");
  ASSERT_EQ(m.pieces[0].variants.size(), 2u);
  HostTensor x = rowsTensor(3);
  HostDevice device;
  GraphExecutor executor(m, ".", device);
  executor.setInputs({x});
  expectError([&] { executor.run(); }, "has no variant for s0=3 and no general variant");
  expectError([&] { executor.setPadToCompileSizes(true); },
              "piece 0 (pass_s0) has no variant for any size");
  // The compile sizes themselves run.
  executor.setInputs({rowsTensor(4)});
  EXPECT_EQ(executor.download(executor.run()[0]).bytes, rowsTensor(4).bytes);
}

namespace {

// A graph that reads a count on the host (format 9): step 0 reads n's
// element (at most 8), which defines the symbol u0; step 1 gives the first
// u0 elements of x, with a buffer planned at the bound. A check on u0
// waits for the read.
std::string readCountManifest(const std::string &version = "9") {
  return R"json({"format": "magi-artifact", "version": )json" + version + R"json(,
  "producer": {"magi": null, "llvm": null, "ptxas": null},
  "target": {"chip": "sm_90", "features": "+ptx80", "triple": "nvptx64-nvidia-cuda"},
  "source": {"file": "none", "sha256": ""}, "weights": {"files": []},
  "graph": {
    "inputs": [{"name": "n", "kind": "user_input", "dtype": "i64", "shape": []},
               {"name": "x", "kind": "user_input", "dtype": "f32", "shape": [8]}],
    "symbols": [{"name": "u0", "min": 0, "max": 8, "step": 0, "result": 0}],
    "checks": [{"expr": "le(u0, 6)", "message": "u0 <= 6"}],
    "steps": [{"piece": 0, "args": [{"input": 0}]},
              {"piece": 1, "args": [{"input": 1}, {"step": 0, "result": 0}]}],
    "outputs": [{"step": 1, "result": 0}],
    "output_shapes": [["u0"]]},
  "pieces": [
    {"index": 0, "name": "read_count", "kind": "splitting", "graph_index": null,
     "cuda_graph": false, "args": [{"kind": "tensor", "dtype": "i64", "rank": 0}],
     "results": [{"kind": "index"}],
     "variants": [{"symbols": {}, "kernels": [], "values": [], "plan": [],
       "results": [{"read": {"base": "arg0", "offset": 0, "sizes": [], "strides": []},
                    "dtype": "i64", "bound": 8}]}]},
    {"index": 1, "name": "take", "kind": "compute", "graph_index": 0,
     "cuda_graph": true,
     "args": [{"kind": "tensor", "dtype": "f32", "rank": 1}, {"kind": "index"}],
     "results": [{"kind": "tensor", "dtype": "f32", "rank": 1}],
     "variants": [{"symbols": {}, "kernels": [], "values": ["arg1 * 4"],
       "plan": [{"op": "alloc", "buffer": "b0", "bytes": "v0"}],
       "results": [{"tensor": {"base": "arg0", "offset": 0, "sizes": ["arg1"],
                               "strides": [1]}}]}]}]})json";
}

} // namespace

TEST(RuntimeExecutor, ReadsValuesOnTheHostAndBindsTheirSymbols) {
  Manifest m = parseManifest(readCountManifest(), "manifest.json");
  ASSERT_TRUE(m.graph.symbols[0].fromStep());
  EXPECT_EQ(parseManifest(printManifest(m), "printed").graph.symbols[0].step, 0);
  HostTensor x = makeF32({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  HostDevice device;
  GraphExecutor executor(m, ".", device);
  for (int64_t n : {5, 2, 5}) {
    executor.setInputs({makeI64({}, {n}), x});
    HostTensor out = executor.download(executor.run()[0]);
    EXPECT_EQ(out.shape, std::vector<int64_t>{n});
    EXPECT_EQ(std::vector<uint8_t>(x.bytes.begin(), x.bytes.begin() + 4 * n), out.bytes);
    EXPECT_EQ(executor.symbols().at("u0"), n);
  }
  // Planned once, at the bound (8 floats), for every count read.
  EXPECT_EQ(executor.memoryStats().bufferBytes, 256);
  // The assertion over u0 runs once it is read; a read above the bound is
  // refused before anything uses it.
  executor.setInputs({makeI64({}, {7}), x});
  expectError([&] { executor.run(); }, "runtime assertion failed: u0 <= 6 (le(u0, 6) with u0 = 7)");
  executor.setInputs({makeI64({}, {9}), x});
  expectError([&] { executor.run(); },
              "step 0 (piece 0 'read_count', variant 0): result 0 read 9 from the device, "
              "outside [0, 8], the range the memory plan was made for");
  // One CUDA graph cannot wait for a read.
  ExecutorOptions full;
  full.fullGraph = true;
  GraphExecutor whole(m, ".", device, full);
  whole.setInputs({makeI64({}, {3}), x});
  expectError([&] { whole.run(); }, "one CUDA graph for the whole run cannot hold the wait");
}

namespace {

// Expects the manifest `text`, with its first `from` replaced by `to`, to be
// refused with a message holding `fragment`.
void refused(std::string text, const std::string &from, const std::string &to,
             const std::string &fragment) {
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  expectError([&] { parseManifest(text, "manifest.json"); }, fragment);
}

// A while loop (format 10) carrying a counter n, x and w: while n > 0
// (step 0 reads the condition on the host), n = n - 1, x = 2x + 1 (step 1)
// and w = x (the previous x: a next value that lies in the loop's state).
// Its kernels are the HostDevice's.
// A one-element rank-1 memref on `base` (a kernel argument).
std::string oneElement(const std::string &base) {
  return R"json({"memref": {"base": ")json" + base +
         R"json(", "offset": 0, "sizes": [1], "strides": [1]}})json";
}

// Piece "positive" (index `index`): n > 0 of an i64 [1] tensor, read on the
// host (an index result).
std::string positivePiece(int index) {
  return R"json({"index": )json" + std::to_string(index) +
         R"json(, "name": "positive", "kind": "compute", "graph_index": )json" +
         std::to_string(index) + R"json(, "cuda_graph": true,
     "args": [{"kind": "tensor", "dtype": "i64", "rank": 1}],
     "results": [{"kind": "index"}],
     "variants": [{"symbols": {}, "ptx": "pieces/piece_0.ptx",
       "kernels": [{"name": "test_positive", "config": {}}], "values": [],
       "plan": [{"op": "alloc", "buffer": "b0", "bytes": 1},
                {"op": "launch", "kernel": "test_positive", "grid": [1, 1, 1],
                 "block": [1, 1, 1], "shared_bytes": 0,
                 "args": [)json" + oneElement("arg0") + ", " + oneElement("b0") + R"json(]}],
       "results": [{"read": {"base": "b0", "offset": 0, "sizes": [], "strides": []},
                    "dtype": "i1", "bound": 1}]}]})json";
}

// Piece "step" (index `index`): (n, x) -> (n - 1, 2x + 1), x f32 [2, 4].
std::string stepPiece(int index) {
  return R"json({"index": )json" + std::to_string(index) +
         R"json(, "name": "step", "kind": "compute", "graph_index": )json" +
         std::to_string(index) + R"json(, "cuda_graph": true,
     "args": [{"kind": "tensor", "dtype": "i64", "rank": 1},
              {"kind": "tensor", "dtype": "f32", "rank": 2}],
     "results": [{"kind": "tensor", "dtype": "i64", "rank": 1},
                 {"kind": "tensor", "dtype": "f32", "rank": 2}],
     "variants": [{"symbols": {}, "ptx": "pieces/piece_0.ptx",
       "kernels": [{"name": "test_decrement", "config": {}},
                   {"name": "selftest_scale_add", "config": {}}], "values": [],
       "plan": [{"op": "alloc", "buffer": "b0", "bytes": 8},
                {"op": "alloc", "buffer": "b1", "bytes": 32},
                {"op": "launch", "kernel": "test_decrement", "grid": [1, 1, 1],
                 "block": [1, 1, 1], "shared_bytes": 0,
                 "args": [)json" + oneElement("arg0") + ", " + oneElement("b0") + R"json(]},
                {"op": "launch", "kernel": "selftest_scale_add", "grid": [1, 1, 1],
                 "block": [8, 1, 1], "shared_bytes": 0,
                 "args": [{"memref": {"base": "arg1", "offset": 0, "sizes": [2, 4], "strides": [4, 1]}},
                          {"memref": {"base": "b1", "offset": 0, "sizes": [2, 4], "strides": [4, 1]}},
                          {"i64": 1}, {"f32": 2.0}]}],
       "results": [{"tensor": {"base": "b0", "offset": 0, "sizes": [1], "strides": [1]}},
                   {"tensor": {"base": "b1", "offset": 0, "sizes": [2, 4], "strides": [4, 1]}}]}]})json";
}

// An f32 tensor with every element v taken to 2v + 1, `times` times (what
// piece "step" does once).
HostTensor twicePlusOne(const HostTensor &t, int64_t times) {
  std::vector<float> values(size_t(t.numElements()));
  std::memcpy(values.data(), t.bytes.data(), t.bytes.size());
  for (float &v : values)
    for (int64_t i = 0; i < times; ++i)
      v = 2 * v + 1;
  return makeF32(t.shape, values);
}

// The head of a hand-written manifest of format `version`, up to "graph".
std::string manifestHead(int version) {
  return R"json({"format": "magi-artifact", "version": )json" + std::to_string(version) + R"json(,
  "producer": {"magi": null, "llvm": null, "ptxas": null},
  "target": {"chip": "sm_90", "features": "+ptx80", "triple": "nvptx64-nvidia-cuda"},
  "source": {"file": "none", "sha256": ""}, "weights": {"files": []},)json";
}

std::string loopManifest() {
  return manifestHead(10) + R"json(
  "graph": {
    "inputs": [{"name": "n", "kind": "user_input", "dtype": "i64", "shape": [1]},
               {"name": "x", "kind": "user_input", "dtype": "f32", "shape": [2, 4]},
               {"name": "w", "kind": "user_input", "dtype": "f32", "shape": [2, 4]}],
    "symbols": [],
    "steps": [{"piece": 0, "args": [{"carried": 0}]},
              {"piece": 1, "args": [{"carried": 0}, {"carried": 1}]}],
    "loops": [{"first": 0, "cond_steps": 1, "body_steps": 1,
               "carried": [{"input": 0}, {"input": 1}, {"input": 2}],
               "condition": {"step": 0, "result": 0},
               "next": [{"step": 1, "result": 0}, {"step": 1, "result": 1}, {"carried": 1}]}],
    "outputs": [{"loop": 0, "result": 1}, {"loop": 0, "result": 0}, {"loop": 0, "result": 2}]},
  "pieces": [)json" + positivePiece(0) + ",\n    " + stepPiece(1) + "]}";
}

} // namespace

TEST(RuntimeExecutor, RunsAWhileLoop) {
  Manifest m = parseManifest(loopManifest(), "manifest.json");
  ASSERT_EQ(m.graph.loops.size(), 1u);
  // Printed and read again, the loop is the same.
  Manifest again = parseManifest(printManifest(m), "printed");
  ASSERT_EQ(again.graph.loops.size(), 1u);
  EXPECT_EQ(again.graph.loops[0].next.size(), 3u);
  EXPECT_EQ(printManifest(again), printManifest(m));
  HostTensor x = makeF32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  HostTensor w = makeF32({2, 4}, {-1, -1, -1, -1, -1, -1, -1, -1});
  // x -> 2x + 1, `times` times.
  auto iterated = [&](int64_t times) { return twicePlusOne(x, times).bytes; };
  for (bool graphs : {false, true}) {
    HostDevice device;
    ExecutorOptions options;
    options.cudaGraphs = graphs;
    GraphExecutor executor(m, selftestDir() + "/artifact", device, options);
    for (int64_t n : {3, 0, 1, 3}) {
      executor.setInputs({makeI64({1}, {n}), x, w});
      std::vector<DeviceTensor> out = executor.run();
      EXPECT_EQ(executor.lastLoopIterations(), std::vector<int64_t>{n});
      EXPECT_EQ(executor.download(out[0]).bytes, iterated(n)) << n;
      // The counter ends at 0; w is the x before the last iteration.
      EXPECT_EQ(executor.download(out[1]).bytes, makeI64({1}, {0}).bytes);
      EXPECT_EQ(executor.download(out[2]).bytes, n == 0 ? w.bytes : iterated(n - 1)) << n;
    }
    // The loop's steps read the same addresses every iteration: once
    // captured (the second iteration of the first run), they replay.
    const std::vector<StepMode> &modes = executor.lastRunModes();
    ASSERT_EQ(modes.size(), 7u); // three times both steps, the condition once more
    for (StepMode mode : modes)
      EXPECT_EQ(mode, graphs ? StepMode::Replay : StepMode::Eager);
  }
  // One CUDA graph cannot wait for each condition.
  HostDevice device;
  ExecutorOptions full;
  full.fullGraph = true;
  GraphExecutor whole(m, selftestDir() + "/artifact", device, full);
  whole.setInputs({makeI64({1}, {2}), x, w});
  expectError([&] { whole.run(); }, "the graph has a loop (torch.while_loop) whose every "
                                    "iteration waits for its condition on the host");
}

namespace {

// Piece `index` named `name`: reads an i64 tensor's first element on the
// host, at most `bound` (none: a value that gives no size, format 12).
std::string readPiece(int index, const std::string &name, std::optional<int> bound) {
  return R"json({"index": )json" + std::to_string(index) + R"json(, "name": ")json" + name +
         R"json(", "kind": "splitting", "graph_index": null, "cuda_graph": false,
     "args": [{"kind": "tensor", "dtype": "i64", "rank": 1}],
     "results": [{"kind": "index"}],
     "variants": [{"symbols": {}, "kernels": [], "values": [], "plan": [],
       "results": [{"read": {"base": "arg0", "offset": 0, "sizes": [], "strides": []},
                    "dtype": "i64")json" +
         (bound ? ", \"bound\": " + std::to_string(*bound) : std::string()) + "}]}]}";
}

// Piece "take" (index `index`): x's first arg1 elements (a view), its plan
// `plan`.
std::string takePiece(int index, int graphIndex, const std::string &plan) {
  return R"json({"index": )json" + std::to_string(index) +
         R"json(, "name": "take", "kind": "compute", "graph_index": )json" +
         std::to_string(graphIndex) + R"json(, "cuda_graph": true,
     "args": [{"kind": "tensor", "dtype": "f32", "rank": 1}, {"kind": "index"}],
     "results": [{"kind": "tensor", "dtype": "f32", "rank": 1}],
     "variants": [{"symbols": {}, "kernels": [], "values": [], "plan": )json" + plan + R"json(,
       "results": [{"tensor": {"base": "arg0", "offset": 0, "sizes": ["arg1"],
                               "strides": [1]}}]}]})json";
}

// Step 0 computes c = n - 1 into b0, then writes n > 0 into a buffer b1
// allocated after c's last write; step 1 reads c on the host (at most 8:
// symbol u0); step 2 gives x's first u0 elements, its plan `takePlan`.
std::string countReadTakeManifest(const std::string &takePlan = "[]") {
  std::string memref = R"json({"memref": {"base": "BASE", "offset": 0, "sizes": [1], "strides": [1]}})json";
  auto on = [&](const std::string &base) {
    std::string m = memref;
    m.replace(m.find("BASE"), 4, base);
    return m;
  };
  return R"json({"format": "magi-artifact", "version": 10,
  "producer": {"magi": null, "llvm": null, "ptxas": null},
  "target": {"chip": "sm_90", "features": "+ptx80", "triple": "nvptx64-nvidia-cuda"},
  "source": {"file": "none", "sha256": ""}, "weights": {"files": []},
  "graph": {
    "inputs": [{"name": "n", "kind": "user_input", "dtype": "i64", "shape": [1]},
               {"name": "x", "kind": "user_input", "dtype": "f32", "shape": [8]}],
    "symbols": [{"name": "u0", "min": 0, "max": 8, "step": 1, "result": 0}],
    "steps": [{"piece": 0, "args": [{"input": 0}]},
              {"piece": 1, "args": [{"step": 0, "result": 0}]},
              {"piece": 2, "args": [{"input": 1}, {"step": 1, "result": 0}]}],
    "outputs": [{"step": 2, "result": 0}]},
  "pieces": [
    {"index": 0, "name": "count", "kind": "compute", "graph_index": 0, "cuda_graph": true,
     "args": [{"kind": "tensor", "dtype": "i64", "rank": 1}],
     "results": [{"kind": "tensor", "dtype": "i64", "rank": 1}],
     "variants": [{"symbols": {}, "ptx": "pieces/piece_0.ptx",
       "kernels": [{"name": "test_decrement", "config": {}}, {"name": "test_positive", "config": {}}],
       "values": [],
       "plan": [{"op": "alloc", "buffer": "b0", "bytes": 8},
                {"op": "launch", "kernel": "test_decrement", "grid": [1, 1, 1],
                 "block": [1, 1, 1], "shared_bytes": 0,
                 "args": [)json" + on("arg0") + ", " + on("b0") + R"json(]},
                {"op": "alloc", "buffer": "b1", "bytes": 8},
                {"op": "launch", "kernel": "test_positive", "grid": [1, 1, 1],
                 "block": [1, 1, 1], "shared_bytes": 0,
                 "args": [)json" + on("arg0") + ", " + on("b1") + R"json(]}],
       "results": [{"tensor": {"base": "b0", "offset": 0, "sizes": [1], "strides": [1]}}]}]},
    )json" + readPiece(1, "read", 8) + ",\n    " + takePiece(2, 1, takePlan) + "]}";
}

} // namespace

TEST(RuntimeExecutor, KeepsAReadBufferUntilTheRead) {
  // The plan must keep step 0's b0 alive until step 1 reads it: b1 placed
  // over it would change it.
  std::string text = countReadTakeManifest();
  Manifest m = parseManifest(text, "manifest.json");
  HostDevice device;
  GraphExecutor executor(m, selftestDir() + "/artifact", device);
  HostTensor x = makeF32({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  executor.setInputs({makeI64({1}, {6}), x});
  HostTensor out = executor.download(executor.run()[0]);
  EXPECT_EQ(executor.symbols().at("u0"), 5);
  EXPECT_EQ(out.shape, std::vector<int64_t>{5});
}

TEST(RuntimeExecutor, PlansASizeThatShrinksAsAReadValueGrows) {
  // Step 2 allocates (8 - u0) * 4 bytes: nothing with u0 at its bound (8),
  // 32 bytes at 0, which the plan takes; run with u0 = 5, it needs 12.
  Manifest m = parseManifest(
      countReadTakeManifest(R"([{"op": "alloc", "buffer": "b0", "bytes": "(8 - arg1) * 4"}])"),
      "manifest.json");
  HostDevice device;
  GraphExecutor executor(m, selftestDir() + "/artifact", device);
  HostTensor x = makeF32({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  executor.setInputs({makeI64({1}, {6}), x});
  HostTensor out = executor.download(executor.run()[0]);
  EXPECT_EQ(out.shape, std::vector<int64_t>{5});
  // A size largest between 0 and the bound (min(u0, 8 - u0) * 4: none at
  // either end) is planned too small: refused, saying why, never given a
  // buffer too small.
  Manifest middle = parseManifest(
      countReadTakeManifest(
          R"([{"op": "alloc", "buffer": "b0", "bytes": "min(arg1, 8 - arg1) * 4"}])"),
      "manifest.json");
  GraphExecutor refused(middle, selftestDir() + "/artifact", device);
  refused.setInputs({makeI64({1}, {6}), x});
  expectError([&] { refused.run(); },
              "step 2: buffer b0 needs 12 bytes, more than the 0 the memory plan gave it with "
              "the values read on the host at their bounds and at 0: a size largest between "
              "them cannot be planned so");
}

// Two values read on the host, a = n[0] and b = m[0] (each at most 8), and
// a step that allocates `takeBytes` (over arg1 = a and arg2 = b) and gives
// x[a:b].
std::string twoReadsManifest(const std::string &takeBytes) {
  return manifestHead(10) + R"json(
  "graph": {
    "inputs": [{"name": "n", "kind": "user_input", "dtype": "i64", "shape": [1]},
               {"name": "m", "kind": "user_input", "dtype": "i64", "shape": [1]},
               {"name": "x", "kind": "user_input", "dtype": "f32", "shape": [8]}],
    "symbols": [],
    "steps": [{"piece": 0, "args": [{"input": 0}]},
              {"piece": 0, "args": [{"input": 1}]},
              {"piece": 1, "args": [{"input": 2}, {"step": 0, "result": 0},
                                    {"step": 1, "result": 0}]}],
    "outputs": [{"step": 2, "result": 0}]},
  "pieces": [
    {"index": 0, "name": "read", "kind": "splitting", "graph_index": null, "cuda_graph": false,
     "args": [{"kind": "tensor", "dtype": "i64", "rank": 1}],
     "results": [{"kind": "index"}],
     "variants": [{"symbols": {}, "kernels": [], "values": [], "plan": [],
       "results": [{"read": {"base": "arg0", "offset": 0, "sizes": [], "strides": []},
                    "dtype": "i64", "bound": 8}]}]},
    {"index": 1, "name": "window", "kind": "compute", "graph_index": 0, "cuda_graph": true,
     "args": [{"kind": "tensor", "dtype": "f32", "rank": 1}, {"kind": "index"},
              {"kind": "index"}],
     "results": [{"kind": "tensor", "dtype": "f32", "rank": 1}],
     "variants": [{"symbols": {}, "kernels": [], "values": [],
       "plan": [{"op": "alloc", "buffer": "b0", "bytes": ")json" + takeBytes + R"json("}],
       "results": [{"tensor": {"base": "b0", "offset": 0, "sizes": ["max(arg2 - arg1, 0)"],
                               "strides": [1]}}]}]}]})json";
}

TEST(RuntimeExecutor, PlansASizeThatGrowsWithOneReadAndShrinksWithAnother) {
  // x[a:b] is empty with a and b both at their bounds and both at 0; it is
  // largest with a at 0 and b at its bound (32 bytes), which the plan takes:
  // every combination of the reads at their bounds and at 0 is planned.
  Manifest m = parseManifest(twoReadsManifest("max(arg2 - arg1, 0) * 4"), "manifest.json");
  HostDevice device;
  GraphExecutor executor(m, selftestDir() + "/artifact", device);
  HostTensor x = makeF32({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  for (auto [a, b] : {std::pair<int64_t, int64_t>{2, 7}, {0, 8}, {5, 1}}) {
    executor.setInputs({makeI64({1}, {a}), makeI64({1}, {b}), x});
    std::vector<DeviceTensor> out = executor.run();
    EXPECT_EQ(out[0].shape, std::vector<int64_t>{std::max<int64_t>(b - a, 0)});
  }
  EXPECT_EQ(executor.memoryStats().bufferBytes, 256); // 32 bytes, aligned
}

TEST(RuntimeManifest, RefusesBadLoops) {
  std::string text = loopManifest();
  refused(text, R"("version": 10)", R"("version": 9)", "loops need format version 10");
  refused(text, R"("cond_steps": 1, "body_steps": 1)", R"("cond_steps": 0, "body_steps": 2)",
          "at least one step");
  refused(text, R"("body_steps": 1)", R"("body_steps": 2)", "its steps go past the graph's 2");
  refused(text, R"("outputs": [{"loop": 0, "result": 1})", R"("outputs": [{"step": 1, "result": 1})",
          "step 1 is one of loop 0's steps: outside it, its values are {\"loop\": 0, \"result\": k}");
  refused(text, R"("args": [{"carried": 0}, {"carried": 1}])",
          R"("args": [{"carried": 0}, {"loop": 0, "result": 1}])", "loop 0 has not ended yet");
  refused(text, R"("carried": [{"input": 0}, {"input": 1}, {"input": 2}])",
          R"("carried": [{"input": 0}, {"carried": 1}, {"input": 2}])",
          "a carried value is used outside any loop's steps");
  refused(text, R"("args": [{"carried": 0}, {"carried": 1}])",
          R"("args": [{"carried": 0}, {"carried": 3}])", "loop 0 carries 3 value(s)");
  refused(text, R"("condition": {"step": 0, "result": 0})", R"("condition": {"step": 1, "result": 0})",
          "step 1 has not run yet");
  refused(text, R"("next": [{"step": 1, "result": 0}, {"step": 1, "result": 1},)",
          R"("next": [{"step": 1, "result": 1}, {"step": 1, "result": 0},)",
          "carried value 0 of loop 0 is a rank-1 i64 tensor, but this is a rank-2 f32 tensor");
  refused(text, R"("next": [{"step": 1, "result": 0}, {"step": 1, "result": 1},)",
          R"("next": [{"step": 0, "result": 0}, {"step": 1, "result": 1},)",
          "step 0 is in loop 0's condition, which its body does not see");
}

// A branch (format 11). Read: step 0 reads n > 0 on the host (symbol
// cond0); the then part (step 1) computes 2x + 1, the else part (step 2)
// 2w + 1, and each gives the other input as its second result; step 3
// doubles the branch's first result plus one again. Sized: no read, the
// condition is on n's length s0 (eq(s0, 1)), steps 0 and 1 the parts.
std::string branchManifest(bool read) {
  std::string graph =
      read ? R"json(
    "inputs": [{"name": "n", "kind": "user_input", "dtype": "i64", "shape": [1]},
               {"name": "x", "kind": "user_input", "dtype": "f32", "shape": [2, 4]},
               {"name": "w", "kind": "user_input", "dtype": "f32", "shape": [2, 4]}],
    "symbols": [{"name": "cond0", "min": 0, "max": 1, "step": 0, "result": 0}],
    "steps": [{"piece": 0, "args": [{"input": 0}]},
              {"piece": 1, "args": [{"input": 0}, {"input": 1}]},
              {"piece": 1, "args": [{"input": 0}, {"input": 2}]},
              {"piece": 1, "args": [{"input": 0}, {"branch": 0, "result": 0}]}],
    "branches": [{"first": 1, "then_steps": 1, "else_steps": 1, "condition": "ne(cond0, 0)",
                  "then": [{"step": 1, "result": 1}, {"input": 2}],
                  "else": [{"step": 2, "result": 1}, {"input": 1}]}],
    "outputs": [{"branch": 0, "result": 0}, {"step": 3, "result": 1}, {"branch": 0, "result": 1}]},)json"
           : R"json(
    "inputs": [{"name": "n", "kind": "user_input", "dtype": "i64", "shape": ["s0"]},
               {"name": "x", "kind": "user_input", "dtype": "f32", "shape": [2, 4]},
               {"name": "w", "kind": "user_input", "dtype": "f32", "shape": [2, 4]}],
    "symbols": [{"name": "s0", "min": 1, "max": 2, "input": 0, "dim": 0}],
    "steps": [{"piece": 0, "args": [{"input": 0}, {"input": 1}]},
              {"piece": 0, "args": [{"input": 0}, {"input": 2}]}],
    "branches": [{"first": 0, "then_steps": 1, "else_steps": 1, "condition": "eq(s0, 1)",
                  "then": [{"step": 0, "result": 1}, {"input": 2}],
                  "else": [{"step": 1, "result": 1}, {"input": 1}]}],
    "outputs": [{"branch": 0, "result": 0}, {"branch": 0, "result": 1}]},)json";
  return manifestHead(11) + R"json(
  "graph": {)json" + graph + R"json(
  "pieces": [)json" + (read ? positivePiece(0) + ",\n    " + stepPiece(1) : stepPiece(0)) +
         "]}";
}

TEST(RuntimeExecutor, RunsABranch) {
  Manifest m = parseManifest(branchManifest(/*read=*/true), "manifest.json");
  ASSERT_EQ(m.graph.branches.size(), 1u);
  // Printed and read again, the branch is the same.
  Manifest again = parseManifest(printManifest(m), "printed");
  ASSERT_EQ(again.graph.branches.size(), 1u);
  EXPECT_EQ(again.graph.branches[0].condition.text(), "ne(cond0, 0)");
  EXPECT_EQ(printManifest(again), printManifest(m));
  HostTensor x = makeF32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  HostTensor w = makeF32({2, 4}, {-1, -2, -3, -4, -5, -6, -7, -8});
  for (bool graphs : {false, true}) {
    HostDevice device;
    ExecutorOptions options;
    options.cudaGraphs = graphs;
    GraphExecutor executor(m, selftestDir() + "/artifact", device, options);
    for (int64_t n : {1, 0, 0, 1, 1}) {
      executor.setInputs({makeI64({1}, {n}), x, w});
      std::vector<DeviceTensor> out = executor.run();
      EXPECT_EQ(executor.lastBranchesTaken(), std::vector<bool>{n > 0});
      const HostTensor &taken = n > 0 ? x : w, &other = n > 0 ? w : x;
      EXPECT_EQ(executor.download(out[0]).bytes, twicePlusOne(taken, 1).bytes) << n;
      EXPECT_EQ(executor.download(out[1]).bytes, twicePlusOne(taken, 2).bytes) << n;
      EXPECT_EQ(executor.download(out[2]).bytes, other.bytes) << n;
      // The read, the part taken, the step after it.
      EXPECT_EQ(executor.lastRunModes().size(), 3u);
    }
    // Each part's step keeps its graph: the last run replays both
    // compute steps.
    const std::vector<StepMode> &modes = executor.lastRunModes();
    EXPECT_EQ(modes[1], graphs ? StepMode::Replay : StepMode::Eager);
    EXPECT_EQ(modes[2], graphs ? StepMode::Replay : StepMode::Eager);
  }
  // The condition is read on the host: no CUDA graph for the whole run.
  HostDevice device;
  ExecutorOptions full;
  full.fullGraph = true;
  GraphExecutor whole(m, selftestDir() + "/artifact", device, full);
  whole.setInputs({makeI64({1}, {1}), x, w});
  expectError([&] { whole.run(); }, "the graph reads values on the host");
}

TEST(RuntimeExecutor, RunsABranchOnTheSizesInOneGraph) {
  // The condition is over an input's size: the steps taken are known
  // before the run, which is one CUDA graph per part taken.
  Manifest m = parseManifest(branchManifest(/*read=*/false), "manifest.json");
  HostTensor x = makeF32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  HostTensor w = makeF32({2, 4}, {-1, -2, -3, -4, -5, -6, -7, -8});
  HostDevice device;
  ExecutorOptions full;
  full.fullGraph = true;
  GraphExecutor executor(m, selftestDir() + "/artifact", device, full);
  for (int64_t length : {1, 2, 1, 2, 1, 2}) {
    std::vector<int64_t> n(size_t(length), 3);
    executor.setInputs({makeI64({length}, n), x, w});
    std::vector<DeviceTensor> out = executor.run();
    EXPECT_EQ(executor.lastBranchesTaken(), std::vector<bool>{length == 1});
    HostTensor expected = executor.download(out[1]);
    EXPECT_EQ(expected.bytes, (length == 1 ? w : x).bytes) << length;
    std::vector<float> first(8);
    std::memcpy(first.data(), executor.download(out[0]).bytes.data(), 32);
    EXPECT_EQ(first[1], length == 1 ? 3.f : -3.f) << length;
    ASSERT_EQ(executor.lastRunModes().size(), 1u); // the one step taken
  }
  EXPECT_EQ(executor.lastRunModes()[0], StepMode::Replay);
  EXPECT_EQ(device.numCaptures, 2);
}

TEST(RuntimeManifest, RefusesBadBranches) {
  std::string text = branchManifest(/*read=*/true);
  refused(text, R"("version": 11)", R"("version": 10)", "branches need format version 11");
  refused(text, R"("then_steps": 1, "else_steps": 1)", R"("then_steps": 1, "else_steps": 3)",
          "its steps go past the graph's 4");
  refused(text, R"("outputs": [{"branch": 0, "result": 0})",
          R"("outputs": [{"step": 1, "result": 1})",
          "step 1 is one of branch 0's steps: outside it, its values are {\"branch\": 0, "
          "\"result\": k}");
  refused(text, R"("else": [{"step": 2, "result": 1})", R"("else": [{"step": 1, "result": 1})",
          "step 1 is in branch 0's then part, which its else part does not see");
  refused(text, R"("then": [{"step": 1, "result": 1})", R"("then": [{"step": 2, "result": 1})",
          "step 2 has not run yet");
  refused(text, R"({"branch": 0, "result": 0}]}],)", R"({"branch": 1, "result": 0}]}],)",
          "branch 1 does not exist");
  refused(text, R"("outputs": [{"branch": 0, "result": 0})",
          R"("outputs": [{"branch": 0, "result": 2})", "branch 0 gives 2 value(s)");
  refused(text, R"("else": [{"step": 2, "result": 1}, {"input": 1}])",
          R"("else": [{"step": 2, "result": 0}, {"input": 1}])",
          "result 0 of branch 0 is a rank-2 f32 tensor, but this is a rank-1 i64 tensor");
  refused(text, R"("else": [{"step": 2, "result": 1}, {"input": 1}])",
          R"("else": [{"step": 2, "result": 1}])", "has 1 value(s), its then part 2");
  refused(text, R"x("condition": "ne(cond0, 0)")x", R"x("condition": "ne(u7, 0)")x",
          "uses 'u7', which is not a graph symbol");
  refused(text, R"("first": 1, "then_steps": 1)", R"("first": 0, "then_steps": 2)",
          "'cond0' is defined by step 0, which does not run before the branch");
  // A symbol a branch's step defines (format 13) is seen only inside its
  // part: step 3, after the branch, cannot use it.
  std::string inside = text;
  inside.replace(inside.find(R"("version": 11)"), 13, R"("version": 13)");
  std::string one = R"("symbols": [{"name": "cond0", "min": 0, "max": 1, "step": 0, "result": 0}])";
  inside.replace(inside.find(one), one.size(),
                 R"("symbols": [{"name": "cond0", "min": 0, "max": 1, "step": 0, "result": 0},
                         {"name": "u1", "min": 0, "step": 1, "result": 0, "dim": 0}])");
  EXPECT_EQ(parseManifest(inside, "manifest.json").graph.symbols.size(), 2u);
  refused(inside, R"("version": 13)", R"("version": 12)",
          "graph.symbols[1].step: step 1 is one of a loop's or branch's steps: a symbol defined "
          "there needs format version 13");
  refused(inside, R"({"piece": 1, "args": [{"input": 0}, {"branch": 0, "result": 0}]})",
          R"({"piece": 0, "args": [{"symbol": "u1"}]})",
          "graph.steps[3].args[0].symbol: \"u1\" is defined by step 1, which is in branch 0's "
          "then part, and it is used outside it");
}

// branchManifest(read) whose condition is an integer read on the host
// that gives no size (format 12): u0 = n[0], no bound and no minimum, the
// branch taken while u0 > 0, and an assertion u0 != 7.
std::string anyValueManifest() {
  std::string text = branchManifest(/*read=*/true);
  auto replace = [&](const std::string &from, const std::string &to) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos)
      text.replace(at, from.size(), to);
  };
  replace(R"("version": 11)", R"("version": 12)");
  replace(R"("symbols": [{"name": "cond0", "min": 0, "max": 1, "step": 0, "result": 0}],)",
          R"x("symbols": [{"name": "u0", "min": null, "max": null, "step": 0, "result": 0}],
    "checks": [{"expr": "ne(u0, 7)", "message": "u0 != 7"}],)x");
  replace(R"x("condition": "ne(cond0, 0)")x", R"x("condition": "gt(u0, 0)")x");
  replace(positivePiece(0), readPiece(0, "read_n", std::nullopt));
  return text;
}

TEST(RuntimeExecutor, ReadsAnyValueThatGivesNoSize) {
  Manifest m = parseManifest(anyValueManifest(), "manifest.json");
  EXPECT_FALSE(m.pieces[0].variants[0].results[0].readBound.has_value());
  EXPECT_FALSE(m.graph.symbols[0].min.has_value());
  EXPECT_EQ(printManifest(parseManifest(printManifest(m), "printed")), printManifest(m));
  HostTensor x = makeF32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  HostTensor w = makeF32({2, 4}, {-1, -2, -3, -4, -5, -6, -7, -8});
  HostDevice device;
  GraphExecutor executor(m, selftestDir() + "/artifact", device);
  // Negative values too: nothing was planned for the value.
  for (int64_t n : {int64_t(3), int64_t(-4), int64_t(0), std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    executor.setInputs({makeI64({1}, {n}), x, w});
    std::vector<DeviceTensor> out = executor.run();
    EXPECT_EQ(executor.lastBranchesTaken(), std::vector<bool>{n > 0}) << n;
    EXPECT_EQ(executor.symbols().at("u0"), n);
    EXPECT_EQ(executor.download(out[0]).bytes, twicePlusOne(n > 0 ? x : w, 1).bytes) << n;
  }
  executor.setInputs({makeI64({1}, {7}), x, w});
  expectError([&] { executor.run(); }, "runtime assertion failed: u0 != 7 (ne(u0, 7) with u0 = 7)");
}

TEST(RuntimeManifest, RefusesAReadWithoutBoundBeforeFormat12) {
  std::string text = anyValueManifest();
  // Before format 12 a read has a bound and a symbol a minimum.
  refused(text, R"("version": 12)", R"("version": 11)",
          "graph.symbols[0].min: a symbol without a minimum needs format version 12");
  std::string bounded = text;
  bounded.replace(bounded.find(R"("min": null)"), 11, R"("min": 0)");
  refused(bounded, R"("version": 12)", R"("version": 11)",
          "a read without a bound needs format version 12");
  // A size always has a minimum.
  std::string sized = branchManifest(/*read=*/false);
  sized.replace(sized.find(R"("version": 11)"), 13, R"("version": 12)");
  refused(sized, R"("min": 1, "max": 2, "input": 0)", R"("min": null, "max": 2, "input": 0)",
          "only a value read on the host may have no minimum");
}

namespace {

// A branch inside a loop's body (format 13): while n > 0, u0 = n read on
// the host (inside the loop: it gives no size), then if u0 > 2: n - 1, 2x + 1
// (step 2), else twice that (steps 3 and 4); the branch gives the next n, x.
std::string branchInLoopManifest() {
  return manifestHead(13) + R"json(
  "graph": {
    "inputs": [{"name": "n", "kind": "user_input", "dtype": "i64", "shape": [1]},
               {"name": "x", "kind": "user_input", "dtype": "f32", "shape": [2, 4]}],
    "symbols": [{"name": "u0", "min": null, "max": null, "step": 1, "result": 0}],
    "steps": [{"piece": 0, "args": [{"carried": 0}]},
              {"piece": 2, "args": [{"carried": 0}]},
              {"piece": 1, "args": [{"carried": 0}, {"carried": 1}]},
              {"piece": 1, "args": [{"carried": 0}, {"carried": 1}]},
              {"piece": 1, "args": [{"step": 3, "result": 0}, {"step": 3, "result": 1}]}],
    "loops": [{"first": 0, "cond_steps": 1, "body_steps": 4,
               "carried": [{"input": 0}, {"input": 1}],
               "condition": {"step": 0, "result": 0},
               "next": [{"branch": 0, "result": 0}, {"branch": 0, "result": 1}]}],
    "branches": [{"first": 2, "then_steps": 1, "else_steps": 2, "condition": "gt(u0, 2)",
                  "then": [{"step": 2, "result": 0}, {"step": 2, "result": 1}],
                  "else": [{"step": 4, "result": 0}, {"step": 4, "result": 1}],
                  "in": {"loop": 0, "part": "body"}}],
    "outputs": [{"loop": 0, "result": 1}, {"loop": 0, "result": 0}]},
  "pieces": [)json" + positivePiece(0) + ",\n    " + stepPiece(1) + ",\n    " + readPiece(2, "read_n", std::nullopt) +
         "]}";
}

// A loop inside a loop's body (format 13): while n > 0 { m, y = n, x;
// while m > 0 { m, y = m - 1, 2y + 1 }; n, x = n - 1, 2y + 1 }.
std::string loopInLoopManifest() {
  return manifestHead(13) + R"json(
  "graph": {
    "inputs": [{"name": "n", "kind": "user_input", "dtype": "i64", "shape": [1]},
               {"name": "x", "kind": "user_input", "dtype": "f32", "shape": [2, 4]}],
    "symbols": [],
    "steps": [{"piece": 0, "args": [{"carried": 0}]},
              {"piece": 0, "args": [{"carried": 0}]},
              {"piece": 1, "args": [{"carried": 0}, {"carried": 1}]},
              {"piece": 1, "args": [{"carried": 0, "loop": 0}, {"loop": 1, "result": 1}]}],
    "loops": [{"first": 0, "cond_steps": 1, "body_steps": 3,
               "carried": [{"input": 0}, {"input": 1}],
               "condition": {"step": 0, "result": 0},
               "next": [{"step": 3, "result": 0}, {"step": 3, "result": 1}]},
              {"first": 1, "cond_steps": 1, "body_steps": 1,
               "carried": [{"carried": 0}, {"carried": 1}],
               "condition": {"step": 1, "result": 0},
               "next": [{"step": 2, "result": 0}, {"step": 2, "result": 1}],
               "in": {"loop": 0, "part": "body"}}],
    "outputs": [{"loop": 0, "result": 1}]},
  "pieces": [)json" + positivePiece(0) + ",\n    " + stepPiece(1) + "]}";
}

} // namespace

TEST(RuntimeExecutor, RunsABranchInsideALoop) {
  Manifest m = parseManifest(branchInLoopManifest(), "manifest.json");
  ASSERT_EQ(m.graph.branches.size(), 1u);
  EXPECT_TRUE(m.graph.branches[0].in == (GraphPart{GraphPart::Owner::Loop, 0, 1}));
  EXPECT_EQ(printManifest(parseManifest(printManifest(m), "printed")), printManifest(m));
  HostTensor x = makeF32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  for (bool graphs : {false, true}) {
    HostDevice device;
    ExecutorOptions options;
    options.cudaGraphs = graphs;
    GraphExecutor executor(m, selftestDir() + "/artifact", device, options);
    for (int64_t n : {5, 1, 0, 4}) {
      // What the graph computes, on the host.
      int64_t counter = n, times = 0, iterations = 0;
      bool lastThen = false;
      while (counter > 0) {
        lastThen = counter > 2;
        times += lastThen ? 1 : 2;
        counter -= lastThen ? 1 : 2;
        ++iterations;
      }
      executor.setInputs({makeI64({1}, {n}), x});
      std::vector<DeviceTensor> out = executor.run();
      EXPECT_EQ(executor.download(out[0]).bytes, twicePlusOne(x, times).bytes) << n;
      EXPECT_EQ(executor.download(out[1]).bytes, makeI64({1}, {counter}).bytes) << n;
      EXPECT_EQ(executor.lastLoopIterations(), std::vector<int64_t>{iterations}) << n;
      if (iterations > 0)
        EXPECT_EQ(executor.lastBranchesTaken(), std::vector<bool>{lastThen}) << n;
      if (iterations > 0)
        EXPECT_EQ(executor.symbols().at("u0"), n == 1 ? 1 : 2) << n;
    }
  }
}

TEST(RuntimeExecutor, RunsALoopInsideALoop) {
  Manifest m = parseManifest(loopInLoopManifest(), "manifest.json");
  ASSERT_EQ(m.graph.loops.size(), 2u);
  EXPECT_TRUE(m.graph.loops[0].in == GraphPart{});
  EXPECT_TRUE(m.graph.loops[1].in == (GraphPart{GraphPart::Owner::Loop, 0, 1}));
  EXPECT_TRUE(m.graph.steps[3].args[0].namesLoop);
  EXPECT_FALSE(m.graph.steps[2].args[0].namesLoop);
  EXPECT_EQ(printManifest(parseManifest(printManifest(m), "printed")), printManifest(m));
  HostTensor x = makeF32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  for (bool graphs : {false, true}) {
    HostDevice device;
    ExecutorOptions options;
    options.cudaGraphs = graphs;
    GraphExecutor executor(m, selftestDir() + "/artifact", device, options);
    for (int64_t n : {3, 0, 2}) {
      // The inner loop runs k times for outer counter k; then once more.
      int64_t times = 0, inner = 0;
      for (int64_t k = n; k > 0; --k) {
        times += k + 1;
        inner += k;
      }
      executor.setInputs({makeI64({1}, {n}), x});
      std::vector<DeviceTensor> out = executor.run();
      EXPECT_EQ(executor.download(out[0]).bytes, twicePlusOne(x, times).bytes) << n;
      EXPECT_EQ(executor.lastLoopIterations(), (std::vector<int64_t>{n, inner})) << n;
    }
  }
}

namespace {

// A value read on the host that gives a size, inside a loop's body
// (format 13): while n > 0 { c = n - 1; u0 = c read on the host (at most
// 8); t = x's first u0 elements (a step whose argument is the symbol; u1
// its size); n = c }. u0 and u1 are new every iteration; the assertions
// u0 == u1 (seen once both are this iteration's) and u0 <= 6.
std::string readInLoopManifest() {
  std::string memref =
      R"json({"memref": {"base": "BASE", "offset": 0, "sizes": [1], "strides": [1]}})json";
  auto on = [&](const std::string &base) {
    std::string m = memref;
    m.replace(m.find("BASE"), 4, base);
    return m;
  };
  return manifestHead(13) + R"json(
  "graph": {
    "inputs": [{"name": "n", "kind": "user_input", "dtype": "i64", "shape": [1]},
               {"name": "x", "kind": "user_input", "dtype": "f32", "shape": [8]}],
    "symbols": [{"name": "u0", "min": 0, "max": 8, "step": 2, "result": 0},
                {"name": "u1", "min": 0, "step": 3, "result": 0, "dim": 0}],
    "checks": [{"expr": "eq(u0, u1)", "message": "u0 == u1"},
               {"expr": "le(u0, 6)", "message": "u0 <= 6"}],
    "steps": [{"piece": 0, "args": [{"carried": 0}]},
              {"piece": 1, "args": [{"carried": 0}]},
              {"piece": 2, "args": [{"step": 1, "result": 0}]},
              {"piece": 3, "args": [{"carried": 1}, {"symbol": "u0"}]}],
    "loops": [{"first": 0, "cond_steps": 1, "body_steps": 3,
               "carried": [{"input": 0}, {"input": 1}],
               "condition": {"step": 0, "result": 0},
               "next": [{"step": 1, "result": 0}, {"carried": 1}]}],
    "outputs": [{"loop": 0, "result": 0}]},
  "pieces": [)json" + positivePiece(0) + R"json(,
    {"index": 1, "name": "count", "kind": "compute", "graph_index": 1, "cuda_graph": true,
     "args": [{"kind": "tensor", "dtype": "i64", "rank": 1}],
     "results": [{"kind": "tensor", "dtype": "i64", "rank": 1}],
     "variants": [{"symbols": {}, "ptx": "pieces/piece_0.ptx",
       "kernels": [{"name": "test_decrement", "config": {}}], "values": [],
       "plan": [{"op": "alloc", "buffer": "b0", "bytes": 8},
                {"op": "launch", "kernel": "test_decrement", "grid": [1, 1, 1],
                 "block": [1, 1, 1], "shared_bytes": 0,
                 "args": [)json" + on("arg0") + ", " + on("b0") + R"json(]}],
       "results": [{"tensor": {"base": "b0", "offset": 0, "sizes": [1], "strides": [1]}}]}]},
    )json" + readPiece(2, "read", 8) + ",\n    " +
         takePiece(3, 2, R"([{"op": "alloc", "buffer": "b0", "bytes": "arg1 * 4"}])") + "]}";
}

} // namespace

TEST(RuntimeExecutor, ReadsASizeInsideALoop) {
  Manifest m = parseManifest(readInLoopManifest(), "manifest.json");
  EXPECT_EQ(printManifest(parseManifest(printManifest(m), "printed")), printManifest(m));
  HostTensor x = makeF32({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  for (bool graphs : {false, true}) {
    HostDevice device;
    ExecutorOptions options;
    options.cudaGraphs = graphs;
    GraphExecutor executor(m, selftestDir() + "/artifact", device, options);
    for (int64_t n : {6, 1, 3}) {
      executor.setInputs({makeI64({1}, {n}), x});
      std::vector<DeviceTensor> out = executor.run();
      EXPECT_EQ(executor.lastLoopIterations(), std::vector<int64_t>{n});
      EXPECT_EQ(executor.download(out[0]).bytes, makeI64({1}, {0}).bytes) << n;
      // The last iteration read 0 (from n = 1).
      EXPECT_EQ(executor.symbols().at("u0"), 0) << n;
      EXPECT_EQ(executor.symbols().at("u1"), 0) << n;
    }
    // take's buffer is planned with u0 at 8, the largest it can be.
    EXPECT_GE(executor.memoryStats().arenaBytes, 32);
  }
  // Read anew every iteration, u0 is still range-checked and asserted.
  HostDevice device;
  GraphExecutor executor(m, selftestDir() + "/artifact", device);
  executor.setInputs({makeI64({1}, {10}), x});
  expectError([&] { executor.run(); }, "read 9 from the device, outside [0, 8]");
  executor.setInputs({makeI64({1}, {8}), x});
  expectError([&] { executor.run(); },
              "runtime assertion failed: u0 <= 6 (le(u0, 6) with u0 = 7)");
  // Its symbol is not seen outside the loop's body.
  std::string text = readInLoopManifest();
  text.replace(text.find(R"({"carried": 1}, {"symbol": "u0"})"), 32, R"({"input": 1}, {"symbol": "u0"})");
  refused(text, R"("body_steps": 3)", R"("body_steps": 2)",
          "graph.steps[3].args[1].symbol: \"u0\" is defined by step 2, which is in loop 0's body, "
          "and it is used outside it");
}

TEST(RuntimeManifest, RefusesBadNesting) {
  std::string text = branchInLoopManifest();
  refused(text, R"("version": 13)", R"("version": 12)",
          "graph.branches[0].in: a loop or branch inside another needs format version 13");
  // Without "in", the branch overlaps the loop that holds it.
  refused(text, R"(,
                  "in": {"loop": 0, "part": "body"})", "",
          "graph.branches[0]: overlaps loop 0, which is in the same part");
  refused(text, R"("in": {"loop": 0, "part": "body"})", R"("in": {"loop": 0, "part": "condition"})",
          "graph.branches[0].in: its steps 2 to 5 are not inside loop 0's condition (steps 0 to 1)");
  refused(text, R"("in": {"loop": 0, "part": "body"})", R"("in": {"loop": 0, "part": "then"})",
          "a loop's parts are \"condition\" and \"body\", not \"then\"");
  refused(text, R"("in": {"loop": 0, "part": "body"})", R"("in": {"branch": 0, "part": "then"})",
          "graph.branches[0].in: names branch 0 itself");
  refused(text, R"("in": {"loop": 0, "part": "body"})", R"("in": {"loop": 1, "part": "body"})",
          "graph.branches[0].in.loop: loop 1 does not exist");
  // The loop's next values come from the branch; its parts' steps are not
  // seen from outside it, and the else part does not see the then part.
  refused(text, R"("next": [{"branch": 0, "result": 0})", R"("next": [{"step": 2, "result": 0})",
          "graph.loops[0].next[0].step: step 2 is one of branch 0's steps: outside it, its values "
          "are {\"branch\": 0, \"result\": k}");
  refused(text, R"("else": [{"step": 4, "result": 0})", R"("else": [{"step": 2, "result": 0})",
          "graph.branches[0].else[0].step: step 2 is in branch 0's then part, which its else "
          "part does not see");
  // Outside the loop, neither the branch nor u0 is seen.
  refused(text, R"("outputs": [{"loop": 0, "result": 1})", R"("outputs": [{"branch": 0, "result": 1})",
          "graph.outputs[0].branch: branch 0 is one of loop 0's steps: outside it, its values are "
          "{\"loop\": 0, \"result\": k}");

  // Branches of no steps after the loop, each in the previous one's then
  // part: 64 deep read, 65 refused.
  auto deepBranches = [&](int count) {
    std::string text = branchInLoopManifest();
    std::string list;
    for (int b = 1; b <= count; ++b)
      list += R"(, {"first": 5, "then_steps": 0, "else_steps": 0, "condition": "1",
                  "then": [{"input": 1}], "else": [{"input": 1}])" +
              (b > 1 ? R"(, "in": {"branch": )" + std::to_string(b - 1) + R"(, "part": "then"})"
                     : std::string()) +
              "}";
    std::string last = R"("in": {"loop": 0, "part": "body"}})";
    text.insert(text.find(last) + last.size(), list);
    return text;
  };
  EXPECT_EQ(parseManifest(deepBranches(65), "manifest.json").graph.branches.size(), 66u);
  expectError([&] { parseManifest(deepBranches(66), "manifest.json"); },
              "graph.branches[66].in: branch 66 is inside 65 loops and branches: they nest at "
              "most 64 deep");

  std::string loops = loopInLoopManifest();
  refused(loops, R"({"carried": 0, "loop": 0})", R"({"carried": 0, "loop": 1})",
          "graph.steps[3].args[0].loop: is used outside loop 1's steps");
  refused(loops, R"("version": 13)", R"("version": 12)", "needs format version 13");
  // The inner loop's initial values are seen where it is: not its own.
  refused(loops, R"("carried": [{"carried": 0}, {"carried": 1}])",
          R"("carried": [{"carried": 0}, {"step": 2, "result": 1}])",
          "graph.loops[1].carried[1].step: step 2 has not run yet");
  // Two loops naming each other.
  refused(loops, R"("cond_steps": 1, "body_steps": 3,)",
          R"("cond_steps": 1, "body_steps": 3, "in": {"loop": 1, "part": "body"},)",
          "graph.loops[0].in: its steps 0 to 4 are not inside loop 1's body (steps 2 to 3)");
}

// A clamped read (format 14, tensor_split at an index held in a tensor):
// any value is read, the plan is made at 0 and the bound, and the size it
// gives is its clamp to [0, 8].
TEST(RuntimeExecutor, ReadsAClampedValue) {
  std::string text = readCountManifest("14");
  auto replace = [&](const std::string &from, const std::string &to) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace(R"("dtype": "i64", "bound": 8})", R"("dtype": "i64", "bound": 8, "clamped": true})");
  replace(R"({"name": "u0", "min": 0, "max": 8,)", R"({"name": "u0", "min": null, "max": null,)");
  replace(R"j("checks": [{"expr": "le(u0, 6)", "message": "u0 <= 6"}],)j", R"("checks": [],)");
  replace(R"("output_shapes": [["u0"]])", R"j("output_shapes": [["max(min(u0, 8), 0)"]])j");
  replace(R"("values": ["arg1 * 4"])", R"j("values": ["max(min(arg1, 8), 0) * 4"])j");
  replace(R"("sizes": ["arg1"])", R"j("sizes": ["max(min(arg1, 8), 0)"])j");
  Manifest m = parseManifest(text, "manifest.json");
  ASSERT_TRUE(m.pieces[0].variants[0].results[0].readClamped);
  EXPECT_EQ(printManifest(parseManifest(printManifest(m), "printed")), printManifest(m));
  HostTensor x = makeF32({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  HostDevice device;
  GraphExecutor executor(m, ".", device);
  for (int64_t n : {12, -3, 5}) {
    executor.setInputs({makeI64({}, {n}), x});
    HostTensor out = executor.download(executor.run()[0]);
    int64_t size = std::clamp<int64_t>(n, 0, 8);
    EXPECT_EQ(out.shape, std::vector<int64_t>{size}) << n;
    EXPECT_EQ(std::vector<uint8_t>(x.bytes.begin(), x.bytes.begin() + 4 * size), out.bytes);
    EXPECT_EQ(executor.symbols().at("u0"), n);
  }
  EXPECT_EQ(executor.memoryStats().bufferBytes, 256);
  // Only from format 14, and only with a bound.
  refused(readCountManifest("13"), R"("dtype": "i64", "bound": 8})",
          R"("dtype": "i64", "bound": 8, "clamped": true})",
          "a clamped read needs format version 14");
  refused(readCountManifest("14"), R"("dtype": "i64", "bound": 8})",
          R"("dtype": "i64", "clamped": true})", "a clamped read has a bound");
}

TEST(RuntimeManifest, RefusesBadReads) {
  std::string text = readCountManifest();
  expectError([&] { parseManifest(readCountManifest("8"), "manifest.json"); },
              "symbols defined by a step need format version 9");
  refused(text, R"("dtype": "i64", "bound")", R"("dtype": "f32", "bound")",
          "an index is read from an integer or bool element");
  refused(text, R"("sizes": [], "strides": []})", R"("sizes": [1], "strides": [1]})",
          "reads one element");
  refused(text, R"("step": 0, "result": 0}],)", R"("step": 1, "result": 0}],)",
          "is needed: result 0 of piece 1 is a tensor");
  refused(text, R"("step": 0, "result": 0}],)", R"("step": 0, "result": 0, "dim": 0}],)",
          "result 0 of piece 0 has no dimension 0");
  // Used by step 1 (the second), defined by step 2.
  std::string early = text;
  early.replace(early.find(R"("step": 0, "result": 0}],)"), 26, R"("step": 2, "result": 0}],)");
  refused(early, R"("args": [{"input": 0}]},)",
          R"("args": [{"input": 0}]}, {"piece": 1, "args": [{"input": 1}, {"symbol": "u0"}]},)",
          "\"u0\" is defined by step 2, which has not run yet");
}
