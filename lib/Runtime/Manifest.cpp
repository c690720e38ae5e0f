//===- Manifest.cpp - Load and check manifest.json ------------------------===//

#include "magi/Runtime/Manifest.h"

#include <algorithm>
#include <set>

namespace magi::runtime {

bool targetRunsOn(const std::string &targetChip, const std::string &deviceChip) {
  return targetChip == deviceChip || targetChip == deviceChip + "a";
}

// Parses "<prefix><N>" (e.g. "arg3", "b0", "v12"); nothing when malformed.
std::optional<int64_t> parseNumbered(const std::string &text, const std::string &prefix) {
  if (text.size() <= prefix.size() || text.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  int64_t value = 0;
  for (size_t i = prefix.size(); i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9' || value > 1000000000)
      return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  if (text.size() > prefix.size() + 1 && text[prefix.size()] == '0')
    return std::nullopt; // "arg01"
  return value;
}

std::optional<VariantName> parseVariantName(const std::string &name) {
  if (std::optional<int64_t> v = parseNumbered(name, "v"))
    return VariantName{VariantName::Kind::Value, *v, 0};
  size_t dot = name.find(".d");
  if (dot != std::string::npos) {
    std::optional<int64_t> arg = parseNumbered(name.substr(0, dot), "arg");
    std::optional<int64_t> dim = parseNumbered(name.substr(dot + 1), "d");
    if (arg && dim)
      return VariantName{VariantName::Kind::ArgDim, *arg, *dim};
    return std::nullopt;
  }
  if (std::optional<int64_t> arg = parseNumbered(name, "arg"))
    return VariantName{VariantName::Kind::ScalarArg, *arg, 0};
  return std::nullopt;
}

namespace {

// Field access with error messages that name the field's path, e.g.
// `manifest.json: pieces[2].variants[0].plan[1].grid[0]: expected ...`.
class Reader {
public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string &path, const std::string &message) const {
    throw RuntimeError(source_ + ": " + path + ": " + message);
  }

  // Checks that `value` is an object with only `allowed` keys.
  void object(const JsonValue &value, const std::string &path,
              std::initializer_list<const char *> allowed) const {
    if (!value.isObject())
      fail(path, std::string("expected an object, got ") + JsonValue::kindName(value.kind()));
    for (const auto &member : value.members()) {
      bool known = false;
      for (const char *key : allowed)
        known |= member.first == key;
      if (!known)
        fail(path, "unknown field \"" + member.first + "\"");
    }
  }

  const JsonValue &field(const JsonValue &object, const std::string &path,
                         const std::string &key) const {
    const JsonValue *member = object.find(key);
    if (!member)
      fail(path, "missing field \"" + key + "\"");
    return *member;
  }
  // Absent or null.
  const JsonValue *optionalField(const JsonValue &object, const std::string &key) const {
    const JsonValue *member = object.find(key);
    return member && !member->isNull() ? member : nullptr;
  }

  int64_t integer(const JsonValue &value, const std::string &path) const {
    if (!value.isInteger())
      fail(path, std::string("expected an integer, got ") + JsonValue::kindName(value.kind()));
    return value.asInteger();
  }
  int64_t integerField(const JsonValue &object, const std::string &path,
                       const std::string &key) const {
    return integer(field(object, path, key), path + "." + key);
  }
  int64_t nonNegativeField(const JsonValue &object, const std::string &path,
                           const std::string &key) const {
    int64_t value = integerField(object, path, key);
    if (value < 0)
      fail(path + "." + key, "must not be negative, got " + std::to_string(value));
    return value;
  }
  std::string string(const JsonValue &value, const std::string &path) const {
    if (!value.isString())
      fail(path, std::string("expected a string, got ") + JsonValue::kindName(value.kind()));
    return value.asString();
  }
  std::string stringField(const JsonValue &object, const std::string &path,
                          const std::string &key) const {
    return string(field(object, path, key), path + "." + key);
  }
  bool boolField(const JsonValue &object, const std::string &path,
                 const std::string &key) const {
    const JsonValue &value = field(object, path, key);
    if (!value.isBool())
      fail(path + "." + key,
           std::string("expected true or false, got ") + JsonValue::kindName(value.kind()));
    return value.asBool();
  }
  const std::vector<JsonValue> &arrayField(const JsonValue &object, const std::string &path,
                                           const std::string &key) const {
    const JsonValue &value = field(object, path, key);
    if (!value.isArray())
      fail(path + "." + key,
           std::string("expected an array, got ") + JsonValue::kindName(value.kind()));
    return value.items();
  }
  Dtype dtype(const JsonValue &value, const std::string &path) const {
    std::string name = string(value, path);
    std::optional<Dtype> dtype = dtypeFromManifestName(name);
    if (!dtype)
      fail(path, "unknown dtype \"" + name +
                     "\" (expected f64, f32, f16, bf16, i64, i32, i16, i8, u8 or i1)");
    return *dtype;
  }
  Expr expr(const JsonValue &value, const std::string &path) const {
    return Expr::fromJson(value, source_ + ": " + path);
  }

  const std::string &source() const { return source_; }

private:
  std::string source_;
};

std::string indexed(const std::string &path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

class ManifestParser {
public:
  ManifestParser(const std::string &sourceName) : r_(sourceName) {}

  Manifest parse(const JsonValue &root) {
    r_.object(root, "(top level)",
              {"format", "version", "producer", "target", "source", "weights", "graph", "pieces"});
    std::string format = r_.stringField(root, "(top level)", "format");
    if (format != "magi-artifact")
      r_.fail("format", "expected \"magi-artifact\", got \"" + format + "\"");
    m_.version = r_.integerField(root, "(top level)", "version");
    if (m_.version < kOldestArtifactVersion || m_.version > kArtifactVersion)
      r_.fail("version", "this magi-run reads artifact format versions " +
                             std::to_string(kOldestArtifactVersion) + " to " +
                             std::to_string(kArtifactVersion) + ", not " +
                             std::to_string(m_.version));
    parseProducer(r_.field(root, "(top level)", "producer"));
    parseTarget(r_.field(root, "(top level)", "target"));
    const JsonValue &source = r_.field(root, "(top level)", "source");
    r_.object(source, "source", {"file", "sha256"});
    m_.sourceFile = r_.stringField(source, "source", "file");
    if (const JsonValue *sha = r_.optionalField(source, "sha256"))
      m_.sourceSha256 = r_.string(*sha, "source.sha256");
    parseWeightFiles(r_.field(root, "(top level)", "weights"));

    // Pieces first: the graph's steps are checked against their signatures.
    const auto &pieces = r_.arrayField(root, "(top level)", "pieces");
    for (size_t i = 0; i < pieces.size(); ++i)
      m_.pieces.push_back(parsePieceSignature(pieces[i], indexed("pieces", i), i));
    parseGraph(r_.field(root, "(top level)", "graph"));
    for (size_t i = 0; i < pieces.size(); ++i)
      parseVariants(pieces[i], indexed("pieces", i), m_.pieces[i]);
    return std::move(m_);
  }

private:
  void parseProducer(const JsonValue &producer) {
    r_.object(producer, "producer", {"magi", "llvm", "ptxas"});
    for (auto [key, field] : {std::pair<const char *, std::optional<std::string> *>{
                                  "magi", &m_.producer.magi},
                              {"llvm", &m_.producer.llvm},
                              {"ptxas", &m_.producer.ptxas}}) {
      const JsonValue *value = r_.optionalField(producer, key);
      if (value && !value->isString())
        r_.fail(std::string("producer.") + key, "expected a string or null");
      if (value)
        *field = value->asString();
    }
  }

  // A path of the artifact's own files: relative, and never out of it.
  std::string insideArtifact(const std::string &file, const std::string &path) const {
    bool escapes = file.empty() || file[0] == '/';
    for (size_t start = 0; !escapes && start <= file.size();) {
      size_t end = file.find('/', start);
      if (end == std::string::npos)
        end = file.size();
      escapes = file.compare(start, end - start, "..") == 0;
      start = end + 1;
    }
    if (escapes)
      r_.fail(path, "\"" + file + "\" is not a path inside the artifact directory");
    return file;
  }

  void parseWeightFiles(const JsonValue &weights) {
    r_.object(weights, "weights", {"files"});
    const auto &files = r_.arrayField(weights, "weights", "files");
    for (size_t i = 0; i < files.size(); ++i) {
      std::string path = indexed("weights.files", i);
      r_.object(files[i], path, {"path", "bytes"});
      WeightFile file;
      file.path = r_.stringField(files[i], path, "path");
      if (file.path.empty() || file.path[0] == '/')
        r_.fail(path + ".path", "must be a path relative to the artifact directory");
      file.bytes = r_.nonNegativeField(files[i], path, "bytes");
      m_.weightFiles.push_back(std::move(file));
    }
  }

  // A weight's reference: the file range of its storage, the storage, and
  // the input's view of it (every size checked without overflow).
  // Each concatenation's parts are distinct plain weights, in no other
  // concatenation, whose static shapes stack along dim 0 into its own.
  void checkConcatenations(const Graph &g) {
    std::vector<int64_t> partOf(g.inputs.size(), -1);
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      const GraphInput &c = g.inputs[i];
      if (!c.isConcatenation())
        continue;
      std::string path = indexed("graph.inputs", i) + ".concat_of";
      std::vector<int64_t> shape = staticShapeOf(c, indexed("graph.inputs", i) + ".shape");
      if (shape.empty())
        r_.fail(path, "a concatenation along dim 0 needs rank 1 or more");
      int64_t rows = 0;
      for (size_t k = 0; k < c.concatOf.size(); ++k) {
        int64_t part = c.concatOf[k];
        std::string partPath = indexed(path, k);
        if (part < 0 || part >= int64_t(g.inputs.size()) || part == int64_t(i))
          r_.fail(partPath, "graph input " + std::to_string(part) + " is not another input");
        const GraphInput &in = g.inputs[size_t(part)];
        if (!in.isWeight() || in.isConcatenation())
          r_.fail(partPath, "graph input " + std::to_string(part) + " (" + in.name +
                                ") is not a plain weight");
        if (partOf[size_t(part)] >= 0)
          r_.fail(partPath, "graph input " + std::to_string(part) + " (" + in.name +
                                ") is already a part of graph input " +
                                std::to_string(partOf[size_t(part)]));
        partOf[size_t(part)] = int64_t(i);
        std::vector<int64_t> partShape = staticShapeOf(in, indexed("graph.inputs", size_t(part)) +
                                                               ".shape");
        if (in.dtype != c.dtype || partShape.size() != shape.size() ||
            !std::equal(shape.begin() + 1, shape.end(), partShape.begin() + 1))
          r_.fail(partPath, "graph input " + std::to_string(part) + " (" + in.name + ", " +
                                manifestName(in.dtype) + " " + formatShape(partShape) +
                                ") does not stack along dim 0 into " + manifestName(c.dtype) +
                                " " + formatShape(shape));
        rows += partShape[0];
      }
      if (rows != shape[0])
        r_.fail(path, "the parts have " + std::to_string(rows) + " rows, the input " +
                          std::to_string(shape[0]));
    }
  }

  std::vector<int64_t> staticShapeOf(const GraphInput &in, const std::string &path) {
    std::vector<int64_t> shape;
    for (size_t d = 0; d < in.shape.size(); ++d) {
      if (!in.shape[d].isConstant())
        r_.fail(indexed(path, d), "a weight's shape must be static");
      shape.push_back(in.shape[d].evaluate(nullptr, path));
    }
    return shape;
  }

  WeightRef parseWeight(const JsonValue &value, const std::string &path, const GraphInput &in) {
    r_.object(value, path,
              {"file", "entry", "method", "offset", "stored_bytes", "bytes", "crc32",
               "storage_offset", "strides"});
    WeightRef w;
    w.file = r_.nonNegativeField(value, path, "file");
    if (w.file >= int64_t(m_.weightFiles.size()))
      r_.fail(path + ".file", "weight file " + std::to_string(w.file) + " does not exist (" +
                                  std::to_string(m_.weightFiles.size()) + " in weights.files)");
    const WeightFile &file = m_.weightFiles[w.file];
    if (const JsonValue *entry = r_.optionalField(value, "entry"))
      w.entry = r_.string(*entry, path + ".entry");
    std::string method = r_.stringField(value, path, "method");
    std::optional<ZipMethod> m = zipMethodFromName(method);
    if (!m)
      r_.fail(path + ".method", "expected \"stored\" or \"deflate\", got \"" + method + "\"");
    w.method = *m;
    w.offset = r_.nonNegativeField(value, path, "offset");
    w.storedBytes = r_.nonNegativeField(value, path, "stored_bytes");
    w.bytes = r_.nonNegativeField(value, path, "bytes");
    if (w.offset > file.bytes || w.storedBytes > file.bytes - w.offset)
      r_.fail(path, "stored bytes [" + std::to_string(w.offset) + ", +" +
                        std::to_string(w.storedBytes) + ") lie outside " + file.path + " (" +
                        std::to_string(file.bytes) + " bytes)");
    if (w.method == ZipMethod::Stored && w.storedBytes != w.bytes)
      r_.fail(path, "a stored weight must have stored_bytes == bytes");
    int64_t crc = r_.nonNegativeField(value, path, "crc32");
    if (crc > int64_t(UINT32_MAX))
      r_.fail(path + ".crc32", "is not a 32-bit value");
    w.crc32 = uint32_t(crc);
    w.storageOffset = r_.nonNegativeField(value, path, "storage_offset");
    const auto &strides = r_.arrayField(value, path, "strides");
    for (size_t d = 0; d < strides.size(); ++d)
      w.strides.push_back(r_.integer(strides[d], indexed(path + ".strides", d)));
    std::vector<int64_t> shape = staticShapeOf(in, path + ".shape");
    int64_t dense = 0;
    if (std::optional<std::string> bad = checkView(elementSize(in.dtype), shape, w.strides,
                                                   w.storageOffset, w.bytes, dense))
      r_.fail(path, "the view of " + std::string(manifestName(in.dtype)) + " " +
                        formatShape(shape) + " " + *bad);
    return w;
  }

  void parseTarget(const JsonValue &target) {
    r_.object(target, "target", {"chip", "features", "triple"});
    m_.targetChip = r_.stringField(target, "target", "chip");
    m_.targetFeatures = r_.stringField(target, "target", "features");
    m_.targetTriple = r_.stringField(target, "target", "triple");
  }

  // ---- graph --------------------------------------------------------------

  void checkGraphExpr(const Expr &e, const std::string &path) {
    for (const std::string &name : e.names()) {
      bool known = false;
      for (const GraphSymbol &s : m_.graph.symbols)
        known |= s.name == name;
      if (!known)
        r_.fail(path, "\"" + e.text() + "\" uses '" + name + "', which is not a graph symbol");
    }
  }

  // A symbol a step defines: an index result, or a size of a tensor one.
  // Input shapes cannot use it (they are checked before anything runs).
  void checkStepSymbols() {
    const Graph &g = m_.graph;
    for (size_t i = 0; i < g.symbols.size(); ++i) {
      const GraphSymbol &s = g.symbols[i];
      if (!s.fromStep())
        continue;
      std::string path = indexed("graph.symbols", i);
      if (*s.step >= int64_t(g.steps.size()))
        r_.fail(path + ".step", "step " + std::to_string(*s.step) + " does not exist");
      if (m_.version < 13 && g.partOfStep(*s.step).owner != GraphPart::Owner::Graph)
        r_.fail(path + ".step", "step " + std::to_string(*s.step) +
                                    " is one of a loop's or branch's steps: a symbol defined "
                                    "there needs format version 13");
      const Piece &piece = m_.pieces[g.steps[*s.step].piece];
      if (s.result >= int64_t(piece.results.size()))
        r_.fail(path + ".result", "piece " + std::to_string(piece.index) + " has " +
                                      std::to_string(piece.results.size()) + " result(s)");
      const ValueType &type = piece.results[s.result];
      if (s.dim < 0 && type.isTensor)
        r_.fail(path + ".dim", "is needed: result " + std::to_string(s.result) +
                                   " of piece " + std::to_string(piece.index) + " is a tensor");
      if (s.dim >= 0 && (!type.isTensor || s.dim >= type.rank))
        r_.fail(path + ".dim", "result " + std::to_string(s.result) + " of piece " +
                                   std::to_string(piece.index) + " has no dimension " +
                                   std::to_string(s.dim));
      for (const GraphInput &in : g.inputs)
        for (const Expr &e : in.shape)
          for (const std::string &name : e.names())
            if (name == s.name)
              r_.fail(path, "is defined by a step, but input " + in.name + "'s shape uses it");
    }
  }

  void parseGraph(const JsonValue &graph) {
    r_.object(graph, "graph",
              {"inputs", "symbols", "checks", "steps", "loops", "branches", "outputs",
               "output_shapes", "mutations"});
    Graph &g = m_.graph;
    // Symbols first: input shapes refer to them.
    const auto &symbols = r_.arrayField(graph, "graph", "symbols");
    std::set<std::string> symbolNames;
    for (size_t i = 0; i < symbols.size(); ++i) {
      std::string path = indexed("graph.symbols", i);
      r_.object(symbols[i], path, {"name", "min", "max", "input", "dim", "step", "result"});
      GraphSymbol s;
      s.name = r_.stringField(symbols[i], path, "name");
      if (!symbolNames.insert(s.name).second)
        r_.fail(path + ".name", "symbol \"" + s.name + "\" is defined twice");
      // From format 12 a value read on the host may have no minimum (null).
      if (r_.optionalField(symbols[i], "min"))
        s.min = r_.integerField(symbols[i], path, "min");
      else if (m_.version < 12)
        r_.fail(path + ".min", "a symbol without a minimum needs format version 12");
      else
        s.min = std::nullopt;
      if (const JsonValue *max = r_.optionalField(symbols[i], "max")) {
        s.max = r_.integer(*max, path + ".max");
        if (s.min && *s.max < *s.min)
          r_.fail(path + ".max", "is below min");
      }
      if (r_.optionalField(symbols[i], "step")) {
        if (m_.version < 9)
          r_.fail(path + ".step", "symbols defined by a step need format version 9");
        if (r_.optionalField(symbols[i], "input"))
          r_.fail(path, "is defined by an input or by a step, not both");
        s.step = r_.nonNegativeField(symbols[i], path, "step");
        s.result = r_.nonNegativeField(symbols[i], path, "result");
        // Without "dim", the step's result is the index itself.
        s.dim = r_.optionalField(symbols[i], "dim") ? r_.nonNegativeField(symbols[i], path, "dim")
                                                    : -1;
      } else {
        s.input = r_.nonNegativeField(symbols[i], path, "input");
        s.dim = r_.nonNegativeField(symbols[i], path, "dim");
      }
      if (!s.min && (!s.fromStep() || s.dim >= 0))
        r_.fail(path + ".min", "only a value read on the host may have no minimum (a size has one)");
      g.symbols.push_back(s);
    }

    const auto &inputs = r_.arrayField(graph, "graph", "inputs");
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string path = indexed("graph.inputs", i);
      r_.object(inputs[i], path, {"name", "kind", "dtype", "shape", "weight", "concat_of"});
      GraphInput in;
      in.name = r_.stringField(inputs[i], path, "name");
      std::string kind = r_.stringField(inputs[i], path, "kind");
      if (kind == "parameter")
        in.kind = InputKind::Parameter;
      else if (kind == "buffer")
        in.kind = InputKind::Buffer;
      else if (kind == "constant")
        in.kind = InputKind::Constant;
      else if (kind == "user_input")
        in.kind = InputKind::UserInput;
      else
        r_.fail(path + ".kind", "expected parameter, buffer, constant or user_input, got \"" +
                                    kind + "\"");
      in.dtype = r_.dtype(r_.field(inputs[i], path, "dtype"), path + ".dtype");
      const auto &shape = r_.arrayField(inputs[i], path, "shape");
      for (size_t d = 0; d < shape.size(); ++d) {
        std::string dimPath = indexed(path + ".shape", d);
        in.shape.push_back(r_.expr(shape[d], dimPath));
        checkGraphExpr(in.shape.back(), dimPath);
      }
      if (r_.optionalField(inputs[i], "concat_of")) {
        if (m_.version < 3)
          r_.fail(path + ".concat_of", "concatenated weights need format version 3");
        if (!in.isWeight() || r_.optionalField(inputs[i], "weight"))
          r_.fail(path + ".concat_of",
                  "only a weight without a \"weight\" of its own is a concatenation");
        const auto &parts = r_.arrayField(inputs[i], path, "concat_of");
        if (parts.size() < 2)
          r_.fail(path + ".concat_of", "a concatenation has at least two parts");
        for (size_t k = 0; k < parts.size(); ++k)
          in.concatOf.push_back(r_.integer(parts[k], indexed(path + ".concat_of", k)));
      }
      const JsonValue *weight = r_.optionalField(inputs[i], "weight");
      // A weight without "weight" (--no-weights) parses; running it is an
      // error (Executor).
      if (in.isWeight() && weight) {
        in.weight = parseWeight(*weight, path + ".weight", in);
      } else if (weight) {
        r_.fail(path + ".weight", "a user_input has no weight");
      }
      g.inputs.push_back(std::move(in));
    }
    checkConcatenations(g);

    for (size_t i = 0; i < g.symbols.size(); ++i) {
      const GraphSymbol &s = g.symbols[i];
      std::string path = indexed("graph.symbols", i);
      if (s.fromStep())
        continue; // checked with the steps
      if (s.input >= int64_t(g.inputs.size()))
        r_.fail(path + ".input", "graph input " + std::to_string(s.input) + " does not exist");
      const GraphInput &in = g.inputs[s.input];
      if (in.kind != InputKind::UserInput)
        r_.fail(path + ".input", "graph input " + std::to_string(s.input) + " (" + in.name +
                                     ") is not a user_input");
      if (s.dim >= int64_t(in.shape.size()))
        r_.fail(path + ".dim", "input " + in.name + " has rank " +
                                   std::to_string(in.shape.size()));
    }

    const auto &steps = r_.arrayField(graph, "graph", "steps");
    parseLoopExtents(graph, int64_t(steps.size()));
    parseBranchExtents(graph, int64_t(steps.size()));
    g.steps.resize(steps.size());
    checkNesting(graph);
    // Steps are read in the order a run meets them (each loop and branch
    // as a whole, its start, parts and end), so that a reference sees
    // exactly what has run before it where it is.
    parsePart(graph, steps, GraphPart{});
    checkStepSymbols();

    const auto &outputs = r_.arrayField(graph, "graph", "outputs");
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path = indexed("graph.outputs", i);
      ValueRef ref = parseRef(outputs[i], path, int64_t(g.steps.size()));
      if (!typeOf(ref).isTensor)
        r_.fail(path, "a graph output must be a tensor, not an index");
      g.outputs.push_back(ref);
    }
    parseOutputShapes(graph);
    if (r_.optionalField(graph, "mutations"))
      parseMutations(r_.arrayField(graph, "graph", "mutations"));
    if (r_.optionalField(graph, "checks"))
      parseChecks(r_.arrayField(graph, "graph", "checks"));
  }

  // One shape over the symbols per output, of the output's rank (format 8;
  // magi-compile always writes them, ExecutorOptions::padToCompileSizes
  // needs them).
  void parseOutputShapes(const JsonValue &graph) {
    Graph &g = m_.graph;
    if (!r_.optionalField(graph, "output_shapes"))
      return;
    if (m_.version < 8)
      r_.fail("graph.output_shapes", "output shapes need format version 8");
    const auto &shapes = r_.arrayField(graph, "graph", "output_shapes");
    if (shapes.size() != g.outputs.size())
      r_.fail("graph.output_shapes", "has " + std::to_string(shapes.size()) +
                                         " shape(s) for " + std::to_string(g.outputs.size()) +
                                         " output(s)");
    for (size_t i = 0; i < shapes.size(); ++i) {
      std::string path = indexed("graph.output_shapes", i);
      if (!shapes[i].isArray())
        r_.fail(path, "expected an array of sizes");
      const auto &dims = shapes[i].items();
      int64_t rank = typeOf(g.outputs[i]).rank;
      if (int64_t(dims.size()) != rank)
        r_.fail(path, "has " + std::to_string(dims.size()) + " size(s), but output " +
                          std::to_string(i) + " has rank " + std::to_string(rank));
      std::vector<Expr> shape;
      for (size_t d = 0; d < dims.size(); ++d) {
        std::string dimPath = indexed(path, d);
        shape.push_back(r_.expr(dims[d], dimPath));
        checkGraphExpr(shape.back(), dimPath);
      }
      g.outputShapes.push_back(std::move(shape));
    }
  }

  // Each check: an expression over the symbols and its message.
  void parseChecks(const std::vector<JsonValue> &list) {
    Graph &g = m_.graph;
    if (m_.version < 6 && !list.empty())
      r_.fail("graph.checks", "checks need format version 6");
    for (size_t i = 0; i < list.size(); ++i) {
      std::string path = indexed("graph.checks", i);
      r_.object(list[i], path, {"expr", "message"});
      GraphCheck check;
      check.expr = Expr::fromJson(r_.field(list[i], path, "expr"), path + ".expr");
      check.message = r_.stringField(list[i], path, "message");
      for (const std::string &name : check.expr.names())
        if (std::none_of(g.symbols.begin(), g.symbols.end(),
                         [&](const GraphSymbol &s) { return s.name == name; }))
          r_.fail(path + ".expr", "'" + name + "' is not a symbol of the graph");
      g.checks.push_back(std::move(check));
    }
  }

  // Each mutation: an output that is the new value of a buffer or user
  // input of its dtype and rank; no output or input twice; outputs in
  // increasing order.
  void parseMutations(const std::vector<JsonValue> &list) {
    Graph &g = m_.graph;
    if (m_.version < 5 && !list.empty())
      r_.fail("graph.mutations", "mutations need format version 5");
    std::set<int64_t> inputs;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string path = indexed("graph.mutations", i);
      r_.object(list[i], path, {"output", "input"});
      GraphMutation m;
      m.output = r_.nonNegativeField(list[i], path, "output");
      m.input = r_.nonNegativeField(list[i], path, "input");
      if (m.output >= int64_t(g.outputs.size()))
        r_.fail(path + ".output", "graph output " + std::to_string(m.output) + " does not exist");
      if (!g.mutations.empty() && m.output <= g.mutations.back().output)
        r_.fail(path + ".output", "mutations must be listed by increasing output");
      if (m.input >= int64_t(g.inputs.size()))
        r_.fail(path + ".input", "graph input " + std::to_string(m.input) + " does not exist");
      const GraphInput &in = g.inputs[m.input];
      if (in.kind != InputKind::Buffer && in.kind != InputKind::UserInput)
        r_.fail(path + ".input", "graph input " + std::to_string(m.input) + " (" + in.name +
                                     ") is no buffer or user_input: only those are mutated");
      bool partOfConcatenation = false;
      for (const GraphInput &other : g.inputs)
        for (int64_t part : other.concatOf)
          partOfConcatenation |= part == m.input;
      if (partOfConcatenation)
        r_.fail(path + ".input", "graph input " + std::to_string(m.input) + " (" + in.name +
                                     ") is part of a concatenation");
      if (!inputs.insert(m.input).second)
        r_.fail(path + ".input", "graph input " + std::to_string(m.input) + " (" + in.name +
                                     ") is mutated twice");
      ValueType want{true, in.dtype, int64_t(in.shape.size())};
      checkType(typeOf(g.outputs[m.output]), want, path,
                "the new value of input " + std::to_string(m.input) + " (" + in.name + ")");
      g.mutations.push_back(m);
    }
  }

