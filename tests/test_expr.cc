// Fused expressions (bc_expr) against the same chain run op by op through
// the C API: random graphs over every op of the table, every dtype and
// broadcast layout, compared bit for bit, errors and their texts included.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace bct {
namespace {

enum Kind { kUnary, kBinary, kTernary };
struct OpRef {
  std::string name;
  Kind kind;
  int code;  // bc_op or bc_unary_op; ternaries by name
};

std::vector<OpRef> AllOps() {
  std::vector<OpRef> ops;
  for (int i = 0; i < BC_OP_COUNT; ++i) ops.push_back({bc_op_name(static_cast<bc_op>(i)), kBinary, i});
  for (int u = 0; u < BC_UNARY_OP_COUNT; ++u)
    ops.push_back({bc_unary_op_name(static_cast<bc_unary_op>(u)), kUnary, u});
  for (const char* t : {"where", "clamp", "lerp", "addcmul", "addcdiv"}) ops.push_back({t, kTernary, 0});
  return ops;
}

int Arity(const OpRef& r) { return r.kind == kUnary ? 1 : r.kind == kBinary ? 2 : 3; }

// One op of the eager chain through the C API: into `out`, or a new tensor.
bc_status RunRef(const OpRef& r, const bc_tensor* const* in, bc_tensor* out, bc_tensor** res) {
  if (r.kind == kBinary) {
    const bc_op op = static_cast<bc_op>(r.code);
    return out ? bc_binary_out(op, in[0], in[1], out) : bc_binary(op, in[0], in[1], res);
  }
  if (r.kind == kUnary) {
    const bc_unary_op op = static_cast<bc_unary_op>(r.code);
    return out ? bc_unary_out(op, in[0], out) : bc_unary(op, in[0], res);
  }
  if (r.name == "where") return out ? bc_where_out(in[0], in[1], in[2], out) : bc_where(in[0], in[1], in[2], res);
  if (r.name == "clamp") return out ? bc_clamp_out(in[0], in[1], in[2], out) : bc_clamp(in[0], in[1], in[2], res);
  if (r.name == "lerp") return out ? bc_lerp_out(in[0], in[1], in[2], out) : bc_lerp(in[0], in[1], in[2], res);
  if (r.name == "addcmul")
    return out ? bc_addcmul_out(in[0], in[1], in[2], 1, out) : bc_addcmul(in[0], in[1], in[2], 1, res);
  return out ? bc_addcdiv_out(in[0], in[1], in[2], 1, out) : bc_addcdiv(in[0], in[1], in[2], 1, res);
}

struct Node {
  int input = -1;     // an input node
  bool number = false;
  bc_scalar value{};  // a number node
  int op = -1;        // an op node: index into AllOps()
  std::vector<int> args;
};

struct Case {
  std::vector<Tensor> inputs;
  std::vector<bool> strided;  // inputs[i] was made with other strides
  std::vector<Node> nodes;
  std::string text;  // for failure messages
};

const bc_dtype kDtypes[] = {BC_BOOL,  BC_UINT8,   BC_INT8,     BC_INT16,   BC_INT32,
                            BC_INT64, BC_FLOAT16, BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64};

bc_scalar RandomNumber(std::mt19937& rng) {
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0: return bc_scalar_bool(std::uniform_int_distribution<int>(0, 1)(rng));
    case 1:
    case 2: return bc_scalar_int(std::uniform_int_distribution<int>(-3, 5)(rng));
    default: {
      const double v[] = {0.1, -0.5, 2.5, 1e-3, 3.0, -7.25};
      return bc_scalar_float(v[std::uniform_int_distribution<int>(0, 5)(rng)]);
    }
  }
}

Shape RandomOutShape(std::mt19937& rng, bool large) {
  if (large) {
    const Shape big[] = {{40000}, {4, 30000}, {17, 1000}, {2, 3, 17000}, {70000, 1}, {1000, 7}};
    return big[std::uniform_int_distribution<int>(0, 5)(rng)];
  }
  const int nd = std::uniform_int_distribution<int>(0, 4)(rng);
  const int64_t sizes[] = {1, 2, 3, 5, 7, 33};
  Shape s;
  for (int d = 0; d < nd; ++d) s.push_back(sizes[std::uniform_int_distribution<int>(0, 5)(rng)]);
  return s;
}

