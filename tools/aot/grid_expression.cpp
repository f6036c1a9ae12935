#include "grid_expression.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace triton_jit::aot {

class GridParser {
 public:
  GridParser(std::string_view text, std::vector<GridExpression::Step>& out) : text_(text), out_(out) {}

  void parse() {
    if (text_.size() > kMaxLength) throw std::invalid_argument(fmt::format("longer than {} characters", kMaxLength));
    expression(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text");
  }

 private:
  static constexpr std::size_t kMaxLength = 1000;
  static constexpr int kMaxDepth = 32;
  using Op = GridExpression::Op;

  [[noreturn]] void fail(const char* what) const {
    throw std::invalid_argument(fmt::format("{} at column {}", what, pos_ + 1));
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(pos_).starts_with(token)) {
      pos_ += token.size();
      return true;
    }
    return false;
  }
  void expect(std::string_view token, const char* what) {
    if (!accept(token)) fail(what);
  }
  void emit(Op op, int64_t value = 0, std::string name = {}) { out_.push_back({op, value, std::move(name)}); }

  void expression(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    term(depth);
    for (;;) {
      if (accept("+")) {
        term(depth);
        emit(Op::kAdd);
      } else if (accept("-")) {
        term(depth);
        emit(Op::kSub);
      } else {
        return;
      }
    }
  }
  void term(int depth) {
    unary(depth);
    for (;;) {
      if (accept("//")) {
        unary(depth);
        emit(Op::kFloorDiv);
      } else if (accept("*")) {
        unary(depth);
        emit(Op::kMul);
      } else if (accept("%")) {
        unary(depth);
        emit(Op::kMod);
      } else {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == '/') fail("'/' is a float division; write '//'");
        return;
      }
    }
  }
  void unary(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    if (accept("-")) {
      unary(depth + 1);
      emit(Op::kNeg);
      return;
    }
    atom(depth);
  }
  static bool name_char(char c, bool first) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
  }
  std::string_view name() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && name_char(text_[pos_], pos_ == start)) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  void atom(int depth) {
    skip_space();
    if (pos_ >= text_.size()) fail("expected a value");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      expression(depth + 1);
      expect(")", "expected ')'");
      return;
    }
    if (c >= '0' && c <= '9') {
      int64_t v = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, text_[pos_] - '0', &v)) {
          fail("integer out of 64 bits");
        }
        ++pos_;
      }
      emit(Op::kConstant, v);
      return;
    }
    std::string_view n = name();
    if (n.empty()) fail("expected a value");
    if (n == "triton") {
      expect(".", "expected 'triton.cdiv'");
      n = name();
      if (n != "cdiv") fail("expected 'triton.cdiv'");
    }
    if (n == "META") {
      expect("[", "expected META[\"name\"]");
      skip_space();
      const char quote = pos_ < text_.size() ? text_[pos_] : '\0';
      if (quote != '"' && quote != '\'') fail("expected a quoted name");
      ++pos_;
      const std::string_view key = name();
      if (key.empty() || pos_ >= text_.size() || text_[pos_] != quote) fail("expected a quoted name");
      ++pos_;
      expect("]", "expected ']'");
      emit(Op::kName, 0, std::string(key));
      return;
    }
    const bool function = n == "cdiv" || n == "min" || n == "max";
    if (!function) {
      emit(Op::kName, 0, std::string(n));
      return;
    }
    expect("(", "expected '('");
    int64_t count = 0;
    do {
      expression(depth + 1);
      ++count;
    } while (accept(","));
    expect(")", "expected ')'");
    if (n == "cdiv") {
      if (count != 2) fail("cdiv takes two arguments");
      emit(Op::kCdiv);
    } else {
      if (count < 2) fail("min and max take at least two arguments");
      emit(n == "min" ? Op::kMin : Op::kMax, count);
    }
  }

  std::string_view text_;
  std::vector<GridExpression::Step>& out_;
  std::size_t pos_ = 0;
};

GridExpression GridExpression::parse(std::string_view text) {
  GridExpression e;
  e.text_ = std::string(text);
  GridParser(text, e.program_).parse();
  return e;
}

GridExpression GridExpression::constant(int64_t value) {
  GridExpression e;
  e.text_ = std::to_string(value);
  e.program_.push_back({Op::kConstant, value, {}});
  return e;
}

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

}  // namespace

int64_t GridExpression::evaluate(Lookup lookup, const void* context) const {
  std::vector<int64_t> stack;
  auto overflow = [&] { return ValueError(fmt::format("grid '{}': a value is out of 64 bits", text_)); };
  auto pop = [&] {
    const int64_t v = stack.back();
    stack.pop_back();
    return v;
  };
  for (const Step& s : program_) {
    if (s.op == Op::kConstant) {
      stack.push_back(s.value);
      continue;
    }
    if (s.op == Op::kName) {
      stack.push_back(lookup(s.name, context));
      continue;
    }
    if (s.op == Op::kNeg) {
      if (stack.back() == INT64_MIN) throw overflow();
      stack.back() = -stack.back();
      continue;
    }
    if (s.op == Op::kMin || s.op == Op::kMax) {
      int64_t v = pop();
      for (int64_t i = 1; i < s.value; ++i) {
        const int64_t w = pop();
        v = s.op == Op::kMin ? std::min(v, w) : std::max(v, w);
      }
      stack.push_back(v);
      continue;
    }
    const int64_t b = pop();
    const int64_t a = pop();
    int64_t r = 0;
    switch (s.op) {
      case Op::kAdd:
        if (__builtin_add_overflow(a, b, &r)) throw overflow();
        break;
      case Op::kSub:
        if (__builtin_sub_overflow(a, b, &r)) throw overflow();
        break;
      case Op::kMul:
        if (__builtin_mul_overflow(a, b, &r)) throw overflow();
        break;
      case Op::kFloorDiv:
      case Op::kMod:
      case Op::kCdiv: {
        if (b == 0) throw ValueError(fmt::format("grid '{}': division by zero", text_));
        if (a == INT64_MIN && b == -1) throw overflow();
        if (s.op == Op::kFloorDiv) {
          r = floor_div(a, b);
        } else if (s.op == Op::kMod) {
          r = a - floor_div(a, b) * b;
        } else {  // Triton's cdiv: (a + b - 1) // b
          int64_t below = 0, sum = 0;
          if (__builtin_sub_overflow(b, 1, &below) || __builtin_add_overflow(a, below, &sum)) throw overflow();
          r = floor_div(sum, b);
        }
        break;
      }
      default:
        break;
    }
    stack.push_back(r);
  }
  return stack.back();
}

}  // namespace triton_jit::aot