  ValueType typeOf(const ValueRef &ref) const { return m_.typeOf(ref); }

  void checkType(const ValueType &actual, const ValueType &expected, const std::string &path,
                 const std::string &what) const {
    auto text = [](const ValueType &t) {
      return t.isTensor ? std::string("a rank-") + std::to_string(t.rank) + " " +
                              manifestName(t.dtype) + " tensor"
                        : std::string("an index");
    };
    if (actual.isTensor != expected.isTensor ||
        (actual.isTensor && (actual.dtype != expected.dtype || actual.rank != expected.rank)))
      r_.fail(path, what + " is " + text(expected) + ", but this is " + text(actual));
  }

  // Where a reference is: outside any loop or branch, or in one part of
  // one (a loop's condition or body, a branch's then or else part), whose
  // first step is `partStart`; `loop` is the loop's index, if in a loop.
  // One step, where `here` is the part holding it.
  void parseStep(const JsonValue &value, size_t i, const GraphPart &here) {
    Graph &g = m_.graph;
    std::string path = indexed("graph.steps", i);
    r_.object(value, path, {"piece", "args"});
    GraphStep step;
    step.piece = r_.nonNegativeField(value, path, "piece");
    if (step.piece >= int64_t(m_.pieces.size()))
      r_.fail(path + ".piece", "piece " + std::to_string(step.piece) + " does not exist (" +
                                   std::to_string(m_.pieces.size()) + " pieces)");
    const Piece &piece = m_.pieces[step.piece];
    const auto &args = r_.arrayField(value, path, "args");
    if (args.size() != piece.args.size())
      r_.fail(path + ".args", "piece " + std::to_string(step.piece) + " takes " +
                                  std::to_string(piece.args.size()) + " argument(s), not " +
                                  std::to_string(args.size()));
    for (size_t a = 0; a < args.size(); ++a) {
      std::string argPath = indexed(path + ".args", a);
      ValueRef ref = parseRef(args[a], argPath, int64_t(i), here);
      checkType(typeOf(ref), piece.args[a], argPath,
                "argument " + std::to_string(a) + " of piece " + std::to_string(step.piece));
      step.args.push_back(ref);
    }
    g.steps[i] = std::move(step);
  }

