// bc_result_type and bc_can_cast against PyTorch's answers in
// tests/data/result_types.txt (written by tests/gen_result_types.py from
// torch.result_type, PyTorch's N-ary promotion and torch.can_cast): every
// ordered pair and every triple (in every order) of the 23 operand kinds,
// every dtype pair; then the ops' own result dtype, and refused input.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "test_util.h"

namespace {

using bct::Tensor;

const char* const kNames[] = {"bool",    "uint8",    "int8",    "int16",  "int32",
                              "int64",   "float16",  "bfloat16", "float32", "float64"};

bc_dtype DtypeNamed(const std::string& n) {
  for (int i = 0; i < 10; ++i)
    if (n == kNames[i]) return static_cast<bc_dtype>(i);
  ADD_FAILURE() << "unknown dtype " << n;
  return BC_FLOAT32;
}

struct Row {
  std::vector<std::string> operands;
  std::string expected;
};

struct Table {
  std::vector<Row> rt;
  std::vector<Row> cc;  // operands {from, to}, expected "0"/"1"
};

const Table& LoadTable() {
  static const Table table = [] {
    Table t;
    std::ifstream in(BCAST_RESULT_TYPES_TABLE);
    EXPECT_TRUE(in.good()) << "cannot read " << BCAST_RESULT_TYPES_TABLE;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream is(line);
      std::string kind, tok;
      is >> kind;
      Row r;
      while (is >> tok) r.operands.push_back(tok);
      r.expected = r.operands.back();
      r.operands.pop_back();
      (kind == "rt" ? t.rt : t.cc).push_back(r);
    }
    return t;
  }();
  return table;
}

// Operands of one row, as tensors (in row order) and scalars.
struct Operands {
  std::vector<Tensor> owned;
  std::vector<const bc_tensor*> tensors;
  std::vector<bc_scalar> scalars;
};

