//===- Expr.cpp - Integer expressions of the artifact format --------------===//

#include "magi/Runtime/Expr.h"

#include <cctype>
#include <limits>

namespace magi::runtime {

struct ExprNode {
  enum class Op {
    Constant, Name, Neg, Add, Sub, Mul, FloorDiv, CeilDiv, Mod,
    Min, Max, Select, Eq, Ne, Lt, Le, Gt, Ge
  };
  Op op = Op::Constant;
  int64_t value = 0;
  std::string name;
  std::vector<std::shared_ptr<const ExprNode>> operands;
};

using NodePtr = std::shared_ptr<const ExprNode>;

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

int64_t ceilDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0)))
    ++q;
  return q;
}

namespace {

class ExprParser {
public:
  explicit ExprParser(const std::string &text) : text_(text) {}

  NodePtr parseAll() {
    NodePtr node = parseExpr();
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected '" + text_.substr(pos_) + "'");
    return node;
  }

private:
  [[noreturn]] void fail(const std::string &message) const {
    throw RuntimeError("bad expression \"" + text_ + "\" at offset " +
                       std::to_string(pos_) + ": " + message);
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  static bool isNameStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
  }
  static bool isNameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  }

  // The word at the cursor (a name or keyword), without consuming it.
  std::string peekWord() {
    skipSpace();
    size_t end = pos_;
    if (end < text_.size() && isNameStart(text_[end]))
      while (end < text_.size() && isNameChar(text_[end]))
        ++end;
    return text_.substr(pos_, end - pos_);
  }

  // Evaluating, listing names and freeing a tree recurse over it: its size
  // and nesting are bounded when it is parsed (a plan's expressions have a
  // few dozen nodes).
  static constexpr size_t kMaxNodes = 4096;
  static constexpr int kMaxNesting = 128;

  NodePtr make(ExprNode::Op op, std::vector<NodePtr> operands) {
    if (++nodes_ > kMaxNodes)
      fail("more than " + std::to_string(kMaxNodes) + " operations");
    auto node = std::make_shared<ExprNode>();
    node->op = op;
    node->operands = std::move(operands);
    return node;
  }