  // What `part` runs, in order (Graph::items: the nesting is checked).
  void parsePart(const JsonValue &graph, const std::vector<JsonValue> &steps,
                 const GraphPart &part) {
    for (const GraphItem &item : m_.graph.items(part)) {
      switch (item.kind) {
      case GraphItem::Kind::Step:
        parseStep(steps[size_t(item.index)], size_t(item.index), part);
        break;
      case GraphItem::Kind::Loop: {
        size_t l = size_t(item.index);
        parseLoopCarried(graph, l);
        parsePart(graph, steps, GraphPart{GraphPart::Owner::Loop, item.index, 0});
        parsePart(graph, steps, GraphPart{GraphPart::Owner::Loop, item.index, 1});
        parseLoopEnd(graph, l);
        break;
      }
      case GraphItem::Kind::Branch: {
        size_t b = size_t(item.index);
        parseBranchCondition(graph, b);
        parsePart(graph, steps, GraphPart{GraphPart::Owner::Branch, item.index, 0});
        parsePart(graph, steps, GraphPart{GraphPart::Owner::Branch, item.index, 1});
        parseBranchResults(graph, b);
        break;
      }
      }
    }
  }

  // How a part is named in messages: "loop 0's body".
  std::string ownerName(const GraphPart &part) const {
    return (part.owner == GraphPart::Owner::Loop ? "loop " : "branch ") +
           std::to_string(part.index);
  }
  std::string partName(const GraphPart &part) const {
    if (part.owner == GraphPart::Owner::Loop)
      return part.part == 0 ? "condition" : "body";
    return part.part == 0 ? "then part" : "else part";
  }
  std::string resultsRef(const GraphPart &part) const {
    return "{\"" + std::string(part.owner == GraphPart::Owner::Loop ? "loop" : "branch") +
           "\": " + std::to_string(part.index) + ", \"result\": k}";
  }

  // Fails unless what lies in part `there` (a step, or a loop or branch)
  // can be seen from part `here`: `there` is `here` or holds it.
  void checkVisible(const GraphPart &there, const GraphPart &here, const std::string &path,
                    const std::string &what, bool isValue = true) {
    const Graph &g = m_.graph;
    if (g.encloses(there, here))
      return;
    // The outermost part holding `there` that `here` is not in.
    GraphPart hidden = there;
    while (g.parentOf(hidden).owner != GraphPart::Owner::Graph && !g.encloses(g.parentOf(hidden), here))
      hidden = g.parentOf(hidden);
    GraphPart other{hidden.owner, hidden.index, 1 - hidden.part};
    if (!isValue)
      r_.fail(path, what + " is in " + ownerName(hidden) + "'s " + partName(hidden) +
                        ", and it is used outside it");
    if (g.encloses(other, here))
      r_.fail(path, what + " is in " + ownerName(hidden) + "'s " + partName(hidden) +
                        ", which its " + partName(other) + " does not see");
    r_.fail(path, what + " is one of " + ownerName(hidden) + "'s steps: outside it, its values are " +
                      resultsRef(hidden));
  }

  ValueRef parseRef(const JsonValue &value, const std::string &path, int64_t stepLimit,
                    const GraphPart &here = GraphPart{}) {
    const char *expected = "expected {\"input\": i}, {\"step\": j, \"result\": k}, "
                           "{\"symbol\": name}, {\"int\": n}, {\"loop\": l, \"result\": k}, "
                           "{\"branch\": b, \"result\": k} or {\"carried\": k}";
    const Graph &g = m_.graph;
    if (!value.isObject())
      r_.fail(path, expected);
    ValueRef ref;
    if (value.find("input")) {
      r_.object(value, path, {"input"});
      ref.kind = ValueRef::Kind::Input;
      ref.index = r_.nonNegativeField(value, path, "input");
      if (ref.index >= int64_t(g.inputs.size()))
        r_.fail(path + ".input", "graph input " + std::to_string(ref.index) + " does not exist");
    } else if (value.find("step")) {
      r_.object(value, path, {"step", "result"});
      ref.kind = ValueRef::Kind::StepResult;
      ref.index = r_.nonNegativeField(value, path, "step");
      ref.result = r_.nonNegativeField(value, path, "result");
      if (ref.index >= stepLimit)
        r_.fail(path + ".step", "step " + std::to_string(ref.index) +
                                    " has not run yet (only earlier steps' results can be used)");
      checkVisible(g.partOfStep(ref.index), here, path + ".step",
                   "step " + std::to_string(ref.index));
      const Piece &piece = m_.pieces[g.steps[ref.index].piece];
      if (ref.result >= int64_t(piece.results.size()))
        r_.fail(path + ".result", "piece " + std::to_string(piece.index) + " has " +
                                      std::to_string(piece.results.size()) + " result(s)");
    } else if (value.find("symbol")) {
      r_.object(value, path, {"symbol"});
      ref.kind = ValueRef::Kind::Symbol;
      ref.symbol = r_.stringField(value, path, "symbol");
      const GraphSymbol *symbol = nullptr;
      for (const GraphSymbol &s : g.symbols)
        if (s.name == ref.symbol)
          symbol = &s;
      if (!symbol)
        r_.fail(path + ".symbol", "\"" + ref.symbol + "\" is not a graph symbol");
      checkSymbolRuns(*symbol, stepLimit, here, path + ".symbol");
    } else if (value.find("int")) {
      r_.object(value, path, {"int"});
      ref.kind = ValueRef::Kind::Int;
      ref.value = r_.integerField(value, path, "int");
    } else if (value.find("carried")) {
      r_.object(value, path, {"carried", "loop"});
      ref.kind = ValueRef::Kind::Carried;
      ref.result = r_.nonNegativeField(value, path, "carried");
      std::optional<int64_t> loop;
      if (value.find("loop")) {
        if (m_.version < 13)
          r_.fail(path + ".loop", "a carried value of a named loop needs format version 13");
        ref.namesLoop = true;
        loop = r_.nonNegativeField(value, path, "loop");
        if (*loop >= int64_t(g.loops.size()))
          r_.fail(path + ".loop", "loop " + std::to_string(*loop) + " does not exist");
        GraphPart cond{GraphPart::Owner::Loop, *loop, 0}, body{GraphPart::Owner::Loop, *loop, 1};
        if (!g.encloses(cond, here) && !g.encloses(body, here))
          r_.fail(path + ".loop", "is used outside loop " + std::to_string(*loop) + "'s steps");
      } else {
        loop = g.loopAround(here);
        if (!loop)
          r_.fail(path, "a carried value is used outside any loop's steps");
      }
      ref.index = *loop;
      const GraphLoop &carrier = g.loops[size_t(*loop)];
      if (ref.result >= int64_t(carrier.carried.size()))
        r_.fail(path + ".carried", "loop " + std::to_string(*loop) + " carries " +
                                       std::to_string(carrier.carried.size()) + " value(s)");
    } else if (value.find("loop")) {
      r_.object(value, path, {"loop", "result"});
      ref.kind = ValueRef::Kind::LoopResult;
      ref.index = r_.nonNegativeField(value, path, "loop");
      ref.result = r_.nonNegativeField(value, path, "result");
      if (ref.index >= int64_t(g.loops.size()))
        r_.fail(path + ".loop", "loop " + std::to_string(ref.index) + " does not exist");
      const GraphLoop &loop = g.loops[ref.index];
      if (loop.end() > stepLimit || !loopEndParsed_[ref.index])
        r_.fail(path + ".loop", "loop " + std::to_string(ref.index) + " has not ended yet");
      checkVisible(loop.in, here, path + ".loop", "loop " + std::to_string(ref.index));
      if (ref.result >= int64_t(loop.carried.size()))
        r_.fail(path + ".result", "loop " + std::to_string(ref.index) + " carries " +
                                      std::to_string(loop.carried.size()) + " value(s)");
    } else if (value.find("branch")) {
      r_.object(value, path, {"branch", "result"});
      ref.kind = ValueRef::Kind::BranchResult;
      ref.index = r_.nonNegativeField(value, path, "branch");
      ref.result = r_.nonNegativeField(value, path, "result");
      if (ref.index >= int64_t(g.branches.size()))
        r_.fail(path + ".branch", "branch " + std::to_string(ref.index) + " does not exist");
      const GraphBranch &branch = g.branches[ref.index];
      if (branch.end() > stepLimit || !branchResultsParsed_[ref.index])
        r_.fail(path + ".branch", "branch " + std::to_string(ref.index) + " has not ended yet");
      checkVisible(branch.in, here, path + ".branch", "branch " + std::to_string(ref.index));
      if (ref.result >= int64_t(branch.thenResults.size()))
        r_.fail(path + ".result", "branch " + std::to_string(ref.index) + " gives " +
                                      std::to_string(branch.thenResults.size()) + " value(s)");
    } else {
      r_.fail(path, expected);
    }
    if ((ref.kind == ValueRef::Kind::LoopResult || ref.kind == ValueRef::Kind::Carried) &&
        m_.version < 10)
      r_.fail(path, "loops need format version 10");
    if (ref.kind == ValueRef::Kind::BranchResult && m_.version < 11)
      r_.fail(path, "branches need format version 11");
    return ref;
  }