Case RandomCase(std::mt19937& rng, const std::vector<OpRef>& ops, bool large) {
  Case c;
  const Shape out = RandomOutShape(rng, large);
  const int nin = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int i = 0; i < nin; ++i) {
    // A suffix of the output's shape, some dims 1.
    const size_t keep = std::uniform_int_distribution<size_t>(0, out.size())(rng);
    Shape s(out.end() - static_cast<std::ptrdiff_t>(keep), out.end());
    for (int64_t& d : s)
      if (std::uniform_int_distribution<int>(0, 9)(rng) < 3) d = 1;
    const bc_dtype dt = kDtypes[std::uniform_int_distribution<int>(0, 9)(rng)];
    Host h = RandomHost(dt, s, rng);
    const bool strided = !s.empty() && std::uniform_int_distribution<int>(0, 2)(rng) == 0;
    c.inputs.push_back(strided ? ToStridedTensor(h, rng, true, 2) : ToTensor(h));
    c.strided.push_back(strided);
    Node n;
    n.input = i;
    c.nodes.push_back(n);
    c.text += "x" + std::to_string(i) + ":" + ShortName(dt) + ShapeStr(s) + (strided ? "s " : " ");
  }
  const int depth = std::uniform_int_distribution<int>(1, 8)(rng);
  for (int k = 0; k < depth; ++k) {
    Node n;
    n.op = std::uniform_int_distribution<int>(0, static_cast<int>(ops.size()) - 1)(rng);
    const OpRef& r = ops[static_cast<size_t>(n.op)];
    for (int a = 0; a < Arity(r); ++a) {
      const int pick = std::uniform_int_distribution<int>(0, 9)(rng);
      if (pick < 2) {  // a number
        Node num;
        num.number = true;
        num.value = RandomNumber(rng);
        c.nodes.push_back(num);
        n.args.push_back(static_cast<int>(c.nodes.size()) - 1);
      } else if (pick < 6) {  // the latest node: chains
        n.args.push_back(static_cast<int>(c.nodes.size()) - 1);
      } else {
        n.args.push_back(std::uniform_int_distribution<int>(0, static_cast<int>(c.nodes.size()) - 1)(rng));
      }
    }
    c.nodes.push_back(n);
    c.text += "| " + r.name + "(";
    for (int a : n.args) c.text += std::to_string(a) + " ";
    c.text += ") ";
  }
  return c;
}

// The nodes the last one depends on.
std::vector<bool> Live(const Case& c) {
  std::vector<bool> live(c.nodes.size(), false);
  live.back() = true;
  for (size_t k = c.nodes.size(); k-- > 0;)
    if (live[k])
      for (int a : c.nodes[k].args) live[static_cast<size_t>(a)] = true;
  return live;
}

struct Outcome {
  bc_status st = BC_OK;
  std::string error;
  Tensor result;
  std::vector<std::string> warnings;
};

// The warnings the default context sends, caught.
std::vector<std::string>* g_warnings = nullptr;
void CatchWarning(const char* m, void*) {
  if (g_warnings) g_warnings->push_back(m);
}

