// bc_expr_parse: the expression language's errors and their columns, node
// counts, and precedence checked by evaluating parsed expressions against
// the same ops run one by one in the order Python applies them.
#include <gtest/gtest.h>

#include <clocale>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

using bct::Tensor;

struct ExprFree {
  void operator()(bc_expr* e) const { bc_expr_free(e); }
};
using ExprPtr = std::unique_ptr<bc_expr, ExprFree>;

// The failure of parsing `text`: its status, and its message ("" on success).
struct Parsed {
  bc_status status;
  std::string message;
  ExprPtr e;
};

Parsed Parse(const char* text, const std::vector<const char*>& names = {"x", "y", "z"}) {
  bc_expr* e = reinterpret_cast<bc_expr*>(0x10);
  const bc_status s = bc_expr_parse(text, names.empty() ? nullptr : names.data(), names.size(), &e);
  Parsed r{s, s == BC_OK ? "" : bc_last_error(), ExprPtr(s == BC_OK ? e : nullptr)};
  if (s != BC_OK) {
    EXPECT_EQ(e, nullptr) << "e must be NULL on failure";
  }
  return r;
}

void ExpectError(const char* text, const std::string& message,
                 const std::vector<const char*>& names = {"x", "y", "z"}) {
  const Parsed p = Parse(text, names);
  EXPECT_EQ(p.status, BC_ERR_INVALID_ARGUMENT) << "text: " << text;
  EXPECT_EQ(p.message, message) << "text: " << text;
  bc_error_detail d;
  EXPECT_EQ(bc_last_error_detail(&d), p.status);
}

size_t NodesOf(const char* text, const std::vector<const char*>& names = {"x", "y", "z"}) {
  const Parsed p = Parse(text, names);
  EXPECT_EQ(p.status, BC_OK) << text << ": " << p.message;
  return bc_expr_num_nodes(p.e.get());
}

// ---------------------------------------------------------------------------
// Errors and their columns

TEST(ExprParseErrors, EndOfText) {
  ExpectError("", "at column 1: unexpected end of expression");
  ExpectError("  \t\n", "at column 5: unexpected end of expression");
  ExpectError("x +", "at column 4: unexpected end of expression");
  ExpectError("-", "at column 2: unexpected end of expression");
  ExpectError("x **", "at column 5: unexpected end of expression");
  ExpectError("exp(x,", "at column 7: unexpected end of expression");
}

TEST(ExprParseErrors, Parentheses) {
  ExpectError("(x + y", "at column 7: expected ')'");
  ExpectError("(x + y z)", "at column 8: expected ')'");
  ExpectError("exp(x", "at column 6: expected ')'");
  ExpectError("x + y)", "at column 6: unexpected ')'");
  ExpectError("()", "at column 2: expected an expression, not ')'");
  ExpectError("exp(,)", "at column 5: expected an expression, not ','");
}

TEST(ExprParseErrors, TrailingAndMisplacedTokens) {
  ExpectError("x y", "at column 3: unexpected 'y'");
  ExpectError("x 2", "at column 3: unexpected '2'");
  ExpectError("x, y", "at column 2: unexpected ','");
  ExpectError("x + * y", "at column 5: expected an expression, not '*'");
  ExpectError("True(x)", "at column 5: unexpected '('");
}

TEST(ExprParseErrors, Characters) {
  ExpectError("x + $", "at column 5: unexpected character '$'");
  ExpectError("x = 1", "at column 3: unexpected character '='");
  ExpectError("x ! y", "at column 3: unexpected character '!'");
  ExpectError("x\r", "at column 2: unexpected byte 0x0d");
  ExpectError("x + \xc3\xa9", "at column 5: unexpected byte 0xc3");
}

TEST(ExprParseErrors, UnknownNames) {
  ExpectError("x + foo", "at column 5: unknown name 'foo'");
  ExpectError("  y", "at column 3: unknown name 'y'", {"x"});
  ExpectError("true", "at column 1: unknown name 'true'");
  ExpectError("exp", "at column 1: unknown name 'exp'");
}