  // A symbol a step defines is used (by a reference or a branch's
  // condition) in part `here` before step `stepLimit`: that step must have
  // run, where `here` sees it.
  void checkSymbolRuns(const GraphSymbol &symbol, int64_t stepLimit, const GraphPart &here,
                       const std::string &path) {
    if (!symbol.fromStep())
      return;
    if (*symbol.step >= stepLimit)
      r_.fail(path, "\"" + symbol.name + "\" is defined by step " +
                        std::to_string(*symbol.step) + ", which has not run yet");
    checkVisible(m_.graph.partOfStep(*symbol.step), here, path,
                 "\"" + symbol.name + "\" is defined by step " + std::to_string(*symbol.step) +
                     ", which",
                 /*isValue=*/false);
  }

  // The steps [first, first + partA + partB) of a loop or branch at `path`:
  // listed by first step, inside the graph.
  void checkExtent(const std::string &path, const std::string &what, int64_t first,
                   int64_t partA, int64_t partB, int64_t &previousFirst, int64_t numSteps) {
    if (first < previousFirst)
      r_.fail(path + ".first", what + " are listed by their first step");
    if (partA > numSteps || partB > numSteps || first > numSteps ||
        first + partA + partB > numSteps)
      r_.fail(path, "its steps go past the graph's " + std::to_string(numSteps));
    previousFirst = first;
  }

  // A loop's or branch's "in" (format 13; absent: the graph): the part of
  // a loop or branch that holds it.
  GraphPart parseIn(const JsonValue &value, const std::string &path) {
    const JsonValue *in = r_.optionalField(value, "in");
    if (!in)
      return GraphPart{};
    if (m_.version < 13)
      r_.fail(path + ".in", "a loop or branch inside another needs format version 13");
    std::string inPath = path + ".in";
    r_.object(*in, inPath, {"loop", "branch", "part"});
    GraphPart part;
    std::string name = r_.stringField(*in, inPath, "part");
    if (in->find("loop") && !in->find("branch")) {
      part.owner = GraphPart::Owner::Loop;
      part.index = r_.nonNegativeField(*in, inPath, "loop");
      if (part.index >= int64_t(m_.graph.loops.size()))
        r_.fail(inPath + ".loop", "loop " + std::to_string(part.index) + " does not exist");
      if (name != "condition" && name != "body")
        r_.fail(inPath + ".part", "a loop's parts are \"condition\" and \"body\", not \"" + name +
                                      "\"");
      part.part = name == "body";
    } else if (in->find("branch") && !in->find("loop")) {
      part.owner = GraphPart::Owner::Branch;
      part.index = r_.nonNegativeField(*in, inPath, "branch");
      if (part.index >= int64_t(m_.graph.branches.size()))
        r_.fail(inPath + ".branch", "branch " + std::to_string(part.index) + " does not exist");
      if (name != "then" && name != "else")
        r_.fail(inPath + ".part", "a branch's parts are \"then\" and \"else\", not \"" + name +
                                      "\"");
      part.part = name == "else";
    } else {
      r_.fail(inPath, "expected {\"loop\": l, \"part\": ...} or {\"branch\": b, \"part\": ...}");
    }
    return part;
  }

  // Every loop's and branch's "in", once both lists' extents are read: the
  // part named holds its steps, no two in one part overlap, and nothing
  // holds itself.
  void checkNesting(const JsonValue &graph) {
    Graph &g = m_.graph;
    struct Entry {
      std::string path, name;
      GraphPart part; // its own part 0, standing for the whole
      int64_t first, end;
      GraphPart *in;
    };
    std::vector<Entry> entries;
    for (size_t l = 0; l < g.loops.size(); ++l)
      entries.push_back({indexed("graph.loops", l), "loop " + std::to_string(l),
                         GraphPart{GraphPart::Owner::Loop, int64_t(l), 0}, g.loops[l].first,
                         g.loops[l].end(), &g.loops[l].in});
    for (size_t b = 0; b < g.branches.size(); ++b)
      entries.push_back({indexed("graph.branches", b), "branch " + std::to_string(b),
                         GraphPart{GraphPart::Owner::Branch, int64_t(b), 0}, g.branches[b].first,
                         g.branches[b].end(), &g.branches[b].in});
    for (size_t e = 0; e < entries.size(); ++e) {
      const Entry &entry = entries[e];
      const JsonValue &value =
          r_.arrayField(graph, "graph",
                        entry.part.owner == GraphPart::Owner::Loop ? "loops" : "branches")
              [size_t(entry.part.index)];
      *entry.in = parseIn(value, entry.path);
      const GraphPart &in = *entry.in;
      if (in.owner == entry.part.owner && in.index == entry.part.index)
        r_.fail(entry.path + ".in", "names " + entry.name + " itself");
      auto [begin, end] = g.extent(in);
      if (entry.first < begin || entry.end > end)
        r_.fail(entry.path + ".in", "its steps " + std::to_string(entry.first) + " to " +
                                        std::to_string(entry.end) + " are not inside " +
                                        (in.owner == GraphPart::Owner::Graph
                                             ? std::string("the graph")
                                             : ownerName(in) + "'s " + partName(in)) +
                                        " (steps " + std::to_string(begin) + " to " +
                                        std::to_string(end) + ")");
    }
    // Loops and branches in one part do not overlap (one of no steps may
    // stand where another starts or ends).
    for (size_t e = 0; e < entries.size(); ++e)
      for (size_t f = e + 1; f < entries.size(); ++f) {
        const Entry &x = entries[e], &y = entries[f];
        if (*x.in != *y.in)
          continue;
        auto inside = [](const Entry &a, const Entry &b) {
          // a's steps, or its position if it has none, inside b's.
          return a.end > a.first ? a.first < b.end && b.first < a.end
                                 : b.first < a.first && a.first < b.end;
        };
        if (inside(x, y) || inside(y, x))
          r_.fail(y.path, "overlaps " + x.name + ", which is in the same part: a loop or branch "
                                                 "inside another names it as its \"in\"");
      }
    // Every chain of "in" reaches the graph, and not too deep: running
    // and planning recurse once per level.
    for (const Entry &entry : entries) {
      GraphPart p = *entry.in;
      size_t depth = 0;
      for (; p.owner != GraphPart::Owner::Graph && depth <= entries.size(); ++depth)
        p = g.parentOf(p);
      if (p.owner != GraphPart::Owner::Graph)
        r_.fail(entry.path + ".in", entry.name + " is inside itself through the others' \"in\"");
      if (depth > kMaxControlNesting)
        r_.fail(entry.path + ".in", entry.name + " is inside " + std::to_string(depth) +
                                        " loops and branches: they nest at most " +
                                        std::to_string(kMaxControlNesting) + " deep");
    }
  }

  // graph.branches' extents (format 11), before the steps, like loops'.
  void parseBranchExtents(const JsonValue &graph, int64_t numSteps) {
    if (!r_.optionalField(graph, "branches"))
      return;
    if (m_.version < 11)
      r_.fail("graph.branches", "branches need format version 11");
    const auto &branches = r_.arrayField(graph, "graph", "branches");
    int64_t previousFirst = 0;
    for (size_t b = 0; b < branches.size(); ++b) {
      std::string path = indexed("graph.branches", b);
      r_.object(branches[b], path,
                {"first", "then_steps", "else_steps", "condition", "then", "else", "in"});
      GraphBranch branch;
      branch.first = r_.nonNegativeField(branches[b], path, "first");
      branch.thenSteps = r_.nonNegativeField(branches[b], path, "then_steps");
      branch.elseSteps = r_.nonNegativeField(branches[b], path, "else_steps");
      checkExtent(path, "branches", branch.first, branch.thenSteps, branch.elseSteps,
                  previousFirst, numSteps);
      m_.graph.branches.push_back(std::move(branch));
    }
    branchResultsParsed_.assign(m_.graph.branches.size(), false);
  }

  // Branch b's condition, read when the run reaches it: symbols, those a
  // step defines defined before it where it is.
  void parseBranchCondition(const JsonValue &graph, size_t b) {
    std::string path = indexed("graph.branches", b) + ".condition";
    GraphBranch &branch = m_.graph.branches[b];
    const JsonValue &value = r_.arrayField(graph, "graph", "branches")[b];
    branch.condition = r_.expr(r_.field(value, indexed("graph.branches", b), "condition"), path);
    checkGraphExpr(branch.condition, path);
    for (const std::string &name : branch.condition.names())
      for (const GraphSymbol &s : m_.graph.symbols)
        if (s.name == name && s.fromStep()) {
          if (*s.step >= branch.first)
            r_.fail(path, "'" + name + "' is defined by step " + std::to_string(*s.step) +
                              ", which does not run before the branch");
          checkSymbolRuns(s, branch.first, branch.in, path);
        }
  }