Operands Make(const std::vector<std::string>& ops) {
  Operands o;
  for (const std::string& op : ops) {
    const std::string what = op.substr(2);
    if (op[0] == 'S') {
      o.scalars.push_back(what == "bool"  ? bc_scalar_bool(1)
                          : what == "int" ? bc_scalar_int(3)
                                          : bc_scalar_float(2.5));
      continue;
    }
    const int64_t shape[1] = {2};
    bc_tensor* t = nullptr;
    EXPECT_EQ(bc_tensor_zeros(DtypeNamed(what), shape, op[0] == 'T' ? 1 : 0, &t), BC_OK);
    o.owned.emplace_back(t);
    o.tensors.push_back(t);
  }
  return o;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

TEST(ResultType, TableIsComplete) {
  const Table& t = LoadTable();
  EXPECT_EQ(t.rt.size(), 23u * 23u + 2300u);  // ordered pairs, unordered triples
  EXPECT_EQ(t.cc.size(), 100u);
}

TEST(ResultType, MatchesPyTorchOnEveryPairAndTripleInEveryOrder) {
  int checked = 0;
  for (const Row& row : LoadTable().rt) {
    std::vector<std::string> ops = row.operands;
    std::sort(ops.begin(), ops.end());
    do {
      Operands o = Make(ops);
      bc_dtype got = static_cast<bc_dtype>(-1);
      ASSERT_EQ(bc_result_type(o.tensors.data(), o.tensors.size(), o.scalars.data(),
                               o.scalars.size(), &got),
                BC_OK)
          << Join(ops) << ": " << bc_last_error();
      EXPECT_EQ(std::string(bc_dtype_name(got)), bc_dtype_name(DtypeNamed(row.expected)))
          << Join(ops) << " (PyTorch: " << row.expected << ")";
      ++checked;
    } while (std::next_permutation(ops.begin(), ops.end()));
  }
  EXPECT_GT(checked, 10000);
}

TEST(CanCast, MatchesPyTorchOnEveryPair) {
  for (const Row& row : LoadTable().cc) {
    const bc_dtype from = DtypeNamed(row.operands[0]), to = DtypeNamed(row.operands[1]);
    EXPECT_EQ(bc_can_cast(from, to), row.expected == "1")
        << row.operands[0] << " -> " << row.operands[1];
  }
  EXPECT_EQ(bc_can_cast(static_cast<bc_dtype>(10), BC_FLOAT32), 0);
  EXPECT_EQ(bc_can_cast(BC_FLOAT32, static_cast<bc_dtype>(-1)), 0);
}

// The ops resolve their dtype through the same rules: every tensor pair's
// BC_ADD result (and BC_MUL for bool, which add also takes) is the table's.
TEST(ResultType, AgreesWithTheDtypeOfAddOverTensorPairs) {
  for (const Row& row : LoadTable().rt) {
    if (row.operands.size() != 2 || row.operands[0][0] == 'S' || row.operands[1][0] == 'S')
      continue;
    Operands o = Make(row.operands);
    bc_tensor* r = nullptr;
    ASSERT_EQ(bc_binary(BC_ADD, o.tensors[0], o.tensors[1], &r), BC_OK) << bc_last_error();
    Tensor hold(r);
    EXPECT_EQ(bc_tensor_dtype(r), DtypeNamed(row.expected)) << Join(row.operands);
  }
}

TEST(Scalar, ConstructorsSetKindAndValue) {
  bc_scalar b = bc_scalar_bool(7), i = bc_scalar_int(-(int64_t{1} << 62)),
            f = bc_scalar_float(0.25);
  EXPECT_EQ(b.kind, BC_SCALAR_BOOL);
  EXPECT_EQ(b.v.b, 1);
  EXPECT_EQ(bc_scalar_bool(0).v.b, 0);
  EXPECT_EQ(i.kind, BC_SCALAR_INT);
  EXPECT_EQ(i.v.i, -(int64_t{1} << 62));
  EXPECT_EQ(f.kind, BC_SCALAR_FLOAT);
  EXPECT_EQ(f.v.f, 0.25);
}

TEST(ResultType, RefusesBadInputAndLeavesOutAlone) {
  const int64_t shape[1] = {2};
  bc_tensor* raw = nullptr;
  ASSERT_EQ(bc_tensor_zeros(BC_INT32, shape, 1, &raw), BC_OK);
  Tensor t(raw);
  const bc_tensor* ts[2] = {raw, nullptr};
  bc_scalar s[1] = {bc_scalar_float(1)};
  auto refused = [](bc_status st, const char* text) {
    return st == BC_ERR_INVALID_ARGUMENT && std::string(bc_last_error()).find(text) != std::string::npos;
  };
  bc_dtype out = BC_UINT8;
  EXPECT_TRUE(refused(bc_result_type(ts, 1, s, 1, nullptr), "out is NULL"));
  EXPECT_TRUE(refused(bc_result_type(ts, 0, s, 0, &out), "at least one"));
  EXPECT_TRUE(refused(bc_result_type(nullptr, 1, s, 1, &out), "tensors is NULL"));
  EXPECT_TRUE(refused(bc_result_type(ts, 1, nullptr, 1, &out), "scalars is NULL"));
  EXPECT_TRUE(refused(bc_result_type(ts, 2, s, 1, &out), "tensors[1] is NULL"));
  bc_scalar bad = bc_scalar_int(1);
  const int three = 3;
  std::memcpy(&bad.kind, &three, sizeof three);
  EXPECT_TRUE(refused(bc_result_type(ts, 1, &bad, 1, &out), "unknown kind 3"));
  EXPECT_EQ(out, BC_UINT8);
  ASSERT_EQ(bc_result_type(ts, 1, s, 1, &out), BC_OK);
  EXPECT_EQ(out, BC_FLOAT32);
  ASSERT_EQ(bc_result_type(nullptr, 0, s, 1, &out), BC_OK);  // a lone float: the default dtype
  EXPECT_EQ(out, BC_FLOAT32);
}

}  // namespace
