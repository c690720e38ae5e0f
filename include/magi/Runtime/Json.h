//===- Json.h - A small, strict JSON parser ---------------------*- C++ -*-===//
//
// Enough JSON for the artifact manifest and the fixtures' .json files:
// RFC 8259 values, integers kept exact as int64, duplicate keys and trailing
// garbage refused. Errors name the source and the line:column.
//
//===----------------------------------------------------------------------===//

#ifndef MAGI_RUNTIME_JSON_H
#define MAGI_RUNTIME_JSON_H

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace magi::runtime {

// Every error of the runtime library: a message for the user, complete.
class RuntimeError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class JsonValue {
public:
  enum class Kind { Null, Bool, Integer, Double, String, Array, Object };

  JsonValue() = default;
  static JsonValue makeBool(bool b);
  static JsonValue makeInteger(int64_t i);
  static JsonValue makeDouble(double d);
  static JsonValue makeString(std::string s);
  static JsonValue makeArray(std::vector<JsonValue> items);
  static JsonValue makeObject(std::vector<std::pair<std::string, JsonValue>> members);

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isInteger() const { return kind_ == Kind::Integer; }
  // An integer or a number with a fraction or exponent.
  bool isNumber() const { return kind_ == Kind::Integer || kind_ == Kind::Double; }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  bool asBool() const { return bool_; }
  int64_t asInteger() const { return integer_; }
  double asDouble() const { return kind_ == Kind::Integer ? double(integer_) : double_; }
  const std::string &asString() const { return string_; }
  const std::vector<JsonValue> &items() const { return items_; }
  // Members in file order.
  const std::vector<std::pair<std::string, JsonValue>> &members() const { return members_; }
  // The member named `key`, or null when absent.
  const JsonValue *find(const std::string &key) const;

  // "null", "a boolean", "an integer", ... for error messages.
  static const char *kindName(Kind kind);

private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  int64_t integer_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

// Parses `text`; `sourceName` (a file name) starts every error message.
JsonValue parseJson(const std::string &text, const std::string &sourceName);

// Prints `value` as JSON text, object members sorted by key (so equal
// values print equal bytes). `indent` 0 is compact (no spaces); otherwise
// one member or item per line, nested `indent` spaces deeper. Doubles print
// with 17 significant digits, so they read back exactly.
std::string printJson(const JsonValue &value, unsigned indent = 0);

// Reads and parses a file.
JsonValue readJsonFile(const std::string &path);

// Reads a whole file as bytes; throws RuntimeError naming the file.
std::string readFileBytes(const std::string &path);

} // namespace magi::runtime

#endif // MAGI_RUNTIME_JSON_H