  // Branch b's results, read after its steps.
  void parseBranchResults(const JsonValue &graph, size_t b) {
    GraphBranch &branch = m_.graph.branches[b];
    std::string path = indexed("graph.branches", b);
    const JsonValue &value = r_.arrayField(graph, "graph", "branches")[b];
    int64_t elseStart = branch.first + branch.thenSteps;
    const auto &thenList = r_.arrayField(value, path, "then");
    const auto &elseList = r_.arrayField(value, path, "else");
    if (thenList.size() != elseList.size())
      r_.fail(path + ".else", "has " + std::to_string(elseList.size()) +
                                  " value(s), its then part " + std::to_string(thenList.size()));
    GraphPart thenPart{GraphPart::Owner::Branch, int64_t(b), 0};
    GraphPart elsePart{GraphPart::Owner::Branch, int64_t(b), 1};
    for (size_t k = 0; k < thenList.size(); ++k) {
      std::string thenPath = indexed(path + ".then", k), elsePath = indexed(path + ".else", k);
      ValueRef thenRef = parseRef(thenList[k], thenPath, elseStart, thenPart);
      ValueRef elseRef = parseRef(elseList[k], elsePath, branch.end(), elsePart);
      if (!typeOf(thenRef).isTensor)
        r_.fail(thenPath, "a branch gives tensors, not indices");
      checkType(typeOf(elseRef), typeOf(thenRef), elsePath,
                "result " + std::to_string(k) + " of branch " + std::to_string(b));
      branch.thenResults.push_back(thenRef);
      branch.elseResults.push_back(elseRef);
    }
    branchResultsParsed_[b] = true;
  }

  // graph.loops' extents (format 10), before the steps: a step's references
  // depend on the loop it is in. Their values are read with the steps.
  void parseLoopExtents(const JsonValue &graph, int64_t numSteps) {
    if (!r_.optionalField(graph, "loops"))
      return;
    if (m_.version < 10)
      r_.fail("graph.loops", "loops need format version 10");
    const auto &loops = r_.arrayField(graph, "graph", "loops");
    int64_t previousFirst = 0;
    for (size_t l = 0; l < loops.size(); ++l) {
      std::string path = indexed("graph.loops", l);
      r_.object(loops[l], path,
                {"first", "cond_steps", "body_steps", "carried", "condition", "next", "in"});
      GraphLoop loop;
      loop.first = r_.nonNegativeField(loops[l], path, "first");
      loop.condSteps = r_.nonNegativeField(loops[l], path, "cond_steps");
      loop.bodySteps = r_.nonNegativeField(loops[l], path, "body_steps");
      if (loop.condSteps == 0)
        r_.fail(path + ".cond_steps", "a loop's condition is a step's result: at least one step");
      checkExtent(path, "loops", loop.first, loop.condSteps, loop.bodySteps, previousFirst,
                  numSteps);
      m_.graph.loops.push_back(std::move(loop));
    }
    loopEndParsed_.assign(m_.graph.loops.size(), false);
  }

  // Loop l's initial values, read when the run reaches it: what came
  // before the loop where it is.
  void parseLoopCarried(const JsonValue &graph, size_t l) {
    std::string path = indexed("graph.loops", l);
    GraphLoop &loop = m_.graph.loops[l];
    const auto &carried = r_.arrayField(r_.arrayField(graph, "graph", "loops")[l], path, "carried");
    for (size_t k = 0; k < carried.size(); ++k) {
      std::string refPath = indexed(path + ".carried", k);
      ValueRef ref = parseRef(carried[k], refPath, loop.first, loop.in);
      if (!typeOf(ref).isTensor)
        r_.fail(refPath, "a loop carries tensors, not indices");
      loop.carried.push_back(ref);
    }
  }

  // Loop l's condition and next values, read after its last step.
  void parseLoopEnd(const JsonValue &graph, size_t l) {
    std::string path = indexed("graph.loops", l);
    const JsonValue &value = r_.arrayField(graph, "graph", "loops")[l];
    GraphLoop &loop = m_.graph.loops[l];
    int64_t bodyStart = loop.first + loop.condSteps;
    ValueRef condition = parseRef(r_.field(value, path, "condition"), path + ".condition",
                                  bodyStart, GraphPart{GraphPart::Owner::Loop, int64_t(l), 0});
    if (condition.kind != ValueRef::Kind::StepResult || condition.index < loop.first ||
        typeOf(condition).isTensor)
      r_.fail(path + ".condition", "is an index result of one of the loop's condition steps");
    loop.condition = condition;
    const auto &next = r_.arrayField(value, path, "next");
    if (next.size() != loop.carried.size())
      r_.fail(path + ".next", "has " + std::to_string(next.size()) + " value(s) for " +
                                  std::to_string(loop.carried.size()) + " carried");
    for (size_t k = 0; k < next.size(); ++k) {
      std::string refPath = indexed(path + ".next", k);
      ValueRef ref = parseRef(next[k], refPath, loop.end(),
                              GraphPart{GraphPart::Owner::Loop, int64_t(l), 1});
      checkType(typeOf(ref), typeOf(loop.carried[k]), refPath,
                "carried value " + std::to_string(k) + " of loop " + std::to_string(l));
      loop.next.push_back(ref);
    }
    loopEndParsed_[l] = true;
  }

  // ---- pieces -------------------------------------------------------------

  ValueType parseValueType(const JsonValue &value, const std::string &path) {
    r_.object(value, path, {"kind", "dtype", "rank"});
    ValueType type;
    std::string kind = r_.stringField(value, path, "kind");
    if (kind == "tensor") {
      type.isTensor = true;
      type.dtype = r_.dtype(r_.field(value, path, "dtype"), path + ".dtype");
      type.rank = r_.nonNegativeField(value, path, "rank");
    } else if (kind == "index") {
      if (value.find("dtype") || value.find("rank"))
        r_.fail(path, "an index has no dtype or rank");
    } else {
      r_.fail(path + ".kind", "expected \"tensor\" or \"index\", got \"" + kind + "\"");
    }
    return type;
  }

  Piece parsePieceSignature(const JsonValue &value, const std::string &path, size_t position) {
    r_.object(value, path,
              {"index", "name", "kind", "graph_index", "cuda_graph", "args", "results", "variants"});
    Piece piece;
    piece.index = r_.integerField(value, path, "index");
    if (piece.index != int64_t(position))
      r_.fail(path + ".index", "is " + std::to_string(piece.index) +
                                   ", but pieces must be listed in index order");
    piece.name = r_.stringField(value, path, "name");
    std::string kind = r_.stringField(value, path, "kind");
    if (kind != "compute" && kind != "splitting")
      r_.fail(path + ".kind", "expected \"compute\" or \"splitting\", got \"" + kind + "\"");
    piece.isSplitting = kind == "splitting";
    // Splitting pieces are not compiled graphs of the split: null.
    piece.graphIndex = -1;
    if (r_.optionalField(value, "graph_index") && piece.isSplitting)
      r_.fail(path + ".graph_index", "a splitting piece has no graph index (null)");
    if (r_.optionalField(value, "graph_index"))
      piece.graphIndex = r_.nonNegativeField(value, path, "graph_index");
    else if (!piece.isSplitting)
      r_.fail(path + ".graph_index", "a compute piece needs a graph index");
    piece.cudaGraph = r_.boolField(value, path, "cuda_graph");
    const auto &args = r_.arrayField(value, path, "args");
    for (size_t i = 0; i < args.size(); ++i)
      piece.args.push_back(parseValueType(args[i], indexed(path + ".args", i)));
    const auto &results = r_.arrayField(value, path, "results");
    for (size_t i = 0; i < results.size(); ++i)
      piece.results.push_back(parseValueType(results[i], indexed(path + ".results", i)));
    return piece;
  }

  // Checks the names of a variant expression: argN of an index argument,
  // argN.dD of a tensor argument, vN for N < `numValues`.
  void checkVariantExpr(const Expr &e, const std::string &path, const Piece &piece,
                        int64_t numValues) {
    for (const std::string &name : e.names()) {
      std::optional<VariantName> ref = parseVariantName(name);
      auto bad = [&](const std::string &why) {
        r_.fail(path, "\"" + e.text() + "\" uses '" + name + "': " + why);
      };
      if (!ref)
        bad("a piece variant may only use argN, argN.dD and vN");
      switch (ref->kind) {
      case VariantName::Kind::Value:
        if (ref->index >= numValues)
          bad("v" + std::to_string(ref->index) + " is not defined before this point");
        break;
      case VariantName::Kind::ScalarArg:
      case VariantName::Kind::ArgDim:
        if (ref->index >= int64_t(piece.args.size()))
          bad("the piece has " + std::to_string(piece.args.size()) + " argument(s)");
        const ValueType &arg = piece.args[ref->index];
        if (ref->kind == VariantName::Kind::ScalarArg && arg.isTensor)
          bad("argument " + std::to_string(ref->index) + " is a tensor (use argN.dD for a size)");
        if (ref->kind == VariantName::Kind::ArgDim && !arg.isTensor)
          bad("argument " + std::to_string(ref->index) + " is an index, not a tensor");
        if (ref->kind == VariantName::Kind::ArgDim && ref->dim >= arg.rank)
          bad("argument " + std::to_string(ref->index) + " has rank " + std::to_string(arg.rank));
        break;
      }
    }
  }

  Descriptor parseDescriptor(const JsonValue &value, const std::string &path, const Piece &piece,
                             const Variant &variant, const std::vector<bool> &allocated) {
    r_.object(value, path, {"base", "offset", "sizes", "strides"});
    Descriptor d;
    d.baseName = r_.stringField(value, path, "base");
    if (std::optional<int64_t> arg = parseNumbered(d.baseName, "arg")) {
      d.base = Descriptor::Base::Arg;
      d.baseIndex = *arg;
      if (d.baseIndex >= int64_t(piece.args.size()) || !piece.args[d.baseIndex].isTensor)
        r_.fail(path + ".base", "\"" + d.baseName + "\" is not a tensor argument of the piece");
    } else if (std::optional<int64_t> buffer = parseNumbered(d.baseName, "b")) {
      d.base = Descriptor::Base::Buffer;
      d.baseIndex = *buffer;
      if (d.baseIndex >= int64_t(allocated.size()) || !allocated[d.baseIndex])
        r_.fail(path + ".base", "buffer \"" + d.baseName + "\" is not allocated before this point");
    } else {
      r_.fail(path + ".base", "expected argN or bN, got \"" + d.baseName + "\"");
    }
    int64_t numValues = int64_t(variant.values.size());
    d.offset = r_.expr(r_.field(value, path, "offset"), path + ".offset");
    checkVariantExpr(d.offset, path + ".offset", piece, numValues);
    const auto &sizes = r_.arrayField(value, path, "sizes");
    const auto &strides = r_.arrayField(value, path, "strides");
    if (sizes.size() != strides.size())
      r_.fail(path, "has " + std::to_string(sizes.size()) + " sizes but " +
                        std::to_string(strides.size()) + " strides");
    for (size_t i = 0; i < sizes.size(); ++i) {
      d.sizes.push_back(r_.expr(sizes[i], indexed(path + ".sizes", i)));
      checkVariantExpr(d.sizes.back(), indexed(path + ".sizes", i), piece, numValues);
      d.strides.push_back(r_.expr(strides[i], indexed(path + ".strides", i)));
      checkVariantExpr(d.strides.back(), indexed(path + ".strides", i), piece, numValues);
    }
    return d;
  }