  NodePtr parseExpr() {
    NodePtr lhs = parseTerm();
    while (true) {
      skipSpace();
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        auto op = text_[pos_] == '+' ? ExprNode::Op::Add : ExprNode::Op::Sub;
        ++pos_;
        lhs = make(op, {lhs, parseTerm()});
        continue;
      }
      return lhs;
    }
  }

  NodePtr parseTerm() {
    NodePtr lhs = parseUnary();
    while (true) {
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == '*') {
        ++pos_;
        lhs = make(ExprNode::Op::Mul, {lhs, parseUnary()});
        continue;
      }
      std::string word = peekWord();
      ExprNode::Op op;
      if (word == "floordiv")
        op = ExprNode::Op::FloorDiv;
      else if (word == "ceildiv")
        op = ExprNode::Op::CeilDiv;
      else if (word == "mod")
        op = ExprNode::Op::Mod;
      else
        return lhs;
      pos_ += word.size();
      lhs = make(op, {lhs, parseUnary()});
    }
  }

  // One level deeper (a parenthesis, a function's arguments, a unary
  // minus) for as long as the guard lives.
  struct Nesting {
    ExprParser &parser;
    explicit Nesting(ExprParser &p) : parser(p) {
      if (++parser.nesting_ > kMaxNesting)
        parser.fail("nested more than " + std::to_string(kMaxNesting) + " deep");
    }
    ~Nesting() { --parser.nesting_; }
  };

  NodePtr parseUnary() {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '-') {
      ++pos_;
      Nesting deeper(*this);
      return make(ExprNode::Op::Neg, {parseUnary()});
    }
    return parsePrimary();
  }

  NodePtr parsePrimary() {
    skipSpace();
    if (pos_ >= text_.size())
      fail("expected a number, a name or '('");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      Nesting deeper(*this);
      NodePtr inner = parseExpr();
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ')')
        fail("expected ')'");
      ++pos_;
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        int digit = text_[pos_] - '0';
        if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
          fail("integer does not fit in 64 bits");
        value = value * 10 + digit;
        ++pos_;
      }
      if (pos_ < text_.size() && isNameChar(text_[pos_]))
        fail("a name cannot start with a digit");
      auto node = std::make_shared<ExprNode>();
      node->value = value;
      return node;
    }
    std::string word = peekWord();
    if (word.empty())
      fail(std::string("unexpected '") + c + "'");
    if (word == "floordiv" || word == "ceildiv" || word == "mod")
      fail("'" + word + "' is an infix operator ('a " + word + " b') and needs a left operand");
    pos_ += word.size();
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      Nesting deeper(*this);
      return parseCall(word);
    }
    auto node = std::make_shared<ExprNode>();
    node->op = ExprNode::Op::Name;
    node->name = word;
    return node;
  }

  NodePtr parseCall(const std::string &function) {
    struct FunctionInfo {
      const char *name;
      ExprNode::Op op;
      size_t minArgs, maxArgs;
    };
    static const FunctionInfo functions[] = {
        {"min", ExprNode::Op::Min, 1, SIZE_MAX},
        {"max", ExprNode::Op::Max, 1, SIZE_MAX},
        {"select", ExprNode::Op::Select, 3, 3},
        {"eq", ExprNode::Op::Eq, 2, 2},
        {"ne", ExprNode::Op::Ne, 2, 2},
        {"lt", ExprNode::Op::Lt, 2, 2},
        {"le", ExprNode::Op::Le, 2, 2},
        {"gt", ExprNode::Op::Gt, 2, 2},
        {"ge", ExprNode::Op::Ge, 2, 2},
    };
    const FunctionInfo *info = nullptr;
    for (const FunctionInfo &f : functions)
      if (function == f.name)
        info = &f;
    if (!info)
      fail("unknown function '" + function + "'");
    ++pos_; // '('
    std::vector<NodePtr> operands;
    while (true) {
      operands.push_back(parseExpr());
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ')') {
        ++pos_;
        break;
      }
      fail("expected ',' or ')' in the arguments of '" + function + "'");
    }
    if (operands.size() < info->minArgs || operands.size() > info->maxArgs)
      fail("'" + function + "' takes " +
           (info->minArgs == info->maxArgs
                ? std::to_string(info->minArgs)
                : "at least " + std::to_string(info->minArgs)) +
           " argument(s), not " + std::to_string(operands.size()));
    return make(info->op, std::move(operands));
  }

  const std::string &text_;
  size_t pos_ = 0;
  size_t nodes_ = 0;
  int nesting_ = 0;
};

class Evaluator {
public:
  Evaluator(const Expr::NameLookup &lookup, const std::string &where,
            const std::string &text)
      : lookup_(lookup), where_(where), text_(text) {}

