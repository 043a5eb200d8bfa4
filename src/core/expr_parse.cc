// The expression language (bc_expr_parse, docs/expressions.md): Python's
// expression syntax for numbers, names, calls and operators, parsed by
// recursive descent straight into Expr's builders.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/expr.h"

namespace bcast {

namespace {

// Each nesting level (a parenthesis, a call's arguments, a unary operator, a
// `**` operand) costs a few stack frames; the limit keeps hostile text from
// overflowing the stack.
constexpr int kMaxDepth = 256;

// Binary operator levels, loosest first, as Python has them: comparisons
// bind looser than `|`, so `x > 0 & y` is `x > (0 & y)`.
enum Level { kCompare, kOr, kXor, kAnd, kShift, kArith, kTerm };

struct BinaryOp {
  const char* text;
  Level level;
  const char* op;  // the op table's name
};

// Longer spellings first, so that `<<` is not read as `<`.
constexpr BinaryOp kBinaryOps[] = {
    {"<<", kShift, "bitwise_left_shift"}, {">>", kShift, "bitwise_right_shift"},
    {"<=", kCompare, "le"},               {">=", kCompare, "ge"},
    {"==", kCompare, "eq"},               {"!=", kCompare, "ne"},
    {"//", kTerm, "div_floor"},           {"<", kCompare, "lt"},
    {">", kCompare, "gt"},                {"|", kOr, "bitwise_or"},
    {"^", kXor, "bitwise_xor"},           {"&", kAnd, "bitwise_and"},
    {"+", kArith, "add"},                 {"-", kArith, "sub"},
    {"*", kTerm, "mul"},                  {"/", kTerm, "div"},
    {"%", kTerm, "remainder"},
};

bool IsIdentStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

bool IsIdentifier(const char* s) {
  if (!IsIdentStart(s[0])) return false;
  for (const char* p = s + 1; *p; ++p)
    if (!IsIdentChar(*p)) return false;
  return true;
}

struct Token {
  enum Kind { kEnd, kNumber, kName, kOperator, kLParen, kRParen, kComma };
  Kind kind = kEnd;
  size_t begin = 0, end = 0;  // byte offsets into the text
};

class Parser {
 public:
  Parser(const char* text, const char* const* names, size_t nnames, Expr* e)
      : text_(text), size_(std::strlen(text)), e_(e), input_node_(nnames, -1) {
    for (size_t i = 0; i < nnames; ++i) name_index_.emplace(names[i], i);
  }

  void Parse() {
    tok_ = Lex(0);
    ParseBinary(kCompare);
    if (tok_.kind != Token::kEnd) Fail(tok_.begin, "unexpected '" + Text(tok_) + "'");
  }

 private:
  [[noreturn]] void Fail(size_t at, const std::string& what) const {
    bcast::Fail(BC_ERR_INVALID_ARGUMENT, "at column " + std::to_string(at + 1) + ": " + what);
  }

  std::string Text(const Token& t) const { return std::string(text_ + t.begin, t.end - t.begin); }

  bool Is(const Token& t, const char* s) const {
    const size_t n = std::strlen(s);
    return t.end - t.begin == n && std::memcmp(text_ + t.begin, s, n) == 0;
  }

  // The token that starts at or after byte `pos`.
  Token Lex(size_t pos) const {
    while (pos < size_ && (text_[pos] == ' ' || text_[pos] == '\t' || text_[pos] == '\n')) ++pos;
    Token t;
    t.begin = t.end = pos;
    if (pos == size_) return t;
    const char c = text_[pos];
    if (IsDigit(c) || (c == '.' && pos + 1 < size_ && IsDigit(text_[pos + 1]))) {
      t.kind = Token::kNumber;
      t.end = NumberEnd(pos);
      return t;
    }
    if (IsIdentStart(c)) {
      t.kind = Token::kName;
      while (t.end < size_ && IsIdentChar(text_[t.end])) ++t.end;
      return t;
    }
    t.end = pos + 1;
    if (c == '(') t.kind = Token::kLParen;
    else if (c == ')') t.kind = Token::kRParen;
    else if (c == ',') t.kind = Token::kComma;
    else if (c == '~') t.kind = Token::kOperator;
    else if (c == '*') {
      t.kind = Token::kOperator;
      if (pos + 1 < size_ && text_[pos + 1] == '*') t.end = pos + 2;
    } else {
      for (const BinaryOp& op : kBinaryOps) {
        const size_t n = std::strlen(op.text);
        if (pos + n <= size_ && std::memcmp(text_ + pos, op.text, n) == 0) {
          t.kind = Token::kOperator;
          t.end = pos + n;
          return t;
        }
      }
      const unsigned char u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f) Fail(pos, std::string("unexpected character '") + c + "'");
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", u);
      Fail(pos, std::string("unexpected byte ") + hex);
    }
    return t;
  }