  PlanOp parsePlanOp(const JsonValue &value, const std::string &path, const Piece &piece,
                     Variant &variant, std::vector<bool> &allocated) {
    if (!value.isObject())
      r_.fail(path, "expected an object");
    std::string op = r_.stringField(value, path, "op");
    int64_t numValues = int64_t(variant.values.size());
    PlanOp plan;
    if (op == "alloc") {
      r_.object(value, path, {"op", "buffer", "bytes"});
      plan.kind = PlanOp::Kind::Alloc;
      std::string name = r_.stringField(value, path, "buffer");
      std::optional<int64_t> buffer = parseNumbered(name, "b");
      if (!buffer)
        r_.fail(path + ".buffer", "expected bN, got \"" + name + "\"");
      if (*buffer < int64_t(allocated.size()) && allocated[*buffer])
        r_.fail(path + ".buffer", "buffer \"" + name + "\" is allocated twice");
      if (*buffer > 100000)
        r_.fail(path + ".buffer", "buffer number is implausibly large");
      plan.buffer = *buffer;
      if (int64_t(allocated.size()) <= plan.buffer)
        allocated.resize(plan.buffer + 1, false);
      allocated[plan.buffer] = true;
      variant.numBuffers = std::max(variant.numBuffers, plan.buffer + 1);
      plan.bytes = r_.expr(r_.field(value, path, "bytes"), path + ".bytes");
      checkVariantExpr(plan.bytes, path + ".bytes", piece, numValues);
    } else if (op == "launch") {
      r_.object(value, path,
                {"op", "kernel", "grid", "block", "shared_bytes", "args", "programmatic"});
      plan.kind = PlanOp::Kind::Launch;
      if (r_.optionalField(value, "programmatic")) {
        if (m_.version < 7)
          r_.fail(path + ".programmatic", "programmatic launches need format version 7");
        plan.programmatic = r_.boolField(value, path, "programmatic");
      }
      plan.kernel = r_.stringField(value, path, "kernel");
      bool listed = false;
      for (const Kernel &k : variant.kernels)
        listed |= k.name == plan.kernel;
      if (!listed)
        r_.fail(path + ".kernel", "\"" + plan.kernel + "\" is not in the variant's kernels");
      for (const char *key : {"grid", "block"}) {
        const auto &dims = r_.arrayField(value, path, key);
        std::string dimsPath = path + "." + key;
        if (dims.size() != 3)
          r_.fail(dimsPath, "expected 3 entries [x, y, z], got " + std::to_string(dims.size()));
        Expr *target = std::string(key) == "grid" ? plan.grid : plan.block;
        for (size_t i = 0; i < 3; ++i) {
          target[i] = r_.expr(dims[i], indexed(dimsPath, i));
          checkVariantExpr(target[i], indexed(dimsPath, i), piece, numValues);
        }
      }
      plan.sharedBytes = r_.expr(r_.field(value, path, "shared_bytes"), path + ".shared_bytes");
      checkVariantExpr(plan.sharedBytes, path + ".shared_bytes", piece, numValues);
      const auto &args = r_.arrayField(value, path, "args");
      for (size_t i = 0; i < args.size(); ++i) {
        std::string argPath = indexed(path + ".args", i);
        const JsonValue &arg = args[i];
        // A memref may carry its dtype beside it: {"memref": ..., "dtype": "bf16"}.
        const JsonValue *memrefDtype = arg.isObject() ? arg.find("dtype") : nullptr;
        bool memrefWithDtype = memrefDtype && arg.members().size() == 2 && arg.find("memref");
        if (!arg.isObject() || (arg.members().size() != 1 && !memrefWithDtype))
          r_.fail(argPath, "expected one of {\"memref\": ..., \"dtype\": ...}, {\"i64\": ...}, "
                           "{\"i32\": ...}, {\"f32\": ...}, {\"f64\": ...}");
        const std::string key = memrefWithDtype ? "memref" : arg.members()[0].first;
        const JsonValue &payload = memrefWithDtype ? *arg.find("memref") : arg.members()[0].second;
        KernelArg k;
        if (key == "memref") {
          k.kind = KernelArg::Kind::Memref;
          k.memref = parseDescriptor(payload, argPath + ".memref", piece, variant, allocated);
          if (memrefWithDtype)
            k.dtype = r_.dtype(*memrefDtype, argPath + ".dtype");
        } else if (key == "i64" || key == "i32") {
          k.kind = key == "i64" ? KernelArg::Kind::I64 : KernelArg::Kind::I32;
          k.integer = r_.expr(payload, argPath + "." + key);
          checkVariantExpr(k.integer, argPath + "." + key, piece, numValues);
        } else if (key == "f32" || key == "f64") {
          k.kind = key == "f32" ? KernelArg::Kind::F32 : KernelArg::Kind::F64;
          if (!payload.isNumber())
            r_.fail(argPath + "." + key, "expected a number");
          k.floating = payload.asDouble();
        } else {
          r_.fail(argPath, "unknown kernel argument kind \"" + key +
                               "\" (expected memref, i64, i32, f32 or f64)");
        }
        plan.args.push_back(std::move(k));
      }
    } else if (op == "gemm") {
      r_.object(value, path, {"op", "dtype", "c_dtype", "a", "b", "c", "bias"});
      plan.kind = PlanOp::Kind::Gemm;
      plan.gemmDtype = r_.dtype(r_.field(value, path, "dtype"), path + ".dtype");
      if (plan.gemmDtype != Dtype::F32 && plan.gemmDtype != Dtype::BF16 &&
          plan.gemmDtype != Dtype::F16)
        r_.fail(path + ".dtype", "a gemm is f32, bf16 or f16");
      plan.gemmCDtype = plan.gemmDtype;
      if (const JsonValue *cDtype = r_.optionalField(value, "c_dtype")) {
        plan.cDtypeGiven = true;
        plan.gemmCDtype = r_.dtype(*cDtype, path + ".c_dtype");
        // What cuBLASLt computes with CUBLAS_COMPUTE_32F: c in the inputs'
        // dtype, or bf16/f16 inputs accumulated into an f32 c.
        if (plan.gemmCDtype != plan.gemmDtype && plan.gemmCDtype != Dtype::F32)
          r_.fail(path + ".c_dtype", std::string(manifestName(plan.gemmCDtype)) + " with dtype " +
                                         manifestName(plan.gemmDtype) +
                                         ": c has the inputs' dtype, or f32 for bf16/f16 inputs");
      }
      plan.a = parseDescriptor(r_.field(value, path, "a"), path + ".a", piece, variant, allocated);
      plan.b = parseDescriptor(r_.field(value, path, "b"), path + ".b", piece, variant, allocated);
      plan.c = parseDescriptor(r_.field(value, path, "c"), path + ".c", piece, variant, allocated);
      for (auto [d, name] : {std::pair<Descriptor *, const char *>{&plan.a, "a"},
                             {&plan.b, "b"},
                             {&plan.c, "c"}})
        if (d->sizes.size() != 3)
          r_.fail(path + "." + name, "a gemm operand has rank 3 [batch, rows, columns], not " +
                                         std::to_string(d->sizes.size()));
      if (const JsonValue *bias = r_.optionalField(value, "bias")) {
        plan.bias = parseDescriptor(*bias, path + ".bias", piece, variant, allocated);
        if (plan.bias->sizes.size() != 1)
          r_.fail(path + ".bias", "the bias has rank 1 [n], not " +
                                      std::to_string(plan.bias->sizes.size()));
      }
    } else {
      r_.fail(path + ".op", "expected alloc, launch or gemm, got \"" + op + "\"");
    }
    return plan;
  }

  void parseVariants(const JsonValue &value, const std::string &piecePath, Piece &piece) {
    const auto &variants = r_.arrayField(value, piecePath, "variants");
    if (variants.empty())
      r_.fail(piecePath + ".variants", "a piece needs at least one variant");
    for (size_t v = 0; v < variants.size(); ++v) {
      std::string path = indexed(piecePath + ".variants", v);
      const JsonValue &json = variants[v];
      r_.object(json, path,
                {"symbols", "ptx", "cubin", "kernels", "values", "plan", "results"});
      Variant variant;
      const JsonValue &symbols = r_.field(json, path, "symbols");
      if (!symbols.isObject())
        r_.fail(path + ".symbols", "expected an object {symbol: size}");
      for (const auto &member : symbols.members()) {
        bool known = false;
        for (const GraphSymbol &s : m_.graph.symbols)
          known |= s.name == member.first;
        if (!known)
          r_.fail(path + ".symbols", "\"" + member.first + "\" is not a graph symbol");
        variant.symbols[member.first] =
            r_.integer(member.second, path + ".symbols." + member.first);
      }
      // A variant that only makes library calls has no module.
      if (const JsonValue *ptx = r_.optionalField(json, "ptx"))
        variant.ptx = insideArtifact(r_.string(*ptx, path + ".ptx"), path + ".ptx");
      if (const JsonValue *cubin = r_.optionalField(json, "cubin"))
        variant.cubin = insideArtifact(r_.string(*cubin, path + ".cubin"), path + ".cubin");
      if (!r_.arrayField(json, path, "kernels").empty() && variant.ptx.empty())
        r_.fail(path + ".ptx", "is missing, but the variant has kernels");
      parseVariantBody(json, path, piece, variant);
      piece.variants.push_back(std::move(variant));
    }
  }

public:
  Variant parseBody(const JsonValue &root, const Piece &piece) {
    r_.object(root, "(top level)", {"kernels", "values", "plan", "results"});
    Variant variant;
    parseVariantBody(root, "(top level)", piece, variant);
    return variant;
  }

  // "kernels", "values", "plan" and "results" of a variant (in a manifest,
  // or alone as the compile cache keeps them).
  void parseVariantBody(const JsonValue &json, const std::string &path, const Piece &piece,
                        Variant &variant) {
      const auto &kernels = r_.arrayField(json, path, "kernels");
      for (size_t k = 0; k < kernels.size(); ++k) {
        std::string kernelPath = indexed(path + ".kernels", k);
        r_.object(kernels[k], kernelPath, {"name", "config"});
        Kernel kernel;
        kernel.name = r_.stringField(kernels[k], kernelPath, "name");
        if (const JsonValue *config = r_.optionalField(kernels[k], "config")) {
          if (!config->isObject())
            r_.fail(kernelPath + ".config", "expected an object");
          kernel.config = *config;
        }
        variant.kernels.push_back(std::move(kernel));
      }
      const auto &values = r_.arrayField(json, path, "values");
      for (size_t i = 0; i < values.size(); ++i) {
        std::string valuePath = indexed(path + ".values", i);
        Expr e = r_.expr(values[i], valuePath);
        checkVariantExpr(e, valuePath, piece, int64_t(i));
        variant.values.push_back(e);
      }
      std::vector<bool> allocated;
      const auto &plan = r_.arrayField(json, path, "plan");
      for (size_t i = 0; i < plan.size(); ++i)
        variant.plan.push_back(
            parsePlanOp(plan[i], indexed(path + ".plan", i), piece, variant, allocated));
      const auto &results = r_.arrayField(json, path, "results");
      if (results.size() != piece.results.size())
        r_.fail(path + ".results", "the piece has " + std::to_string(piece.results.size()) +
                                       " result(s), but the variant gives " +
                                       std::to_string(results.size()));
      for (size_t i = 0; i < results.size(); ++i) {
        std::string resultPath = indexed(path + ".results", i);
        const JsonValue &result = results[i];
        PieceResult pr;
        if (piece.results[i].isTensor) {
          r_.object(result, resultPath, {"tensor"});
          pr.isTensor = true;
          pr.tensor = parseDescriptor(r_.field(result, resultPath, "tensor"),
                                      resultPath + ".tensor", piece, variant, allocated);
          if (int64_t(pr.tensor.sizes.size()) != piece.results[i].rank)
            r_.fail(resultPath + ".tensor", "result " + std::to_string(i) + " has rank " +
                                                std::to_string(piece.results[i].rank) + ", not " +
                                                std::to_string(pr.tensor.sizes.size()));
        } else if (result.isObject() && result.find("read")) {
          if (m_.version < 9)
            r_.fail(resultPath + ".read", "values read on the host need format version 9");
          r_.object(result, resultPath, {"read", "dtype", "bound", "clamped"});
          pr.isRead = true;
          pr.read = parseDescriptor(r_.field(result, resultPath, "read"), resultPath + ".read",
                                    piece, variant, allocated);
          if (!pr.read.sizes.empty())
            r_.fail(resultPath + ".read", "reads one element: its descriptor has rank 0");
          pr.readDtype = r_.dtype(r_.field(result, resultPath, "dtype"), resultPath + ".dtype");
          if (pr.readDtype == Dtype::F64 || pr.readDtype == Dtype::F32 ||
              pr.readDtype == Dtype::F16 || pr.readDtype == Dtype::BF16)
            r_.fail(resultPath + ".dtype", "an index is read from an integer or bool element");
          // From format 12 a value that gives no size has no bound.
          if (r_.optionalField(result, "bound")) {
            pr.readBound = r_.expr(r_.field(result, resultPath, "bound"), resultPath + ".bound");
            checkVariantExpr(*pr.readBound, resultPath + ".bound", piece,
                             int64_t(variant.values.size()));
          } else if (m_.version < 12) {
            r_.fail(resultPath, "a read without a bound needs format version 12");
          }
          if (r_.optionalField(result, "clamped")) {
            if (m_.version < 14)
              r_.fail(resultPath + ".clamped", "a clamped read needs format version 14");
            pr.readClamped = r_.boolField(result, resultPath, "clamped");
            if (pr.readClamped && !pr.readBound)
              r_.fail(resultPath + ".clamped", "a clamped read has a bound");
          }
        } else {
          r_.object(result, resultPath, {"index"});
          pr.index = r_.expr(r_.field(result, resultPath, "index"), resultPath + ".index");
          checkVariantExpr(pr.index, resultPath + ".index", piece, int64_t(variant.values.size()));
        }
        variant.results.push_back(std::move(pr));
      }
  }

private:
  Reader r_;
  Manifest m_;
  std::vector<bool> branchResultsParsed_; // per branch: its then and else read
  std::vector<bool> loopEndParsed_;        // per loop: its condition and next read
};

} // namespace