  int64_t eval(const ExprNode &node) const {
    using Op = ExprNode::Op;
    switch (node.op) {
    case Op::Constant:
      return node.value;
    case Op::Name: {
      std::optional<int64_t> value = lookup_ ? lookup_(node.name) : std::nullopt;
      if (!value)
        fail("unknown name '" + node.name + "'");
      return *value;
    }
    case Op::Neg: {
      int64_t v = eval(*node.operands[0]);
      if (v == std::numeric_limits<int64_t>::min())
        fail("overflow in negation");
      return -v;
    }
    case Op::Min:
    case Op::Max: {
      int64_t result = eval(*node.operands[0]);
      for (size_t i = 1; i < node.operands.size(); ++i) {
        int64_t v = eval(*node.operands[i]);
        result = node.op == Op::Min ? std::min(result, v) : std::max(result, v);
      }
      return result;
    }
    case Op::Select:
      return eval(*node.operands[0]) != 0 ? eval(*node.operands[1])
                                          : eval(*node.operands[2]);
    default:
      break;
    }
    int64_t a = eval(*node.operands[0]);
    int64_t b = eval(*node.operands[1]);
    int64_t result = 0;
    switch (node.op) {
    case Op::Add:
      if (__builtin_add_overflow(a, b, &result))
        fail("overflow in " + std::to_string(a) + " + " + std::to_string(b));
      return result;
    case Op::Sub:
      if (__builtin_sub_overflow(a, b, &result))
        fail("overflow in " + std::to_string(a) + " - " + std::to_string(b));
      return result;
    case Op::Mul:
      if (__builtin_mul_overflow(a, b, &result))
        fail("overflow in " + std::to_string(a) + " * " + std::to_string(b));
      return result;
    case Op::FloorDiv:
    case Op::CeilDiv:
    case Op::Mod:
      if (b == 0)
        fail("division by zero");
      if (a == std::numeric_limits<int64_t>::min() && b == -1)
        fail("overflow in division");
      return node.op == Op::FloorDiv  ? floorDiv(a, b)
             : node.op == Op::CeilDiv ? ceilDiv(a, b)
                                      : floorMod(a, b);
    case Op::Eq: return a == b;
    case Op::Ne: return a != b;
    case Op::Lt: return a < b;
    case Op::Le: return a <= b;
    case Op::Gt: return a > b;
    case Op::Ge: return a >= b;
    default:
      fail("internal error: unknown operator");
    }
  }

private:
  [[noreturn]] void fail(const std::string &message) const {
    throw RuntimeError(where_ + ": cannot evaluate \"" + text_ + "\": " + message);
  }

  const Expr::NameLookup &lookup_;
  const std::string &where_;
  const std::string &text_;
};

void collectNames(const ExprNode &node, std::vector<std::string> &names) {
  if (node.op == ExprNode::Op::Name)
    names.push_back(node.name);
  for (const NodePtr &operand : node.operands)
    collectNames(*operand, names);
}

} // namespace

Expr Expr::constant(int64_t value) {
  Expr e;
  auto node = std::make_shared<ExprNode>();
  node->value = value;
  e.root_ = node;
  e.text_ = std::to_string(value);
  return e;
}

Expr Expr::parse(const std::string &text) {
  Expr e;
  e.root_ = ExprParser(text).parseAll();
  e.text_ = text;
  return e;
}

std::optional<Expr> Expr::tryParse(const std::string &text, std::string &error) noexcept {
  try {
    return parse(text);
  } catch (const std::exception &e) {
    error = e.what();
    return std::nullopt;
  }
}

JsonValue Expr::toJson() const {
  // An integer is written as a number only when its decimal text is
  // exactly the expression's text ("12", "-3"; not "012" or "2 * 6").
  if (root_ && names().empty() && !text_.empty()) {
    try {
      int64_t value = evaluate(nullptr, "");
      if (std::to_string(value) == text_)
        return JsonValue::makeInteger(value);
    } catch (const RuntimeError &) {
    }
  }
  return JsonValue::makeString(text_);
}

Expr Expr::fromJson(const JsonValue &value, const std::string &where) {
  if (value.isInteger())
    return constant(value.asInteger());
  if (value.isString()) {
    try {
      return parse(value.asString());
    } catch (const RuntimeError &e) {
      throw RuntimeError(where + ": " + e.what());
    }
  }
  throw RuntimeError(where + ": expected an integer or an expression string, got " +
                     JsonValue::kindName(value.kind()));
}

int64_t Expr::evaluate(const NameLookup &lookup, const std::string &where) const {
  if (!root_)
    throw RuntimeError(where + ": internal error: empty expression");
  return Evaluator(lookup, where, text_).eval(*root_);
}

std::vector<std::string> Expr::names() const {
  std::vector<std::string> names;
  if (root_)
    collectNames(*root_, names);
  return names;
}

bool Expr::isConstant() const { return root_ && names().empty(); }

} // namespace magi::runtime