TEST(ExprParseErrors, ChainedComparisons) {
  ExpectError("x < y < z", "at column 7: comparisons cannot be chained");
  ExpectError("x == y != z", "at column 8: comparisons cannot be chained");
  ExpectError("x < y + 1 >= z", "at column 11: comparisons cannot be chained");
  // Python parses this as the chain x < (y | z) < 1.
  ExpectError("x < y | z < 1", "at column 11: comparisons cannot be chained");
}

TEST(ExprParseErrors, NumberLiterals) {
  ExpectError("9223372036854775808", "at column 1: integer literal out of range of int64");
  ExpectError("x + -9223372036854775809", "at column 6: integer literal out of range of int64");
  ExpectError("99999999999999999999999", "at column 1: integer literal out of range of int64");
  ExpectError("007", "at column 1: leading zeros in decimal integer literals are not permitted");
  ExpectError("x * 1e", "at column 5: invalid number literal");
  ExpectError("1e+", "at column 1: invalid number literal");
  ExpectError("2x", "at column 1: invalid number literal");
  ExpectError("1.2.3", "at column 1: invalid number literal");
  ExpectError("x + 1_000", "at column 5: invalid number literal");
}

// The builder's errors keep their status and gain the column of the call.
TEST(ExprParseErrors, BuilderErrorsGetTheCallsColumn) {
  ExpectError("x + foo(y)", "at column 5: unknown op 'foo'");
  ExpectError("exp(x, y)", "at column 1: exp takes 1 operands, not 2");
  ExpectError("1 + exp()", "at column 5: exp takes 1 operands, not 0");
  ExpectError("hardtanh(x, y)", "at column 1: hardtanh: operand 1 is a parameter and must be a number");
  ExpectError("where(x, y)", "at column 1: where takes 3 operands, not 2");
}

TEST(ExprParseErrors, TooManyNodes) {
  // x, then one add node per '+': the 65536th '+' (column 131072) is one
  // node too many.
  std::string text = "x";
  for (int i = 0; i < 65536; ++i) text += "+x";
  ExpectError(text.c_str(), "at column 131072: an expression has at most 65536 nodes");
}

TEST(ExprParseErrors, NestingLimit) {
  auto nested = [](const char* open, int n, const char* close) {
    std::string s;
    for (int i = 0; i < n; ++i) s += open;
    s += "x";
    for (int i = 0; i < n; ++i) s += close;
    return s;
  };
  EXPECT_EQ(NodesOf(nested("(", 256, ")").c_str()), 1u);
  ExpectError(nested("(", 257, ")").c_str(), "at column 258: expression nested too deeply");
  EXPECT_EQ(NodesOf(nested("exp(", 256, ")").c_str()), 257u);
  ExpectError(nested("exp(", 257, ")").c_str(), "at column 1029: expression nested too deeply");
  EXPECT_EQ(NodesOf(nested("-", 256, "").c_str()), 257u);
  ExpectError(nested("-", 257, "").c_str(), "at column 258: expression nested too deeply");
  ExpectError(nested("~", 100000, "").c_str(), "at column 258: expression nested too deeply");
  ExpectError(nested("x**", 300, "").c_str(), "at column 772: expression nested too deeply");
  // Not nesting: a long flat chain is fine.
  std::string flat = "x";
  for (int i = 0; i < 1000; ++i) flat += " - x";
  EXPECT_EQ(NodesOf(flat.c_str()), 1001u);
}

// ---------------------------------------------------------------------------
// Names and NULL arguments

TEST(ExprParseNames, Validation) {
  ExpectError("x", "names[1] is NULL", {"x", nullptr});
  ExpectError("x", "names[0] is not an identifier (a letter or '_', then letters, digits or '_')", {"1x"});
  ExpectError("x", "names[1] is not an identifier (a letter or '_', then letters, digits or '_')", {"x", ""});
  ExpectError("x", "names[0] is not an identifier (a letter or '_', then letters, digits or '_')", {"x-y"});
  ExpectError("x", "names[0] is not an identifier (a letter or '_', then letters, digits or '_')", {"\xc3\xa9"});
  ExpectError("x", "names[1] is 'True', which is a literal", {"x", "True"});
  ExpectError("x", "names[0] is 'False', which is a literal", {"False"});
  ExpectError("x", "names[2] repeats names[0] ('x')", {"x", "y", "x"});
  EXPECT_EQ(NodesOf("_a1 + B_", {"_a1", "B_"}), 3u);
}