std::pair<int64_t, int64_t> Graph::extent(const GraphPart &part) const {
  switch (part.owner) {
  case GraphPart::Owner::Graph:
    return {0, int64_t(steps.size())};
  case GraphPart::Owner::Loop: {
    const GraphLoop &loop = loops[size_t(part.index)];
    int64_t bodyStart = loop.first + loop.condSteps;
    return part.part == 0 ? std::pair(loop.first, bodyStart) : std::pair(bodyStart, loop.end());
  }
  case GraphPart::Owner::Branch: {
    const GraphBranch &branch = branches[size_t(part.index)];
    int64_t elseStart = branch.first + branch.thenSteps;
    return part.part == 0 ? std::pair(branch.first, elseStart) : std::pair(elseStart, branch.end());
  }
  }
  return {0, 0};
}

GraphPart Graph::parentOf(const GraphPart &part) const {
  switch (part.owner) {
  case GraphPart::Owner::Graph:
    return part;
  case GraphPart::Owner::Loop:
    return loops[size_t(part.index)].in;
  case GraphPart::Owner::Branch:
    return branches[size_t(part.index)].in;
  }
  return part;
}

bool Graph::encloses(const GraphPart &outer, GraphPart inner) const {
  // A checked manifest's parents are listed before their children, so
  // the walk ends; the bound guards one that is not checked yet.
  for (size_t depth = 0; depth <= loops.size() + branches.size(); ++depth) {
    if (inner == outer)
      return true;
    if (inner.owner == GraphPart::Owner::Graph)
      return false;
    inner = parentOf(inner);
  }
  return false;
}

GraphPart Graph::partOfStep(int64_t step) const {
  // The innermost part is the one the others hold: the deepest.
  GraphPart best;
  size_t bestDepth = 0;
  auto consider = [&](GraphPart part) {
    auto [begin, end] = extent(part);
    if (step < begin || step >= end)
      return;
    size_t depth = 1;
    for (GraphPart p = parentOf(part); p.owner != GraphPart::Owner::Graph && depth < numParts();
         p = parentOf(p))
      ++depth;
    if (depth > bestDepth) {
      best = part;
      bestDepth = depth;
    }
  };
  for (size_t l = 0; l < loops.size(); ++l)
    for (int64_t p : {0, 1})
      consider(GraphPart{GraphPart::Owner::Loop, int64_t(l), p});
  for (size_t b = 0; b < branches.size(); ++b)
    for (int64_t p : {0, 1})
      consider(GraphPart{GraphPart::Owner::Branch, int64_t(b), p});
  return best;
}

std::optional<int64_t> Graph::loopAround(GraphPart part) const {
  for (GraphPart p = part; p.owner != GraphPart::Owner::Graph; p = parentOf(p))
    if (p.owner == GraphPart::Owner::Loop)
      return p.index;
  return std::nullopt;
}

std::vector<GraphItem> Graph::items(const GraphPart &part) const {
  auto [begin, end] = extent(part);
  std::vector<GraphItem> out;
  // The loops and branches `part` holds directly, by first step; at one
  // step, branches of no steps first (they give values from before).
  struct Child {
    int64_t first, end;
    GraphItem item;
  };
  std::vector<Child> children;
  for (size_t l = 0; l < loops.size(); ++l)
    if (loops[l].in == part)
      children.push_back({loops[l].first, loops[l].end(), {GraphItem::Kind::Loop, int64_t(l)}});
  for (size_t b = 0; b < branches.size(); ++b)
    if (branches[b].in == part)
      children.push_back(
          {branches[b].first, branches[b].end(), {GraphItem::Kind::Branch, int64_t(b)}});
  std::stable_sort(children.begin(), children.end(), [](const Child &a, const Child &b) {
    if (a.first != b.first)
      return a.first < b.first;
    return (a.end == a.first) > (b.end == b.first);
  });
  size_t next = 0;
  for (int64_t s = begin;;) {
    while (next < children.size() && children[next].first == s &&
           children[next].end == children[next].first)
      out.push_back(children[next++].item);
    if (s >= end)
      break;
    if (next < children.size() && children[next].first == s) {
      out.push_back(children[next].item);
      s = children[next++].end;
      continue;
    }
    out.push_back(GraphItem{GraphItem::Kind::Step, s++});
  }
  return out;
}

size_t Graph::partId(const GraphPart &part) const {
  switch (part.owner) {
  case GraphPart::Owner::Graph:
    return 0;
  case GraphPart::Owner::Loop:
    return 1 + 2 * size_t(part.index) + size_t(part.part);
  case GraphPart::Owner::Branch:
    return 1 + 2 * loops.size() + 2 * size_t(part.index) + size_t(part.part);
  }
  return 0;
}

ValueType Manifest::typeOf(const ValueRef &ref) const {
  ValueType type;
  switch (ref.kind) {
  case ValueRef::Kind::Input:
    type.isTensor = true;
    type.dtype = graph.inputs[ref.index].dtype;
    type.rank = int64_t(graph.inputs[ref.index].shape.size());
    break;
  case ValueRef::Kind::StepResult:
    type = pieces[graph.steps[ref.index].piece].results[ref.result];
    break;
  case ValueRef::Kind::LoopResult:
  case ValueRef::Kind::Carried:
    type = typeOf(graph.loops[ref.index].carried[ref.result]);
    break;
  case ValueRef::Kind::BranchResult:
    type = typeOf(graph.branches[ref.index].thenResults[ref.result]);
    break;
  case ValueRef::Kind::Symbol:
  case ValueRef::Kind::Int:
    break;
  }
  return type;
}

std::string describe(const ValueRef &ref) {
  switch (ref.kind) {
  case ValueRef::Kind::Input: return "input " + std::to_string(ref.index);
  case ValueRef::Kind::StepResult:
    return "step " + std::to_string(ref.index) + " result " + std::to_string(ref.result);
  case ValueRef::Kind::Symbol: return "symbol " + ref.symbol;
  case ValueRef::Kind::Int: return "int " + std::to_string(ref.value);
  case ValueRef::Kind::LoopResult:
    return "loop " + std::to_string(ref.index) + " result " + std::to_string(ref.result);
  case ValueRef::Kind::Carried:
    return "loop " + std::to_string(ref.index) + " carried " + std::to_string(ref.result);
  case ValueRef::Kind::BranchResult:
    return "branch " + std::to_string(ref.index) + " result " + std::to_string(ref.result);
  }
  return "?";
}

Manifest parseManifest(const std::string &text, const std::string &sourceName) {
  JsonValue root = parseJson(text, sourceName);
  return ManifestParser(sourceName).parse(root);
}

Manifest loadManifest(const std::string &artifactDir) {
  std::string path = artifactDir + "/manifest.json";
  return parseManifest(readFileBytes(path), path);
}

Variant parseVariantBody(const std::string &text, const std::string &sourceName,
                         const Piece &piece) {
  JsonValue root = parseJson(text, sourceName);
  return ManifestParser(sourceName).parseBody(root, piece);
}

bool tryParseManifest(const std::string &text, const std::string &sourceName, Manifest &manifest,
                      std::string &error) noexcept {
  try {
    manifest = parseManifest(text, sourceName);
    return true;
  } catch (const std::exception &e) {
    error = e.what();
    return false;
  }
}

bool tryParseVariantBody(const std::string &text, const std::string &sourceName,
                         const Piece &piece, Variant &variant, std::string &error) noexcept {
  try {
    variant = parseVariantBody(text, sourceName, piece);
    return true;
  } catch (const std::exception &e) {
    error = e.what();
    return false;
  }
}

std::string Producer::describe() const {
  std::string text;
  for (auto [key, value] : {std::pair<const char *, const std::optional<std::string> *>{"magi", &magi},
                            {"llvm", &llvm},
                            {"ptxas", &ptxas}})
    if (*value)
      text += (text.empty() ? "" : ", ") + std::string(key) + " " + **value;
  return text;
}

// ---- writing ----------------------------------------------------------------