// The chain op by op: the reference.
Outcome RunEager(const Case& c, const std::vector<OpRef>& ops, bc_tensor* out) {
  const std::vector<bool> live = Live(c);
  Outcome o;
  g_warnings = &o.warnings;
  std::vector<Tensor> vals(c.nodes.size());
  std::vector<const bc_tensor*> of(c.nodes.size(), nullptr);
  for (size_t k = 0; k < c.nodes.size(); ++k) {
    if (!live[k]) continue;
    const Node& n = c.nodes[k];
    if (n.input >= 0) {
      of[k] = c.inputs[static_cast<size_t>(n.input)].get();
      continue;
    }
    if (n.number) {
      bc_tensor* t = nullptr;
      EXPECT_EQ(bc_tensor_from_scalar(n.value, &t), BC_OK);
      vals[k] = Tensor(t);
      of[k] = t;
      continue;
    }
    const bc_tensor* in[3] = {};
    for (size_t a = 0; a < n.args.size(); ++a) in[a] = of[static_cast<size_t>(n.args[a])];
    const bool last = k + 1 == c.nodes.size();
    bc_tensor* r = nullptr;
    o.st = RunRef(ops[static_cast<size_t>(n.op)], in, last ? out : nullptr, &r);
    if (o.st != BC_OK) {
      o.error = bc_last_error();
      return o;
    }
    if (last && out == nullptr) o.result = Tensor(r);
    if (!last) {
      vals[k] = Tensor(r);
      of[k] = r;
    }
  }
  return o;
}

bc_expr* Build(const Case& c, const std::vector<OpRef>& ops) {
  bc_expr* e = nullptr;
  EXPECT_EQ(bc_expr_new(c.inputs.size(), &e), BC_OK);
  for (const Node& n : c.nodes) {
    int32_t id = -1;
    if (n.input >= 0) {
      EXPECT_EQ(bc_expr_input(e, n.input, &id), BC_OK) << bc_last_error();
    } else if (n.number) {
      EXPECT_EQ(bc_expr_number(e, &n.value, &id), BC_OK) << bc_last_error();
    } else {
      std::vector<int32_t> args(n.args.begin(), n.args.end());
      EXPECT_EQ(bc_expr_call(e, ops[static_cast<size_t>(n.op)].name.c_str(), args.data(), args.size(), &id), BC_OK)
          << bc_last_error();
    }
  }
  return e;
}

Outcome RunFused(bc_expr* e, const Case& c, bc_tensor* out) {
  std::vector<const bc_tensor*> in;
  for (const Tensor& t : c.inputs) in.push_back(t.get());
  Outcome o;
  g_warnings = &o.warnings;
  bc_tensor* r = nullptr;
  o.st = out ? bc_expr_eval_out(e, in.data(), in.size(), out) : bc_expr_eval(e, in.data(), in.size(), &r);
  if (o.st != BC_OK) o.error = bc_last_error();
  if (o.st == BC_OK && out == nullptr) o.result = Tensor(r);
  return o;
}

void ExpectSame(const Outcome& want, const Outcome& got, const std::string& what) {
  ASSERT_EQ(want.st, got.st) << what << "\n eager: " << want.error << "\n fused: " << got.error;
  EXPECT_EQ(want.warnings, got.warnings) << what;
  if (want.st != BC_OK) {
    EXPECT_EQ(want.error, got.error) << what;
    return;
  }
  if (want.result.get() == nullptr) return;
  ASSERT_EQ(bc_tensor_dtype(want.result.get()), bc_tensor_dtype(got.result.get())) << what;
  ASSERT_EQ(ShapeOf(want.result.get()), ShapeOf(got.result.get())) << what;
  EXPECT_TRUE(RawBytes(want.result.get()) == RawBytes(got.result.get())) << what;
}

// The same chain on new inputs of the same dtypes and shapes: new values,
// contiguous or (`keep`) strided as c's were.
Case Refill(const Case& c, std::mt19937& rng, bool keep) {
  Case r;
  r.nodes = c.nodes;
  r.text = c.text;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const bc_tensor* t = c.inputs[i].get();
    Host h = RandomHost(bc_tensor_dtype(t), ShapeOf(t), rng);
    const bool strided = keep && c.strided[i];
    r.inputs.push_back(strided ? ToStridedTensor(h, rng, true, 2) : ToTensor(h));
    r.strided.push_back(strided);
  }
  return r;
}