TEST(ExprParseNames, NullArguments) {
  bc_expr* e = reinterpret_cast<bc_expr*>(0x10);
  const char* names[] = {"x"};
  EXPECT_EQ(bc_expr_parse(nullptr, names, 1, &e), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(e, nullptr);
  EXPECT_EQ(bc_expr_parse("x", names, 1, nullptr), BC_ERR_INVALID_ARGUMENT);
  e = reinterpret_cast<bc_expr*>(0x10);
  EXPECT_EQ(bc_expr_parse("x", nullptr, 1, &e), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(e, nullptr);
  // No names: only numbers.
  ASSERT_EQ(bc_expr_parse("1 + 2", nullptr, 0, &e), BC_OK) << bc_last_error();
  EXPECT_EQ(bc_expr_num_nodes(e), 3u);
  bc_expr_free(e);
  EXPECT_EQ(bc_expr_num_nodes(nullptr), 0u);
}

// ---------------------------------------------------------------------------
// Node counts: what the parser builds, without evaluating

TEST(ExprParseNodes, AnInputIsOneNode) {
  EXPECT_EQ(NodesOf("x"), 1u);
  EXPECT_EQ(NodesOf("x + x"), 2u);
  EXPECT_EQ(NodesOf("x * y + x * y"), 5u);  // x, y, mul, mul, add
  EXPECT_EQ(NodesOf("z"), 1u);              // unused names make no nodes
}

TEST(ExprParseNodes, NegativeNumbersAreNumbers) {
  EXPECT_EQ(NodesOf("-2"), 1u);
  EXPECT_EQ(NodesOf("- 2.5e3"), 1u);
  EXPECT_EQ(NodesOf("-9223372036854775808"), 1u);
  EXPECT_EQ(NodesOf("x * -2"), 3u);
  EXPECT_EQ(NodesOf("2 ** -2"), 3u);
  EXPECT_EQ(NodesOf("-x"), 2u);
  EXPECT_EQ(NodesOf("-True"), 2u);    // neg of a bool, not folded
  EXPECT_EQ(NodesOf("-(2)"), 2u);     // only a literal right after the sign folds
  EXPECT_EQ(NodesOf("--2"), 2u);      // neg(-2)
  EXPECT_EQ(NodesOf("-2 ** x"), 4u);  // -(2 ** x): 2, x, pow, neg
  EXPECT_EQ(NodesOf("+x"), 1u);
  EXPECT_EQ(NodesOf("+-+2"), 2u);      // neg(2): a sign between them stops the fold
  EXPECT_EQ(NodesOf("~x"), 2u);
}

TEST(ExprParseNodes, Literals) {
  for (const char* text : {"2", "0", "00", "0.5", ".5", "2.", "1e-3", "1E+3", "1.e5", "0e0", "1e400",
                           "1e-400", "4.9e-324", "True", "False", "9223372036854775807"})
    EXPECT_EQ(NodesOf(text), 1u) << text;
}

TEST(ExprParseNodes, CallsAndWhitespace) {
  EXPECT_EQ(NodesOf("hardtanh(x, -2, 2)"), 4u);
  EXPECT_EQ(NodesOf("exp(x,)"), 2u);  // a trailing comma, as Python allows
  EXPECT_EQ(NodesOf("\twhere(x>0,\n x,0.1*x) "), 6u);
  EXPECT_EQ(NodesOf("exp(exp)", {"exp"}), 2u);  // a name may also be an op's name
  EXPECT_EQ(NodesOf("((x))"), 1u);
}

// ---------------------------------------------------------------------------
// Evaluation against the eager ops, in Python's order. These need the
// evaluator (Expr::Eval).

// `t` by reference: it is read after the call that fills it, whatever the
// order in which the arguments are evaluated.
Tensor Check(bc_status s, bc_tensor*& t, const char* what) {
  EXPECT_EQ(s, BC_OK) << what << ": " << bc_last_error();
  return Tensor(t);
}

Tensor Num(bc_scalar s) {
  bc_tensor* t = nullptr;
  return Check(bc_tensor_from_scalar(s, &t), t, "bc_tensor_from_scalar");
}
Tensor Int(int64_t i) { return Num(bc_scalar_int(i)); }
Tensor Flt(double f) { return Num(bc_scalar_float(f)); }
Tensor Bool(bool b) { return Num(bc_scalar_bool(b)); }

Tensor Bin(bc_op op, const Tensor& a, const Tensor& b) {
  bc_tensor* t = nullptr;
  return Check(bc_binary(op, a.get(), b.get(), &t), t, bc_op_name(op));
}

Tensor Un(bc_unary_op op, const Tensor& x) {
  bc_tensor* t = nullptr;
  return Check(bc_unary(op, x.get(), &t), t, bc_unary_op_name(op));
}

class ExprParseEval : public ::testing::Test {
 protected:
  void SetUp() override {
    using bct::MakeHost;
    a = bct::ToTensor(MakeHost(BC_INT64, {2, 3}, {-3, -1, 0, 1, 2, 5}));
    b = bct::ToTensor(MakeHost(BC_INT64, {3}, {1, 2, 3}));
    c = bct::ToTensor(MakeHost(BC_INT64, {2, 1}, {2, -1}));
    d = bct::ToTensor(MakeHost(BC_INT64, {}, {6}));
    x = bct::ToTensor(MakeHost(BC_FLOAT32, {2, 3}, {-1.5, -0.25, 0, 0.5, 1.25, 3}));
    y = bct::ToTensor(MakeHost(BC_FLOAT32, {3}, {0.5, 1, 2}));
    z = bct::ToTensor(MakeHost(BC_FLOAT32, {2, 1}, {1, 0.5}));
    m = bct::ToTensor(MakeHost(BC_BOOL, {2, 3}, {1, 0, 0, 1, 1, 0}));
    p = bct::ToTensor(MakeHost(BC_FLOAT32, {2, 3}, {0.5, 1, 1.5, 2, 2.5, 3}));
  }

  // `text` over inputs a b c d x y z m p gives `want`'s dtype, shape and bytes.
  void ExpectSame(const char* text, const Tensor& want) {
    SCOPED_TRACE(text);
    ASSERT_TRUE(want != nullptr) << "the reference failed";
    const Parsed parsed = Parse(text, {"a", "b", "c", "d", "x", "y", "z", "m", "p"});
    ASSERT_EQ(parsed.status, BC_OK) << parsed.message;
    const bc_tensor* inputs[] = {a.get(), b.get(), c.get(), d.get(), x.get(), y.get(), z.get(), m.get(), p.get()};
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_expr_eval(parsed.e.get(), inputs, 9, &out), BC_OK) << bc_last_error();
    Tensor got(out);
    ASSERT_EQ(bc_tensor_dtype(got.get()), bc_tensor_dtype(want.get()));
    ASSERT_EQ(bct::ShapeOf(got.get()), bct::ShapeOf(want.get()));
    const std::vector<unsigned char> gb = bct::RawBytes(got.get()), wb = bct::RawBytes(want.get());
    ASSERT_EQ(gb.size(), wb.size());
    EXPECT_EQ(std::memcmp(gb.data(), wb.data(), gb.size()), 0) << "values differ";
  }

  Tensor a, b, c, d, x, y, z, m, p;
};

TEST_F(ExprParseEval, Associativity) {
  ExpectSame("a - b - c", Bin(BC_SUB, Bin(BC_SUB, a, b), c));
  ExpectSame("a - (b - c)", Bin(BC_SUB, a, Bin(BC_SUB, b, c)));
  ExpectSame("x / y * z", Bin(BC_MUL, Bin(BC_DIV, x, y), z));
  ExpectSame("x * y / z", Bin(BC_DIV, Bin(BC_MUL, x, y), z));
  ExpectSame("a // b % c", Bin(BC_REMAINDER, Bin(BC_DIV_FLOOR, a, b), c));
  ExpectSame("p ** y ** z", Bin(BC_POW, p, Bin(BC_POW, y, z)));
  ExpectSame("(p ** y) ** z", Bin(BC_POW, Bin(BC_POW, p, y), z));
  ExpectSame("a << b >> c", Bin(BC_SHIFT_RIGHT, Bin(BC_SHIFT_LEFT, a, b), c));
}

TEST_F(ExprParseEval, Precedence) {
  ExpectSame("a + b * c", Bin(BC_ADD, a, Bin(BC_MUL, b, c)));
  ExpectSame("a * b + c * d", Bin(BC_ADD, Bin(BC_MUL, a, b), Bin(BC_MUL, c, d)));
  ExpectSame("a & b | c ^ d", Bin(BC_BITWISE_OR, Bin(BC_BITWISE_AND, a, b), Bin(BC_BITWISE_XOR, c, d)));
  ExpectSame("a | b ^ c & d", Bin(BC_BITWISE_OR, a, Bin(BC_BITWISE_XOR, b, Bin(BC_BITWISE_AND, c, d))));
  ExpectSame("a << 1 + b", Bin(BC_SHIFT_LEFT, a, Bin(BC_ADD, Int(1), b)));
  ExpectSame("a + b >> 1", Bin(BC_SHIFT_RIGHT, Bin(BC_ADD, a, b), Int(1)));
  ExpectSame("a & b << 1", Bin(BC_BITWISE_AND, a, Bin(BC_SHIFT_LEFT, b, Int(1))));
  ExpectSame("(a > 0) & (b < 2)", Bin(BC_BITWISE_AND, Bin(BC_GT, a, Int(0)), Bin(BC_LT, b, Int(2))));
  // Python: comparisons bind looser than `|`, `^` and `&`.
  ExpectSame("a > 0 & b", Bin(BC_GT, a, Bin(BC_BITWISE_AND, Int(0), b)));
  ExpectSame("a == b | c", Bin(BC_EQ, a, Bin(BC_BITWISE_OR, b, c)));
  ExpectSame("a != b ^ 1", Bin(BC_NE, a, Bin(BC_BITWISE_XOR, b, Int(1))));
  ExpectSame("a <= b + c", Bin(BC_LE, a, Bin(BC_ADD, b, c)));
  ExpectSame("x >= y * z", Bin(BC_GE, x, Bin(BC_MUL, y, z)));
  ExpectSame("exp(x) + sin(y) * z", Bin(BC_ADD, Un(BC_EXP, x), Bin(BC_MUL, Un(BC_SIN, y), z)));
}

TEST_F(ExprParseEval, UnaryAndPower) {
  ExpectSame("-a ** 2", Un(BC_NEG, Bin(BC_POW, a, Int(2))));
  ExpectSame("-x ** 2", Un(BC_NEG, Bin(BC_POW, x, Int(2))));
  ExpectSame("2 ** -x", Bin(BC_POW, Int(2), Un(BC_NEG, x)));
  ExpectSame("-2 ** x", Un(BC_NEG, Bin(BC_POW, Int(2), x)));
  ExpectSame("p ** -y ** z", Bin(BC_POW, p, Un(BC_NEG, Bin(BC_POW, y, z))));
  ExpectSame("-x * y", Bin(BC_MUL, Un(BC_NEG, x), y));
  ExpectSame("a - -b", Bin(BC_SUB, a, Un(BC_NEG, b)));
  ExpectSame("+x - +y", Bin(BC_SUB, x, y));
  ExpectSame("~a", Un(BC_BITWISE_NOT, a));
  ExpectSame("~m", Un(BC_BITWISE_NOT, m));
  ExpectSame("~-a", Un(BC_BITWISE_NOT, Un(BC_NEG, a)));
  ExpectSame("~m | m", Bin(BC_BITWISE_OR, Un(BC_BITWISE_NOT, m), m));
}

TEST_F(ExprParseEval, OperatorsAndCalls) {
  ExpectSame("where(x > 0, x, 0.1 * x)", [&] {
    const Tensor cond = Bin(BC_GT, x, Int(0)), scaled = Bin(BC_MUL, Flt(0.1), x);
    bc_tensor* t = nullptr;
    return Check(bc_where(cond.get(), x.get(), scaled.get(), &t), t, "where");
  }());
  ExpectSame("clamp((x - y) * z, 0, 1)", [&] {
    const Tensor v = Bin(BC_MUL, Bin(BC_SUB, x, y), z);
    const bc_scalar lo = bc_scalar_int(0), hi = bc_scalar_int(1);
    bc_tensor* t = nullptr;
    return Check(bc_clamp_scalar(v.get(), &lo, &hi, &t), t, "clamp");
  }());
  ExpectSame("hardtanh(x, -2, 2)", [&] {
    bc_unary_params params = {{-2, 2, 0}, 3};
    bc_tensor* t = nullptr;
    return Check(bc_unary_ex(BC_HARDTANH, x.get(), &params, &t), t, "hardtanh");
  }());
  ExpectSame("2 // b", Bin(BC_DIV_FLOOR, Int(2), b));
  ExpectSame("a // b", Bin(BC_DIV_FLOOR, a, b));
  ExpectSame("a % 3", Bin(BC_REMAINDER, a, Int(3)));
  ExpectSame("x % -0.75", Bin(BC_REMAINDER, x, Flt(-0.75)));
  ExpectSame("a / b", Bin(BC_DIV, a, b));
  ExpectSame("a < b", Bin(BC_LT, a, b));
  ExpectSame("m & (a >= 1)", Bin(BC_BITWISE_AND, m, Bin(BC_GE, a, Int(1))));
}

// Integer literals are ints, a point or an exponent makes a float, True and
// False are bools: the result dtypes tell them apart.
TEST_F(ExprParseEval, LiteralKinds) {
  ExpectSame("a * 2", Bin(BC_MUL, a, Int(2)));
  ExpectSame("a * 2.", Bin(BC_MUL, a, Flt(2.0)));
  ExpectSame("a * -2", Bin(BC_MUL, a, Int(-2)));
  ExpectSame("a + True", Bin(BC_ADD, a, Bool(true)));
  ExpectSame("m | False", Bin(BC_BITWISE_OR, m, Bool(false)));
  ExpectSame("m * True", Bin(BC_MUL, m, Bool(true)));
  ExpectSame("a + 9223372036854775807", Bin(BC_ADD, a, Int(INT64_MAX)));
  ExpectSame("a + -9223372036854775808", Bin(BC_ADD, a, Int(INT64_MIN)));
}

// Float literals are read as correctly rounded doubles.
TEST_F(ExprParseEval, FloatLiteralValues) {
  ExpectSame("x * 0.1", Bin(BC_MUL, x, Flt(0.1)));
  ExpectSame("x + .5", Bin(BC_ADD, x, Flt(0.5)));
  ExpectSame("x + 1e-3", Bin(BC_ADD, x, Flt(1e-3)));
  ExpectSame("x * 1E+3", Bin(BC_MUL, x, Flt(1e3)));
  ExpectSame("x * 2.5e-1", Bin(BC_MUL, x, Flt(0.25)));
  ExpectSame("x * 0.30000000000000004", Bin(BC_MUL, x, Flt(0.30000000000000004)));
  ExpectSame("x + 1e400", Bin(BC_ADD, x, Flt(HUGE_VAL)));
  ExpectSame("x * -0.0", Bin(BC_MUL, x, Flt(-0.0)));
  ExpectSame("x + 123.456e-2", Bin(BC_ADD, x, Flt(1.23456)));
}

// The decimal point is '.' whatever the process's locale (where a locale
// with a ',' point is installed; otherwise this runs in "C" again).
TEST_F(ExprParseEval, FloatLiteralsIgnoreTheLocale) {
  const std::string old = std::setlocale(LC_NUMERIC, nullptr);
  for (const char* loc : {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"})
    if (std::setlocale(LC_NUMERIC, loc) != nullptr) break;
  ExpectSame("x * 0.5", Bin(BC_MUL, x, Flt(0.5)));
  ExpectSame("x + 1.25e1", Bin(BC_ADD, x, Flt(12.5)));
  std::setlocale(LC_NUMERIC, old.c_str());
}

}  // namespace
