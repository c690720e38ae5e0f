//===- Json.cpp - A small, strict JSON parser -----------------------------===//

#include "magi/Runtime/Json.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace magi::runtime {

JsonValue JsonValue::makeBool(bool b) {
  JsonValue v;
  v.kind_ = Kind::Bool;
  v.bool_ = b;
  return v;
}
JsonValue JsonValue::makeInteger(int64_t i) {
  JsonValue v;
  v.kind_ = Kind::Integer;
  v.integer_ = i;
  return v;
}
JsonValue JsonValue::makeDouble(double d) {
  JsonValue v;
  v.kind_ = Kind::Double;
  v.double_ = d;
  return v;
}
JsonValue JsonValue::makeString(std::string s) {
  JsonValue v;
  v.kind_ = Kind::String;
  v.string_ = std::move(s);
  return v;
}
JsonValue JsonValue::makeArray(std::vector<JsonValue> items) {
  JsonValue v;
  v.kind_ = Kind::Array;
  v.items_ = std::move(items);
  return v;
}
JsonValue JsonValue::makeObject(std::vector<std::pair<std::string, JsonValue>> members) {
  JsonValue v;
  v.kind_ = Kind::Object;
  v.members_ = std::move(members);
  return v;
}

const JsonValue *JsonValue::find(const std::string &key) const {
  for (const auto &member : members_)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

const char *JsonValue::kindName(Kind kind) {
  switch (kind) {
  case Kind::Null: return "null";
  case Kind::Bool: return "a boolean";
  case Kind::Integer: return "an integer";
  case Kind::Double: return "a number";
  case Kind::String: return "a string";
  case Kind::Array: return "an array";
  case Kind::Object: return "an object";
  }
  return "?";
}

namespace {

class Parser {
public:
  Parser(const std::string &text, const std::string &sourceName)
      : text_(text), source_(sourceName) {}

  JsonValue parseDocument() {
    skipSpace();
    JsonValue value = parseValue(0);
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected text after the JSON value");
    return value;
  }

private:
  // Deep nesting is refused rather than overflowing the stack.
  static constexpr int kMaxDepth = 200;

  [[noreturn]] void fail(const std::string &message) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw RuntimeError(source_ + ":" + std::to_string(line) + ":" +
                       std::to_string(column) + ": invalid JSON: " + message);
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consumeWord(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (text_.compare(pos_, n, word) != 0)
      return false;
    pos_ += n;
    return true;
  }

  JsonValue parseValue(int depth) {
    if (depth > kMaxDepth)
      fail("nested too deeply");
    if (pos_ >= text_.size())
      fail("unexpected end of input");
    char c = text_[pos_];
    if (c == '{')
      return parseObject(depth);
    if (c == '[')
      return parseArray(depth);
    if (c == '"')
      return JsonValue::makeString(parseString());
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber();
    if (consumeWord("true"))
      return JsonValue::makeBool(true);
    if (consumeWord("false"))
      return JsonValue::makeBool(false);
    if (consumeWord("null"))
      return JsonValue();
    fail(std::string("unexpected character '") + c + "'");
  }

  JsonValue parseObject(int depth) {
    ++pos_; // '{'
    std::vector<std::pair<std::string, JsonValue>> members;
    std::set<std::string> seen;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return JsonValue::makeObject(std::move(members));
    }
    while (true) {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"')
        fail("expected a string key");
      size_t keyPos = pos_;
      std::string key = parseString();
      if (!seen.insert(key).second) {
        pos_ = keyPos;
        fail("duplicate key \"" + key + "\"");
      }
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        fail("expected ':' after a key");
      ++pos_;
      skipSpace();
      JsonValue value = parseValue(depth + 1);
      members.emplace_back(std::move(key), std::move(value));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return JsonValue::makeObject(std::move(members));
      }
      fail("expected ',' or '}' in an object");
    }
  }

  JsonValue parseArray(int depth) {
    ++pos_; // '['
    std::vector<JsonValue> items;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return JsonValue::makeArray(std::move(items));
    }
    while (true) {
      skipSpace();
      items.push_back(parseValue(depth + 1));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return JsonValue::makeArray(std::move(items));
      }
      fail("expected ',' or ']' in an array");
    }
  }

  unsigned parseHex4() {
    if (pos_ + 4 > text_.size())
      fail("truncated \\u escape");
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      value <<= 4;
      if (c >= '0' && c <= '9')
        value |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f')
        value |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        value |= unsigned(c - 'A' + 10);
      else
        fail("bad hex digit in a \\u escape");
    }
    return value;
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xC0 | (code >> 6));
      out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += char(0xE0 | (code >> 12));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    } else {
      out += char(0xF0 | (code >> 18));
      out += char(0x80 | ((code >> 12) & 0x3F));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    }
  }

  std::string parseString() {
    ++pos_; // '"'
    std::string out;
    while (true) {
      if (pos_ >= text_.size())
        fail("unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        fail("control character in a string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= text_.size())
        fail("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        unsigned code = parseHex4();
        if (code >= 0xD800 && code <= 0xDBFF) {
          if (!consumeWord("\\u"))
            fail("unpaired surrogate in a \\u escape");
          unsigned low = parseHex4();
          if (low < 0xDC00 || low > 0xDFFF)
            fail("unpaired surrogate in a \\u escape");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          fail("unpaired surrogate in a \\u escape");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        --pos_;
        fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  JsonValue parseNumber() {
    size_t start = pos_;
    auto isDigit = [&](size_t i) {
      return i < text_.size() && text_[i] >= '0' && text_[i] <= '9';
    };
    if (text_[pos_] == '-')
      ++pos_;
    if (!isDigit(pos_))
      fail("a number needs digits");
    if (text_[pos_] == '0' && isDigit(pos_ + 1))
      fail("leading zeros are not allowed");
    while (isDigit(pos_))
      ++pos_;
    bool integral = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integral = false;
      ++pos_;
      if (!isDigit(pos_))
        fail("digits must follow '.'");
      while (isDigit(pos_))
        ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
        ++pos_;
      if (!isDigit(pos_))
        fail("digits must follow the exponent");
      while (isDigit(pos_))
        ++pos_;
    }
    std::string token = text_.substr(start, pos_ - start);
    errno = 0;
    if (integral) {
      long long value = std::strtoll(token.c_str(), nullptr, 10);
      if (errno == ERANGE) {
        pos_ = start;
        fail("integer " + token + " does not fit in 64 bits");
      }
      return JsonValue::makeInteger(value);
    }
    double value = std::strtod(token.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(value)) {
      pos_ = start;
      fail("number " + token + " is out of range");
    }
    return JsonValue::makeDouble(value);
  }

  const std::string &text_;
  const std::string &source_;
  size_t pos_ = 0;
};

} // namespace

JsonValue parseJson(const std::string &text, const std::string &sourceName) {
  return Parser(text, sourceName).parseDocument();
}

namespace {

void printString(const std::string &text, std::string &out) {
  static const char *hex = "0123456789abcdef";
  out += '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c >= 0x20) {
      out += char(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  out += '"';
}

void printValue(const JsonValue &value, unsigned indent, unsigned depth, std::string &out) {
  auto newline = [&](unsigned level) {
    if (indent == 0)
      return;
    out += '\n';
    out.append(size_t(level) * indent, ' ');
  };
  switch (value.kind()) {
  case JsonValue::Kind::Null: out += "null"; return;
  case JsonValue::Kind::Bool: out += value.asBool() ? "true" : "false"; return;
  case JsonValue::Kind::Integer: out += std::to_string(value.asInteger()); return;
  case JsonValue::Kind::Double: {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", value.asDouble());
    out += buffer;
    return;
  }
  case JsonValue::Kind::String: printString(value.asString(), out); return;
  case JsonValue::Kind::Array:
    out += '[';
    for (size_t i = 0; i < value.items().size(); ++i) {
      if (i)
        out += ',';
      newline(depth + 1);
      printValue(value.items()[i], indent, depth + 1, out);
    }
    if (!value.items().empty())
      newline(depth);
    out += ']';
    return;
  case JsonValue::Kind::Object: {
    std::vector<const std::pair<std::string, JsonValue> *> members;
    for (const auto &member : value.members())
      members.push_back(&member);
    std::sort(members.begin(), members.end(),
              [](const auto *a, const auto *b) { return a->first < b->first; });
    out += '{';
    for (size_t i = 0; i < members.size(); ++i) {
      if (i)
        out += ',';
      newline(depth + 1);
      printString(members[i]->first, out);
      out += indent ? ": " : ":";
      printValue(members[i]->second, indent, depth + 1, out);
    }
    if (!members.empty())
      newline(depth);
    out += '}';
    return;
  }
  }
}

} // namespace

std::string printJson(const JsonValue &value, unsigned indent) {
  std::string out;
  printValue(value, indent, 0, out);
  return out;
}

std::string readFileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw RuntimeError("cannot open '" + path + "'");
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad())
    throw RuntimeError("cannot read '" + path + "'");
  return contents.str();
}

JsonValue readJsonFile(const std::string &path) {
  return parseJson(readFileBytes(path), path);
}

} // namespace magi::runtime