void CheckCases(uint32_t seed, int count, bool large, bool warn = false) {
  bc_set_warning_handler(CatchWarning, nullptr);
  bc_set_broadcast_warning(warn);
  struct Restore {
    ~Restore() {
      bc_set_broadcast_warning(0);
      bc_set_warning_handler(nullptr, nullptr);
      g_warnings = nullptr;
    }
  } restore;
  const std::vector<OpRef> ops = AllOps();
  std::mt19937 rng(seed);
  int computed = 0;
  for (int i = 0; i < count; ++i) {
    Case c = RandomCase(rng, ops, large);
    const std::string what = "case " + std::to_string(i) + ": " + c.text;
    bc_expr* e = Build(c, ops);
    ASSERT_NE(e, nullptr);
    const Outcome want = RunEager(c, ops, nullptr);
    const Outcome got = RunFused(e, c, nullptr);
    ExpectSame(want, got, what);
    computed += want.st == BC_OK;
    // Evaluated again (the checks and, for the same strides, the tile plan
    // and bindings come from the expression's cache): new contiguous
    // inputs twice (the second reuses the first's plan with new data), then
    // strided ones as c's were.
    if (want.st == BC_OK) {
      const bool keep[] = {false, false, true};
      for (bool k : keep) {
        const Case again = Refill(c, rng, k);
        ExpectSame(RunEager(again, ops, nullptr), RunFused(e, again, nullptr),
                   what + (k ? " (again, strided)" : " (again)"));
      }
    }
    // out= into a tensor of the result's shape, of its dtype or another.
    if (want.st == BC_OK && std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
      const bc_dtype d = std::uniform_int_distribution<int>(0, 3)(rng) == 0
                             ? kDtypes[std::uniform_int_distribution<int>(0, 9)(rng)]
                             : bc_tensor_dtype(want.result.get());
      Host init = RandomHost(d, ShapeOf(want.result.get()), rng);
      Tensor o1 = ToTensor(init), o2 = ToTensor(init);
      const Outcome w = RunEager(c, ops, o1.get());
      const Outcome g = RunFused(e, c, o2.get());
      ASSERT_EQ(w.st, g.st) << what << " out=" << ShortName(d) << "\n eager: " << w.error << "\n fused: " << g.error;
      if (w.st != BC_OK) {
        EXPECT_EQ(w.error, g.error) << what;
      }
      EXPECT_EQ(w.warnings, g.warnings) << what;
      EXPECT_TRUE(RawBytes(o1.get()) == RawBytes(o2.get())) << what << " out=" << ShortName(d);
    }
    bc_expr_free(e);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(computed, count / 5);  // not only errors
  std::printf("%d of %d chains computed, the rest failed alike\n", computed, count);
}

TEST(ExprRandom, SmallShapes) { CheckCases(1, 3000, false); }

// Each SIMD target: the fused tiles and the eager ops split rows into
// vector bodies and tails differently, which must not change a bit.
class ExprTarget : public ::testing::TestWithParam<const char*> {
 protected:
  void TearDown() override { EXPECT_EQ(bc_set_simd_cap(nullptr), BC_OK); }
};
TEST_P(ExprTarget, RandomChainsMatchEager) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  CheckCases(5, 1500, false);
}
INSTANTIATE_TEST_SUITE_P(Targets, ExprTarget, ::testing::ValuesIn(kSimdTargets),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });
TEST(ExprRandom, SmallShapesSecondSeed) { CheckCases(2, 3000, false); }
TEST(ExprRandom, ManyTiles) { CheckCases(3, 150, true); }
// With the broadcast warning on: the same warnings, in the same order, and
// each op's once per evaluation (a second evaluation, cached, sends them again).
TEST(ExprRandom, BroadcastWarnings) { CheckCases(4, 1500, false, true); }

}  // namespace
}  // namespace bct