  // One past a number literal starting at `pos`: digits, a fraction, an
  // exponent, as Python writes them.
  size_t NumberEnd(size_t pos) const {
    size_t p = pos;
    while (p < size_ && IsDigit(text_[p])) ++p;
    if (p < size_ && text_[p] == '.') {
      ++p;
      while (p < size_ && IsDigit(text_[p])) ++p;
    }
    if (p < size_ && (text_[p] == 'e' || text_[p] == 'E')) {
      size_t q = p + 1;
      if (q < size_ && (text_[q] == '+' || text_[q] == '-')) ++q;
      if (q == size_ || !IsDigit(text_[q])) Fail(pos, "invalid number literal");
      while (q < size_ && IsDigit(text_[q])) ++q;
      p = q;
    }
    // Python reads `2x` and `1.2.3` as malformed numbers, not as two tokens.
    if (p < size_ && (IsIdentChar(text_[p]) || text_[p] == '.')) Fail(pos, "invalid number literal");
    return p;
  }

  void Advance() { tok_ = Lex(tok_.end); }

  const BinaryOp* AsBinary(const Token& t) const {
    if (t.kind != Token::kOperator) return nullptr;
    for (const BinaryOp& op : kBinaryOps)
      if (Is(t, op.text)) return &op;
    return nullptr;
  }

  // A builder's error names no position; the parser adds the column of the
  // token that asked for the node.
  template <typename F>
  int32_t Build(size_t at, F&& f) {
    try {
      return f();
    } catch (const Error& err) {
      bcast::Fail(err.code, "at column " + std::to_string(at + 1) + ": " + err.message);
    }
  }

  int32_t Call(size_t at, const char* op, const std::vector<int32_t>& args) {
    return Build(at, [&] { return e_->Call(op, args.data(), args.size()); });
  }

  // Binary operators of `level` and above, by precedence climbing: the right
  // operand takes only tighter operators, which makes each level left-
  // associative.
  int32_t ParseBinary(int level) {
    int32_t lhs = ParseUnary();
    for (;;) {
      const BinaryOp* op = AsBinary(tok_);
      if (op == nullptr || op->level < level) return lhs;
      const size_t at = tok_.begin;
      Advance();
      const int32_t rhs = ParseBinary(op->level + 1);
      lhs = Call(at, op->op, {lhs, rhs});
      if (op->level == kCompare) {
        const BinaryOp* next = AsBinary(tok_);
        if (next != nullptr && next->level == kCompare) Fail(tok_.begin, "comparisons cannot be chained");
      }
    }
  }

  // Every nesting passes through here, so the depth is counted here.
  int32_t ParseUnary() {
    if (depth_ > kMaxDepth) Fail(tok_.begin, "expression nested too deeply");
    ++depth_;
    const int32_t node = ParseUnaryNested();
    --depth_;
    return node;
  }

  int32_t ParseUnaryNested() {
    if (tok_.kind == Token::kOperator && (Is(tok_, "-") || Is(tok_, "+") || Is(tok_, "~"))) {
      const Token op = tok_;
      Advance();
      // `-2` is the number -2, as Python folds it; `-2 ** x` is -(2 ** x).
      if (Is(op, "-") && tok_.kind == Token::kNumber) {
        const Token after = Lex(tok_.end);
        if (!(after.kind == Token::kOperator && Is(after, "**"))) {
          const bc_scalar v = NumberValue(tok_, /*negate=*/true);
          const size_t at = tok_.begin;
          Advance();
          return Build(at, [&] { return e_->Number(v); });
        }
      }
      const int32_t x = ParseUnary();
      if (Is(op, "+")) return x;  // Python's +x is x for numbers and tensors alike
      return Call(op.begin, Is(op, "-") ? "neg" : "bitwise_not", {x});
    }
    return ParsePower();
  }

  // atom ['**' unary]: the exponent may carry a sign (2 ** -x), and `**`
  // groups to the right through that recursion.
  int32_t ParsePower() {
    const int32_t base = ParseAtom();
    if (!(tok_.kind == Token::kOperator && Is(tok_, "**"))) return base;
    const size_t at = tok_.begin;
    Advance();
    const int32_t exponent = ParseUnary();
    return Call(at, "pow", {base, exponent});
  }

  int32_t ParseAtom() {
    const Token t = tok_;
    switch (t.kind) {
      case Token::kEnd:
        Fail(t.begin, "unexpected end of expression");
      case Token::kNumber: {
        const bc_scalar v = NumberValue(t, /*negate=*/false);
        Advance();
        return Build(t.begin, [&] { return e_->Number(v); });
      }
      case Token::kLParen: {
        Advance();
        const int32_t x = ParseBinary(kCompare);
        Expect(Token::kRParen, "expected ')'");
        return x;
      }
      case Token::kName:
        return ParseName();
      default:
        Fail(t.begin, "expected an expression, not '" + Text(t) + "'");
    }
  }

  void Expect(Token::Kind kind, const char* what) {
    if (tok_.kind != kind) Fail(tok_.begin, what);
    Advance();
  }