namespace {

using Members = std::vector<std::pair<std::string, JsonValue>>;

JsonValue str(const std::string &text) { return JsonValue::makeString(text); }
JsonValue integer(int64_t value) { return JsonValue::makeInteger(value); }
JsonValue optionalStr(const std::optional<std::string> &text) {
  return text ? str(*text) : JsonValue();
}

JsonValue exprList(const std::vector<Expr> &list) {
  std::vector<JsonValue> items;
  for (const Expr &e : list)
    items.push_back(e.toJson());
  return JsonValue::makeArray(std::move(items));
}

const char *inputKindName(InputKind kind) {
  switch (kind) {
  case InputKind::Parameter: return "parameter";
  case InputKind::Buffer: return "buffer";
  case InputKind::Constant: return "constant";
  case InputKind::UserInput: return "user_input";
  }
  return "?";
}

JsonValue refJson(const ValueRef &ref) {
  switch (ref.kind) {
  case ValueRef::Kind::Input: return JsonValue::makeObject({{"input", integer(ref.index)}});
  case ValueRef::Kind::StepResult:
    return JsonValue::makeObject({{"step", integer(ref.index)}, {"result", integer(ref.result)}});
  case ValueRef::Kind::Symbol: return JsonValue::makeObject({{"symbol", str(ref.symbol)}});
  case ValueRef::Kind::Int: return JsonValue::makeObject({{"int", integer(ref.value)}});
  case ValueRef::Kind::LoopResult:
    return JsonValue::makeObject({{"loop", integer(ref.index)}, {"result", integer(ref.result)}});
  case ValueRef::Kind::Carried:
    if (ref.namesLoop)
      return JsonValue::makeObject({{"carried", integer(ref.result)}, {"loop", integer(ref.index)}});
    return JsonValue::makeObject({{"carried", integer(ref.result)}});
  case ValueRef::Kind::BranchResult:
    return JsonValue::makeObject({{"branch", integer(ref.index)}, {"result", integer(ref.result)}});
  }
  return JsonValue();
}

JsonValue refList(const std::vector<ValueRef> &refs) {
  std::vector<JsonValue> items;
  for (const ValueRef &ref : refs)
    items.push_back(refJson(ref));
  return JsonValue::makeArray(std::move(items));
}

// Format 8 and later have output shapes.
JsonValue graphJson(const Graph &graph, int64_t version) {
  std::vector<JsonValue> inputs, symbols, steps;
  for (const GraphInput &in : graph.inputs) {
    Members members{{"name", str(in.name)},
                    {"kind", str(inputKindName(in.kind))},
                    {"dtype", str(manifestName(in.dtype))},
                    {"shape", exprList(in.shape)}};
    if (const std::optional<WeightRef> &w = in.weight) {
      std::vector<JsonValue> strides;
      for (int64_t s : w->strides)
        strides.push_back(integer(s));
      Members weight{{"file", integer(w->file)},
                     {"method", str(zipMethodName(w->method))},
                     {"offset", integer(w->offset)},
                     {"stored_bytes", integer(w->storedBytes)},
                     {"bytes", integer(w->bytes)},
                     {"crc32", integer(w->crc32)},
                     {"storage_offset", integer(w->storageOffset)},
                     {"strides", JsonValue::makeArray(std::move(strides))}};
      if (!w->entry.empty())
        weight.push_back({"entry", str(w->entry)});
      members.push_back({"weight", JsonValue::makeObject(std::move(weight))});
    }
    if (in.isConcatenation()) {
      std::vector<JsonValue> parts;
      for (int64_t part : in.concatOf)
        parts.push_back(integer(part));
      members.push_back({"concat_of", JsonValue::makeArray(std::move(parts))});
    }
    inputs.push_back(JsonValue::makeObject(std::move(members)));
  }
  for (const GraphSymbol &sym : graph.symbols) {
    Members members{{"name", str(sym.name)},
                    {"min", sym.min ? integer(*sym.min) : JsonValue()},
                    {"max", sym.max ? integer(*sym.max) : JsonValue()}};
    if (sym.fromStep()) {
      members.push_back({"step", integer(*sym.step)});
      members.push_back({"result", integer(sym.result)});
      if (sym.dim >= 0)
        members.push_back({"dim", integer(sym.dim)});
    } else {
      members.push_back({"input", integer(sym.input)});
      members.push_back({"dim", integer(sym.dim)});
    }
    symbols.push_back(JsonValue::makeObject(std::move(members)));
  }
  for (const GraphStep &step : graph.steps)
    steps.push_back(
        JsonValue::makeObject({{"piece", integer(step.piece)}, {"args", refList(step.args)}}));
  std::vector<JsonValue> mutations;
  for (const GraphMutation &m : graph.mutations)
    mutations.push_back(
        JsonValue::makeObject({{"output", integer(m.output)}, {"input", integer(m.input)}}));
  std::vector<JsonValue> outputShapes;
  for (const std::vector<Expr> &shape : graph.outputShapes)
    outputShapes.push_back(exprList(shape));
  std::vector<JsonValue> checks;
  for (const GraphCheck &c : graph.checks)
    checks.push_back(
        JsonValue::makeObject({{"expr", c.expr.toJson()}, {"message", str(c.message)}}));
  std::vector<std::pair<std::string, JsonValue>> members = {
      {"inputs", JsonValue::makeArray(std::move(inputs))},
      {"symbols", JsonValue::makeArray(std::move(symbols))},
      {"checks", JsonValue::makeArray(std::move(checks))},
      {"steps", JsonValue::makeArray(std::move(steps))},
      {"outputs", refList(graph.outputs)},
      {"mutations", JsonValue::makeArray(std::move(mutations))}};
  if (version >= 8 && !graph.outputShapes.empty())
    members.push_back({"output_shapes", JsonValue::makeArray(std::move(outputShapes))});
  // "in" (format 13) where a loop or branch is inside another.
  auto withIn = [](Members members, const GraphPart &in) {
    if (in.owner == GraphPart::Owner::Loop)
      members.push_back({"in", JsonValue::makeObject(
                                   {{"loop", integer(in.index)},
                                    {"part", str(in.part == 0 ? "condition" : "body")}})});
    else if (in.owner == GraphPart::Owner::Branch)
      members.push_back({"in", JsonValue::makeObject(
                                   {{"branch", integer(in.index)},
                                    {"part", str(in.part == 0 ? "then" : "else")}})});
    return JsonValue::makeObject(std::move(members));
  };
  std::vector<JsonValue> loops;
  for (const GraphLoop &loop : graph.loops)
    loops.push_back(withIn({{"first", integer(loop.first)},
                            {"cond_steps", integer(loop.condSteps)},
                            {"body_steps", integer(loop.bodySteps)},
                            {"carried", refList(loop.carried)},
                            {"condition", refJson(loop.condition)},
                            {"next", refList(loop.next)}},
                           loop.in));
  if (!loops.empty())
    members.push_back({"loops", JsonValue::makeArray(std::move(loops))});
  std::vector<JsonValue> branches;
  for (const GraphBranch &branch : graph.branches)
    branches.push_back(withIn({{"first", integer(branch.first)},
                               {"then_steps", integer(branch.thenSteps)},
                               {"else_steps", integer(branch.elseSteps)},
                               {"condition", branch.condition.toJson()},
                               {"then", refList(branch.thenResults)},
                               {"else", refList(branch.elseResults)}},
                              branch.in));
  if (!branches.empty())
    members.push_back({"branches", JsonValue::makeArray(std::move(branches))});
  return JsonValue::makeObject(std::move(members));
}

std::string baseName(const Descriptor &d) {
  return (d.base == Descriptor::Base::Arg ? "arg" : "b") + std::to_string(d.baseIndex);
}

JsonValue descriptorJson(const Descriptor &d) {
  return JsonValue::makeObject({{"base", str(baseName(d))},
                                {"offset", d.offset.toJson()},
                                {"sizes", exprList(d.sizes)},
                                {"strides", exprList(d.strides)}});
}

JsonValue planOpJson(const PlanOp &op) {
  switch (op.kind) {
  case PlanOp::Kind::Alloc:
    return JsonValue::makeObject({{"op", str("alloc")},
                                  {"buffer", str("b" + std::to_string(op.buffer))},
                                  {"bytes", op.bytes.toJson()}});
  case PlanOp::Kind::Launch: {
    std::vector<JsonValue> args;
    for (const KernelArg &arg : op.args) {
      switch (arg.kind) {
      case KernelArg::Kind::Memref:
        if (arg.dtype)
          args.push_back(JsonValue::makeObject(
              {{"dtype", str(manifestName(*arg.dtype))}, {"memref", descriptorJson(arg.memref)}}));
        else
          args.push_back(JsonValue::makeObject({{"memref", descriptorJson(arg.memref)}}));
        break;
      case KernelArg::Kind::I64:
      case KernelArg::Kind::I32:
        args.push_back(JsonValue::makeObject(
            {{arg.kind == KernelArg::Kind::I64 ? "i64" : "i32", arg.integer.toJson()}}));
        break;
      case KernelArg::Kind::F32:
      case KernelArg::Kind::F64:
        args.push_back(JsonValue::makeObject({{arg.kind == KernelArg::Kind::F32 ? "f32" : "f64",
                                               JsonValue::makeDouble(arg.floating)}}));
        break;
      }
    }
    Members members{{"op", str("launch")},
                    {"kernel", str(op.kernel)},
                    {"grid", exprList({op.grid[0], op.grid[1], op.grid[2]})},
                    {"block", exprList({op.block[0], op.block[1], op.block[2]})},
                    {"shared_bytes", op.sharedBytes.toJson()},
                    {"args", JsonValue::makeArray(std::move(args))}};
    if (op.programmatic)
      members.push_back({"programmatic", JsonValue::makeBool(true)});
    return JsonValue::makeObject(std::move(members));
  }
  case PlanOp::Kind::Gemm: {
    Members members{{"op", str("gemm")},
                    {"dtype", str(manifestName(op.gemmDtype))},
                    {"a", descriptorJson(op.a)},
                    {"b", descriptorJson(op.b)},
                    {"c", descriptorJson(op.c)}};
    if (op.cDtypeGiven)
      members.push_back({"c_dtype", str(manifestName(op.gemmCDtype))});
    if (op.bias)
      members.push_back({"bias", descriptorJson(*op.bias)});
    return JsonValue::makeObject(std::move(members));
  }
  }
  return JsonValue();
}

Members variantBodyMembers(const Variant &variant) {
  std::vector<JsonValue> kernels, plan, results;
  for (const Kernel &k : variant.kernels) {
    Members members{{"name", str(k.name)}};
    if (!k.config.isNull())
      members.push_back({"config", k.config});
    kernels.push_back(JsonValue::makeObject(std::move(members)));
  }
  for (const PlanOp &op : variant.plan)
    plan.push_back(planOpJson(op));
  for (const PieceResult &r : variant.results) {
    if (r.isTensor) {
      results.push_back(JsonValue::makeObject({{"tensor", descriptorJson(r.tensor)}}));
    } else if (r.isRead) {
      Members read{{"read", descriptorJson(r.read)}, {"dtype", str(manifestName(r.readDtype))}};
      if (r.readBound)
        read.push_back({"bound", r.readBound->toJson()});
      if (r.readClamped)
        read.push_back({"clamped", JsonValue::makeBool(true)});
      results.push_back(JsonValue::makeObject(std::move(read)));
    } else {
      results.push_back(JsonValue::makeObject({{"index", r.index.toJson()}}));
    }
  }
  return {{"kernels", JsonValue::makeArray(std::move(kernels))},
          {"values", exprList(variant.values)},
          {"plan", JsonValue::makeArray(std::move(plan))},
          {"results", JsonValue::makeArray(std::move(results))}};
}

JsonValue weightFilesJson(const std::vector<WeightFile> &files) {
  std::vector<JsonValue> items;
  for (const WeightFile &f : files)
    items.push_back(JsonValue::makeObject({{"path", str(f.path)}, {"bytes", integer(f.bytes)}}));
  return JsonValue::makeArray(std::move(items));
}

JsonValue valueTypeJson(const ValueType &type) {
  if (!type.isTensor)
    return JsonValue::makeObject({{"kind", str("index")}});
  return JsonValue::makeObject({{"kind", str("tensor")},
                                {"dtype", str(manifestName(type.dtype))},
                                {"rank", integer(type.rank)}});
}

JsonValue pieceJson(const Piece &piece) {
  std::vector<JsonValue> args, results, variants;
  for (const ValueType &t : piece.args)
    args.push_back(valueTypeJson(t));
  for (const ValueType &t : piece.results)
    results.push_back(valueTypeJson(t));
  for (const Variant &variant : piece.variants) {
    Members symbols;
    for (const auto &[name, size] : variant.symbols)
      symbols.push_back({name, integer(size)});
    Members members{{"symbols", JsonValue::makeObject(std::move(symbols))}};
    if (!variant.ptx.empty())
      members.push_back({"ptx", str(variant.ptx)});
    if (variant.cubin)
      members.push_back({"cubin", str(*variant.cubin)});
    for (auto &member : variantBodyMembers(variant))
      members.push_back(std::move(member));
    variants.push_back(JsonValue::makeObject(std::move(members)));
  }
  return JsonValue::makeObject(
      {{"index", integer(piece.index)},
       {"name", str(piece.name)},
       {"kind", str(piece.isSplitting ? "splitting" : "compute")},
       {"graph_index", piece.graphIndex < 0 ? JsonValue() : integer(piece.graphIndex)},
       {"cuda_graph", JsonValue::makeBool(piece.cudaGraph)},
       {"args", JsonValue::makeArray(std::move(args))},
       {"results", JsonValue::makeArray(std::move(results))},
       {"variants", JsonValue::makeArray(std::move(variants))}});
}

} // namespace

std::string printManifest(const Manifest &m) {
  Members source{{"file", str(m.sourceFile)}};
  if (m.sourceSha256)
    source.push_back({"sha256", str(*m.sourceSha256)});
  std::vector<JsonValue> pieces;
  for (const Piece &piece : m.pieces)
    pieces.push_back(pieceJson(piece));
  JsonValue root = JsonValue::makeObject(
      {{"format", str("magi-artifact")},
       {"version", integer(m.version)},
       {"producer", JsonValue::makeObject({{"magi", optionalStr(m.producer.magi)},
                                           {"llvm", optionalStr(m.producer.llvm)},
                                           {"ptxas", optionalStr(m.producer.ptxas)}})},
       {"target", JsonValue::makeObject({{"chip", str(m.targetChip)},
                                         {"features", str(m.targetFeatures)},
                                         {"triple", str(m.targetTriple)}})},
       {"source", JsonValue::makeObject(std::move(source))},
       {"weights", JsonValue::makeObject({{"files", weightFilesJson(m.weightFiles)}})},
       {"graph", graphJson(m.graph, m.version)},
       {"pieces", JsonValue::makeArray(std::move(pieces))}});
  return printJson(root, 2) + "\n";
}

std::string printVariantBody(const Variant &variant) {
  return printJson(JsonValue::makeObject(variantBodyMembers(variant)));
}

} // namespace magi::runtime