namespace bct {
namespace {

// Several host threads evaluate one expression at once, on shapes that
// alternate (the cached checks are replaced under them) and large enough
// for the evaluation's own threads; every result equals the chain's.
TEST(ExprThreads, OneExpressionFromManyThreads) {
  const char* names[] = {"x", "m", "s"};
  bc_expr* e = nullptr;
  bc_expr_new(3, &e);
  int32_t x, m, s, d, q;
  ASSERT_EQ(bc_expr_input(e, 0, &x), BC_OK);
  ASSERT_EQ(bc_expr_input(e, 1, &m), BC_OK);
  ASSERT_EQ(bc_expr_input(e, 2, &s), BC_OK);
  int32_t a1[2] = {x, m};
  ASSERT_EQ(bc_expr_call(e, "sub", a1, 2, &d), BC_OK);
  int32_t a2[2] = {d, s};
  ASSERT_EQ(bc_expr_call(e, "div", a2, 2, &q), BC_OK);
  (void)names;
  std::mt19937 rng(9);
  struct Shapes {
    Shape x, m, s;
  };
  const Shapes shapes[] = {{{300, 257}, {300, 1}, {257}}, {{7, 33}, {1, 33}, {7, 1}}, {{2, 40000}, {2, 1}, {}}};
  std::vector<std::vector<Tensor>> ins;
  std::vector<Tensor> want;
  for (const Shapes& sh : shapes) {
    std::vector<Tensor> t;
    t.push_back(ToTensor(RandomHost(BC_FLOAT32, sh.x, rng)));
    t.push_back(ToTensor(RandomHost(BC_FLOAT64, sh.m, rng)));
    t.push_back(ToTensor(RandomHost(BC_FLOAT32, sh.s, rng)));
    bc_tensor *t1 = nullptr, *t2 = nullptr;
    ASSERT_EQ(bc_binary(BC_SUB, t[0].get(), t[1].get(), &t1), BC_OK);
    ASSERT_EQ(bc_binary(BC_DIV, t1, t[2].get(), &t2), BC_OK);
    bc_tensor_free(t1);
    want.push_back(Tensor(t2));
    ins.push_back(std::move(t));
  }
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; ++th) {
    threads.emplace_back([&, th] {
      for (int i = 0; i < 30; ++i) {
        const size_t k = static_cast<size_t>(th + i) % 3;
        const bc_tensor* in[3] = {ins[k][0].get(), ins[k][1].get(), ins[k][2].get()};
        bc_tensor* r = nullptr;
        if (bc_expr_eval(e, in, 3, &r) != BC_OK) {
          ++bad;
          continue;
        }
        Tensor got(r);
        if (RawBytes(got.get()) != RawBytes(want[k].get())) ++bad;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  bc_expr_free(e);
}

}  // namespace
}  // namespace bct

namespace bct {
namespace {

// Inputs no node uses are not read (bc_expr_eval's contract): they may be
// NULL; a used one may not.
TEST(ExprInputs, UnusedInputMayBeNull) {
  bc_expr* e = nullptr;
  ASSERT_EQ(bc_expr_new(2, &e), BC_OK);
  int32_t x, n;
  ASSERT_EQ(bc_expr_input(e, 1, &x), BC_OK);
  int32_t args[1] = {x};
  ASSERT_EQ(bc_expr_call(e, "neg", args, 1, &n), BC_OK);
  Tensor t = ToTensor(MakeHost(BC_FLOAT32, {3}, {1, -2, 3}));
  const bc_tensor* in[2] = {nullptr, t.get()};
  bc_tensor* r = nullptr;
  ASSERT_EQ(bc_expr_eval(e, in, 2, &r), BC_OK) << bc_last_error();
  Tensor got(r);
  EXPECT_TRUE(SameHost(FromTensor(got.get()), MakeHost(BC_FLOAT32, {3}, {-1, 2, -3}), Cmp::kExact, 0));
  const bc_tensor* bad[2] = {t.get(), nullptr};
  EXPECT_EQ(bc_expr_eval(e, bad, 2, &r), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_last_error(), "input 1 is NULL");
  bc_expr_free(e);
}

// Evaluations large enough to stream their result (67 to 101 MB moved:
// past the streaming size of every machine so far at 1 and 2 threads):
// the root's kernel then writes with streaming stores, from its own row
// loop or through a tile. Each is compared bit for bit with the same chain
// run op by op through the eager API, on 1 and 2 threads. 1-D and 2-D tiles
// (a row broadcast, a column broadcast), float32 and bool results, and a
// ternary, a unary and a comparison as the root.
TEST(ExprStreamed, LargeChainsMatchEager) {
  const int64_t R = 8191, C = 1031;  // odd sizes: rows start unaligned
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  auto filled = [&](std::vector<int64_t> shape) {
    bc_tensor* t = nullptr;
    EXPECT_EQ(bc_tensor_empty(BC_FLOAT32, shape.data(), shape.size(), &t), BC_OK);
    float* p = static_cast<float*>(bc_tensor_data(t));
    for (int64_t i = 0; i < bc_tensor_numel(t); ++i) p[i] = u(rng);
    return Tensor(t);
  };
  Tensor a = filled({R, C}), b = filled({R, C}), row = filled({C}), col = filled({R, 1});
  auto num = [](double v) {
    bc_scalar s;
    s.kind = BC_SCALAR_FLOAT;
    s.v.f = v;
    return s;
  };
  auto bin = [](bc_op op, const bc_tensor* x, const bc_tensor* y) {
    bc_tensor* o = nullptr;
    EXPECT_EQ(bc_binary(op, x, y, &o), BC_OK) << bc_last_error();
    return Tensor(o);
  };
  auto bin_s = [&](bc_op op, const bc_tensor* x, double v) {
    bc_tensor* o = nullptr;
    EXPECT_EQ(bc_binary_scalar(op, x, num(v), &o), BC_OK) << bc_last_error();
    return Tensor(o);
  };
  struct Chain {
    const char* text;
    Tensor want;
  };
  std::vector<Chain> chains;
  {
    Tensor m = bin(BC_MUL, a.get(), b.get());
    chains.push_back({"a * b + c", bin(BC_ADD, m.get(), row.get())});
  }
  {
    Tensor gt = bin_s(BC_GT, a.get(), 0.0);
    bc_tensor* sc = nullptr;
    EXPECT_EQ(bc_binary_rscalar(BC_MUL, num(0.1), a.get(), &sc), BC_OK);
    Tensor scaled(sc);
    bc_tensor* w = nullptr;
    EXPECT_EQ(bc_where(gt.get(), a.get(), scaled.get(), &w), BC_OK) << bc_last_error();
    chains.push_back({"where(a > 0, a, 0.1 * a)", Tensor(w)});
  }
  {
    Tensor d = bin(BC_SUB, a.get(), col.get());
    chains.push_back({"a - d > b", bin(BC_GT, d.get(), b.get())});
  }
  {
    Tensor m = bin(BC_MUL, a.get(), row.get());
    bc_tensor* e = nullptr;
    EXPECT_EQ(bc_unary(BC_EXP, m.get(), &e), BC_OK) << bc_last_error();
    chains.push_back({"exp(a * c)", Tensor(e)});
  }
  const char* names[] = {"a", "b", "c", "d"};
  const bc_tensor* in[] = {a.get(), b.get(), row.get(), col.get()};
  const int saved = bc_get_num_threads();
  for (int threads : {1, 2}) {
    bc_set_num_threads(threads);
    for (const Chain& ch : chains) {
      bc_expr* e = nullptr;
      ASSERT_EQ(bc_expr_parse(ch.text, names, 4, &e), BC_OK) << bc_last_error();
      bc_tensor* got = nullptr;
      ASSERT_EQ(bc_expr_eval(e, in, 4, &got), BC_OK) << ch.text << ": " << bc_last_error();
      Tensor g(got);
      bc_expr_free(e);
      ASSERT_EQ(bc_tensor_dtype(got), bc_tensor_dtype(ch.want.get())) << ch.text;
      ASSERT_EQ(bc_tensor_numel(got), bc_tensor_numel(ch.want.get())) << ch.text;
      const size_t bytes = static_cast<size_t>(bc_tensor_numel(got)) * (bc_tensor_dtype(got) == BC_BOOL ? 1 : 4);
      EXPECT_EQ(std::memcmp(bc_tensor_data(got), bc_tensor_data(ch.want.get()), bytes), 0)
          << ch.text << " on " << threads << " thread(s)";
    }
  }
  bc_set_num_threads(saved);
}

}  // namespace
}  // namespace bct