  int32_t ParseName() {
    const Token t = tok_;
    const std::string name = Text(t);
    Advance();
    if (name == "True" || name == "False") return Build(t.begin, [&] { return e_->Number(bc_scalar_bool(name == "True")); });
    if (tok_.kind == Token::kLParen) {
      Advance();
      std::vector<int32_t> args;
      while (tok_.kind != Token::kRParen) {
        args.push_back(ParseBinary(kCompare));
        if (tok_.kind != Token::kComma) break;
        Advance();  // a trailing comma is allowed, as in Python
      }
      Expect(Token::kRParen, "expected ')'");
      return Call(t.begin, name.c_str(), args);
    }
    const auto it = name_index_.find(name);
    if (it == name_index_.end()) Fail(t.begin, "unknown name '" + name + "'");
    int32_t& node = input_node_[it->second];
    if (node < 0) node = Build(t.begin, [&] { return e_->Input(static_cast<int64_t>(it->second)); });
    return node;
  }

  // The value of a number token. An integer is an int64 (-2**63 only with
  // `negate`); a literal with a point or an exponent is a double, correctly
  // rounded.
  bc_scalar NumberValue(const Token& t, bool negate) const {
    const char* s = text_ + t.begin;
    const size_t n = t.end - t.begin;
    bool is_float = false;
    for (size_t i = 0; i < n; ++i) is_float |= s[i] == '.' || s[i] == 'e' || s[i] == 'E';
    if (!is_float) {
      if (n > 1 && s[0] == '0') {
        for (size_t i = 0; i < n; ++i)
          if (s[i] != '0') Fail(t.begin, "leading zeros in decimal integer literals are not permitted");
      }
      const uint64_t limit = negate ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
      uint64_t v = 0;
      for (size_t i = 0; i < n; ++i) {
        const uint64_t d = static_cast<uint64_t>(s[i] - '0');
        if (v > (limit - d) / 10) Fail(t.begin, "integer literal out of range of int64");
        v = v * 10 + d;
      }
      // Two's complement negation in unsigned arithmetic: -2**63 included.
      return bc_scalar_int(static_cast<int64_t>(negate ? 0 - v : v));
    }
    // strtod reads the decimal point of the process's locale; digits and an
    // exponent read the same in every locale, so the point is moved into
    // the exponent: "12.5e3" becomes "125e2".
    std::string digits;
    int64_t exp10 = 0;
    size_t i = 0;
    for (; i < n && s[i] != 'e' && s[i] != 'E'; ++i) {
      if (s[i] == '.') continue;
      digits += s[i];
    }
    const char* point = static_cast<const char*>(std::memchr(s, '.', i));
    if (point != nullptr) exp10 -= static_cast<int64_t>(s + i - point - 1);
    if (i < n) {
      ++i;
      bool minus = false;
      if (s[i] == '+' || s[i] == '-') minus = s[i++] == '-';
      int64_t e = 0;
      for (; i < n; ++i) e = e < 1000000000 ? e * 10 + (s[i] - '0') : e;  // beyond that, inf or 0 anyway
      exp10 += minus ? -e : e;
    }
    const std::string plain = digits + "e" + std::to_string(exp10);
    // On ERANGE strtod still returns what Python gives: inf, 0 or a subnormal.
    const double v = std::strtod(plain.c_str(), nullptr);
    return bc_scalar_float(negate ? -v : v);
  }

  const char* text_;
  size_t size_;
  Expr* e_;
  Token tok_;
  int depth_ = 0;
  std::unordered_map<std::string, size_t> name_index_;
  std::vector<int32_t> input_node_;  // input i's node, made at its first use; -1 before
};

void CheckNames(const char* const* names, size_t nnames) {
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < nnames; ++i) {
    const std::string which = "names[" + std::to_string(i) + "]";
    if (names[i] == nullptr) bcast::Fail(BC_ERR_INVALID_ARGUMENT, which + " is NULL");
    if (!IsIdentifier(names[i]))
      bcast::Fail(BC_ERR_INVALID_ARGUMENT,
                  which + " is not an identifier (a letter or '_', then letters, digits or '_')");
    const std::string name = names[i];
    if (name == "True" || name == "False")
      bcast::Fail(BC_ERR_INVALID_ARGUMENT, which + " is '" + name + "', which is a literal");
    const auto [it, added] = seen.emplace(name, i);
    if (!added)
      bcast::Fail(BC_ERR_INVALID_ARGUMENT,
                  which + " repeats names[" + std::to_string(it->second) + "] ('" + name + "')");
  }
}

}  // namespace

std::unique_ptr<Expr> ParseExpr(const char* text, const char* const* names, size_t nnames) {
  auto e = std::make_unique<Expr>(nnames);
  CheckNames(names, nnames);
  Parser(text, names, nnames, e.get()).Parse();
  return e;
}

}  // namespace bcast
