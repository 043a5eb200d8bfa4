// Reductions against a naive reference: every op and dtype over random dims
// of contiguous and strided (permuted, gapped) inputs, exact where the
// result is exact and within a stated bound of a long double sum elsewhere;
// the same bits for every thread count and SIMD target; PyTorch's texts.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace bct {
namespace {

const bc_dtype kDtypes[] = {BC_BOOL,    BC_UINT8,    BC_INT8,    BC_INT16,  BC_INT32,
                            BC_INT64,   BC_FLOAT16,  BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64};

// Random values of dtype d, with NaN, inf and signed zeros for floats when `specials`.
Host RandomHost(bc_dtype d, const Shape& s, std::mt19937& rng, bool specials) {
  std::vector<double> v;
  std::uniform_real_distribution<double> u(-4, 4);
  std::uniform_int_distribution<int> small(-3, 3), pick(0, 40);
  for (int64_t k = 0; k < NumelOf(s); ++k) {
    double x;
    if (d == BC_BOOL) x = small(rng) > 0;
    else if (d == BC_UINT8) x = small(rng) + 3;
    else if (!IsFloat(d)) x = small(rng);
    else x = u(rng);
    if (IsFloat(d) && specials) {
      const int p = pick(rng);
      if (p == 0) x = std::nan("");
      if (p == 1) x = -0.0;
      if (p == 2) x = 0.0;
    }
    v.push_back(x);
  }
  return MakeHost(d, s, v);
}

// The reduced positions of output `o` (row-major over kept dims) in the
// input's row-major order, in the reduced dims' row-major order.
std::vector<int64_t> Members(const Shape& s, uint64_t mask, int64_t o) {
  Shape kept_sizes;
  for (size_t d = 0; d < s.size(); ++d)
    if (!(mask >> d & 1)) kept_sizes.push_back(s[d]);
  Shape kidx(kept_sizes.size());
  for (size_t k = kept_sizes.size(); k-- > 0;) {
    kidx[k] = o % kept_sizes[k];
    o /= kept_sizes[k];
  }
  std::vector<int64_t> out;
  Shape idx(s.size());
  ForEachIndex(s, [&](int64_t flat, const Shape& i) {
    size_t kk = 0;
    for (size_t d = 0; d < s.size(); ++d) {
      if (!(mask >> d & 1) && i[d] != kidx[kk++]) return;
    }
    out.push_back(flat);
  });
  return out;
}

// The order of amax/amin: -0 below +0.
bool Below(double a, double b) {
  if (a == 0 && b == 0) return std::signbit(a) && !std::signbit(b);
  return a < b;
}

struct Expect {
  bool is_float = false;
  int64_t i = 0;
  long double f = 0;
  long double tol = 0;  // absolute
  bool nan = false;
  bool zero_sign = false, negative_zero = false;  // amax/amin of zeros: the sign too
};

double Eps(bc_dtype d) {
  switch (d) {
    case BC_FLOAT16: return std::ldexp(1.0, -11);
    case BC_BFLOAT16: return std::ldexp(1.0, -8);
    case BC_FLOAT32: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -53);
  }
}

Expect Reference(bc_reduce_op op, const Host& h, const std::vector<int64_t>& m, bc_dtype result) {
  Expect e;
  const bool fl = IsFloat(h.dtype);
  auto f = [&](int64_t k) { return h.v[static_cast<size_t>(k)].f; };
  auto iv = [&](int64_t k) { return h.v[static_cast<size_t>(k)].i; };
  const int64_t n = static_cast<int64_t>(m.size());
  long double s = 0, sa = 0;
  uint64_t is = 0, ip = 1;
  int64_t nz = 0, notnan = 0;
  bool any_nan = false;
  for (int64_t k : m) {
    if (fl) {
      const double x = f(k);
      any_nan |= std::isnan(x);
      if (op == BC_NANSUM || op == BC_NANMEAN) {
        if (!std::isnan(x)) s += x, sa += std::fabs(x), ++notnan;
      } else {
        s += x;
        sa += std::fabs(x);
      }
      nz += x != 0;
    } else {
      is += static_cast<uint64_t>(iv(k));
      ip *= static_cast<uint64_t>(iv(k));
      nz += iv(k) != 0;
    }
  }
  const long double u = Eps(result);
  switch (op) {
    case BC_SUM: case BC_NANSUM:
      if (!fl) return e.i = static_cast<int64_t>(is), e;
      e.is_float = true, e.f = s, e.tol = u * std::fabs(s) + 1e-12L * sa;
      e.nan = std::isnan(static_cast<double>(s));
      return e;
    case BC_MEAN: case BC_NANMEAN: {
      const long double c = op == BC_MEAN ? n : notnan;
      e.is_float = true, e.f = s / c, e.tol = u * std::fabs(s / c) + 1e-12L * sa / c;
      e.nan = std::isnan(static_cast<double>(e.f)) || c == 0;
      return e;
    }
    case BC_PROD: {
      if (!fl) return e.i = static_cast<int64_t>(ip), e;
      long double p = 1;
      for (int64_t k : m) p *= f(k);
      e.is_float = true, e.f = p, e.tol = (u + 1e-12L) * std::fabs(p), e.nan = std::isnan(static_cast<double>(p));
      return e;
    }
    case BC_AMAX: case BC_AMIN: {
      if (!fl) {
        int64_t b = iv(m[0]);
        for (int64_t k : m) b = op == BC_AMAX ? std::max(b, iv(k)) : std::min(b, iv(k));
        return e.i = b, e;
      }
      e.is_float = true;
      if (any_nan) return e.nan = true, e;
      double b = f(m[0]);
      for (int64_t k : m) b = (op == BC_AMAX ? Below(b, f(k)) : Below(f(k), b)) ? f(k) : b;
      e.f = b, e.zero_sign = b == 0, e.negative_zero = std::signbit(b);
      return e;
    }
    case BC_ARGMAX: case BC_ARGMIN: {
      int64_t best = 0;
      for (int64_t j = 1; j < n; ++j) {
        if (fl) {
          const double a = f(m[static_cast<size_t>(best)]), x = f(m[static_cast<size_t>(j)]);
          if (std::isnan(a)) break;
          if (std::isnan(x) || (op == BC_ARGMAX ? x > a : x < a)) best = j;
        } else {
          const int64_t a = iv(m[static_cast<size_t>(best)]), x = iv(m[static_cast<size_t>(j)]);
          if (op == BC_ARGMAX ? x > a : x < a) best = j;
        }
      }
      return e.i = best, e;
    }
    case BC_ANY: return e.i = nz > 0, e;
    case BC_ALL: return e.i = nz == n, e;
    case BC_COUNT_NONZERO: return e.i = nz, e;
    case BC_VAR: case BC_STD: {
      const long double mean = s / n;
      long double dev = 0;
      for (int64_t k : m) dev += (f(k) - mean) * (f(k) - mean);
      long double v = dev / std::max<long double>(0, n - 1);
      if (op == BC_STD) v = std::sqrt(v);
      e.is_float = true, e.f = v, e.tol = 4 * u * std::fabs(v) + 1e-12L, e.nan = std::isnan(static_cast<double>(v));
      return e;
    }
    case BC_LOGSUMEXP: {
      long double mx = -INFINITY;
      for (int64_t k : m) mx = std::max<long double>(mx, fl ? f(k) : static_cast<long double>(iv(k)));
      long double se = 0;
      for (int64_t k : m) se += std::exp((fl ? f(k) : static_cast<long double>(iv(k))) - mx);
      const long double r = n == 0 ? -INFINITY : mx + std::log(se);
      // float32 and the halves take their exponentials in float32 (1 ulp
      // each): log(sum) is then within about 2 ulp of 1, absolutely.
      const long double lu = result == BC_FLOAT64 ? u : std::ldexp(1.0L, -24);
      e.is_float = true, e.f = r, e.tol = 2 * u * std::fabs(r) + 2 * lu * (1 + std::fabs(mx)) + 1e-12L;
      e.nan = any_nan;
      return e;
    }
  }
  return e;
}

bool TakesDtype(bc_reduce_op op, bc_dtype d) {
  if (op == BC_MEAN || op == BC_NANMEAN || op == BC_VAR || op == BC_STD) return IsFloat(d);
  if (op == BC_ARGMAX || op == BC_ARGMIN) return d != BC_BOOL;
  return true;
}

// Every op, dtype and layout over every subset of dims of a few shapes.
TEST(Reduce, MatchesNaiveReference) {
  std::mt19937 rng(7);
  // {300, 40} over dim 0: more rows than one kernel call takes (32, or 128 for
  // 1- and 2-byte elements), so that calls, and ties across them, meet.
  const Shape shapes[] = {{3, 4, 5}, {2, 1, 70}, {4100}, {}, {3, 0, 2}, {33, 65}, {300, 40}};
  int checked = 0;
  for (int op = 0; op < BC_REDUCE_OP_COUNT; ++op) {
    const auto rop = static_cast<bc_reduce_op>(op);
    for (bc_dtype d : kDtypes) {
      if (!TakesDtype(rop, d)) continue;
      for (const Shape& s : shapes) {
        const int nd = static_cast<int>(s.size());
        for (uint64_t mask = 0; mask < (uint64_t{1} << nd) || (nd == 0 && mask == 0); ++mask) {
          const bool arg = rop == BC_ARGMAX || rop == BC_ARGMIN;
          if (mask == 0 && nd > 0) continue;  // no dims is every dim (below)
          if (arg && __builtin_popcountll(mask) > 1 && mask != (uint64_t{1} << nd) - 1) continue;
          std::vector<int64_t> dims;
          for (int k = 0; k < nd; ++k)
            if (mask >> k & 1) dims.push_back(k - (k % 2 ? nd : 0));  // some negative
          const bool all = mask == (uint64_t{1} << nd) - 1 && (arg || mask % 3 == 0);
          bool empty_red = false;
          for (int k = 0; k < nd; ++k) empty_red |= (mask >> k & 1) && s[static_cast<size_t>(k)] == 0;
          if (nd > 0 && NumelOf(s) == 0 && (arg || rop == BC_AMAX || rop == BC_AMIN) && (empty_red || all)) continue;
          for (int layout = 0; layout < 2; ++layout) {
            for (int keep = 0; keep < 2; ++keep) {
              const Host h = RandomHost(d, s, rng, layout == 1);
              Tensor x = layout ? ToStridedTensor(h, rng) : ToTensor(h);
              bc_tensor* out = nullptr;
              const bc_status st = all ? bc_reduce(rop, x.get(), nullptr, 0, keep, &out)
                                       : bc_reduce(rop, x.get(), dims.data(), dims.size(), keep, &out);
              ASSERT_EQ(st, BC_OK) << bc_reduce_op_name(rop) << " " << ShapeStr(s) << " " << bc_last_error();
              Tensor r(out);
              const Host got = FromTensor(r.get());
              Shape want_shape;
              const uint64_t m = all ? (nd ? (uint64_t{1} << nd) - 1 : 0) : mask;
              for (int k = 0; k < nd; ++k) {
                if (!(m >> k & 1)) want_shape.push_back(s[static_cast<size_t>(k)]);
                else if (keep) want_shape.push_back(1);
              }
              ASSERT_EQ(got.shape, want_shape) << bc_reduce_op_name(rop);
              const bc_dtype rd = got.dtype;
              for (int64_t o = 0; o < NumelOf(want_shape); ++o) {
                const std::vector<int64_t> members = Members(s, m, o);
                const Expect e = Reference(rop, h, members, rd);
                const Val v = got.v[static_cast<size_t>(o)];
                const std::string where = std::string(bc_reduce_op_name(rop)) + " dtype " + std::to_string(d) +
                                          " shape " + ShapeStr(s) + " mask " + std::to_string(m) + " out " +
                                          std::to_string(o);
                if (!e.is_float) {
                  EXPECT_EQ(v.i, e.i) << where;
                } else if (e.nan) {
                  EXPECT_TRUE(std::isnan(v.f)) << where << " got " << v.f;
                } else if (std::isinf(RoundTo(rd, static_cast<double>(e.f)))) {  // overflows the dtype
                  EXPECT_EQ(v.f, RoundTo(rd, static_cast<double>(e.f))) << where;
                } else {
                  EXPECT_LE(std::fabs(static_cast<long double>(v.f) - e.f), e.tol) << where << " got " << v.f
                                                                                    << " want " << static_cast<double>(e.f);
                  if (e.zero_sign) {
                    EXPECT_EQ(std::signbit(v.f), e.negative_zero) << where;
                  }
                }
                ++checked;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

// The bits of floating results do not depend on the thread count or the
// SIMD target.
TEST(Reduce, SameBitsForEveryThreadCountAndTarget) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  struct Case {
    Shape shape;
    std::vector<int64_t> dims;
  };
  const Case cases[] = {{{1 << 20}, {}}, {{64, 70000}, {1}}, {{70000, 20}, {0}}, {{300, 40, 33}, {0, 2}}};
  const bc_reduce_op ops[] = {BC_SUM, BC_MEAN, BC_VAR, BC_LOGSUMEXP, BC_PROD, BC_NANSUM};
  const char* const targets[] = {"EMU128", "SSE4", "AVX2", "AVX3"};
  for (bc_dtype d : {BC_FLOAT32, BC_FLOAT64, BC_BFLOAT16, BC_FLOAT16}) {
    for (const Case& c : cases) {
      std::vector<double> v(static_cast<size_t>(NumelOf(c.shape)));
      for (double& x : v) x = u(rng) * (std::fabs(x) < 1 ? 1 : 1);
      for (size_t k = 0; k < v.size(); k += 97) v[k] *= 1e6;  // cancellation
      Tensor x = ToTensor(MakeHost(d, c.shape, v));
      for (bc_reduce_op op : ops) {
        if (op == BC_PROD) continue;  // a million factors overflow; the reference test has products
        std::vector<unsigned char> first;
        for (int threads : {1, 2, 3, 8}) {
          for (const char* target : targets) {
            if (bc_set_simd_cap(target) != BC_OK) continue;
            bc_ctx* ctx = nullptr;
            ASSERT_EQ(bc_ctx_create(&ctx), BC_OK);
            ASSERT_EQ(bc_ctx_set_option(ctx, BC_OPT_NUM_THREADS, threads), BC_OK);
            bc_tensor* out = nullptr;
            ASSERT_EQ(bc_ctx_reduce(ctx, op, x.get(), c.dims.data(), c.dims.size(), 0, &out), BC_OK)
                << bc_ctx_last_error(ctx);
            Tensor r(out);
            bc_ctx_free(ctx);
            const std::vector<unsigned char> bytes = RawBytes(r.get());
            if (first.empty()) first = bytes;
            EXPECT_EQ(bytes, first) << bc_reduce_op_name(op) << " " << ShapeStr(c.shape) << " threads " << threads
                                    << " target " << target;
          }
        }
        ASSERT_EQ(bc_set_simd_cap(nullptr), BC_OK);
      }
    }
  }
}

// A float32 sum of 1e8 copies of 0.1 is the correctly rounded 1e7 (PyTorch's
// float32 cascade is not), and sums that cancel keep their small part.
TEST(Reduce, AccurateOnAdversarialSums) {
  {
    const int64_t n = 100000000 / 16;  // 1e8 elements through a stride-0 view
    std::vector<float> one = {0.1f};
    const int64_t shape[] = {16, n};
    const int64_t strides[] = {0, 0};
    bc_tensor* x = nullptr;
    ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, strides, 2, one.data(), 4, nullptr, nullptr, &x), BC_OK);
    Tensor xt(x);
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_reduce(BC_SUM, x, nullptr, 0, 0, &out), BC_OK) << bc_last_error();
    Tensor r(out);
    const float want = static_cast<float>(static_cast<long double>(0.1f) * 100000000.0L);
    EXPECT_EQ(FromTensor(r.get()).v[0].f, want);
  }
  {
    // Blocks of 2048 that cancel: the compensated sum between blocks keeps
    // the small middle block (a plain float64 sum gives 0).
    std::vector<double> v(2048, 1e16);
    v.insert(v.end(), 2048, 1.0);
    v.insert(v.end(), 2048, -1e16);
    Tensor x = ToTensor(MakeHost(BC_FLOAT64, {static_cast<int64_t>(v.size())}, v));
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_reduce(BC_SUM, x.get(), nullptr, 0, 0, &out), BC_OK);
    Tensor r(out);
    EXPECT_EQ(FromTensor(r.get()).v[0].f, 2048.0);
  }
}

std::string Error(bc_status st) { return st == BC_OK ? "ok" : bc_last_error(); }

TEST(Reduce, PyTorchTexts) {
  Tensor i32 = ToTensor(Iota(BC_INT32, {2, 3}));
  Tensor b = ToTensor(Iota(BC_BOOL, {2, 3}));
  Tensor f = ToTensor(Iota(BC_FLOAT32, {2, 3}));
  Tensor e = ToTensor(Iota(BC_FLOAT32, {0, 3}));
  bc_tensor* out = nullptr;
  int64_t d2 = 2, d00[] = {0, -2}, d0 = 0;
  EXPECT_EQ(Error(bc_reduce(BC_SUM, i32.get(), &d2, 1, 0, &out)),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  EXPECT_EQ(Error(bc_reduce(BC_SUM, i32.get(), d00, 2, 0, &out)), "dim 0 appears multiple times in the list of dims");
  EXPECT_EQ(Error(bc_reduce(BC_MEAN, i32.get(), nullptr, 0, 0, &out)),
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            "Got: Int");
  EXPECT_EQ(Error(bc_reduce(BC_VAR, b.get(), nullptr, 0, 0, &out)),
            "std and var only support floating point and complex dtypes");
  EXPECT_EQ(Error(bc_reduce(BC_ARGMAX, b.get(), nullptr, 0, 0, &out)), "argmax(): does not support bool input");
  EXPECT_EQ(Error(bc_reduce(BC_AMAX, e.get(), &d0, 1, 0, &out)),
            "amax(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_EQ(Error(bc_reduce(BC_AMIN, e.get(), nullptr, 0, 0, &out)),
            "amin(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument.");
  bc_tensor *v = nullptr, *ix = nullptr;
  EXPECT_EQ(Error(bc_max_dim(e.get(), 0, 0, &v, &ix)), "max(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_EQ(v, nullptr);
  // out= dtype rules.
  Tensor o_i32 = ToTensor(Iota(BC_INT32, {3}));
  Tensor o_i64 = ToTensor(Iota(BC_INT64, {3}));
  const std::vector<unsigned char> before = RawBytes(o_i32.get());
  EXPECT_EQ(Error(bc_reduce_out(BC_AMAX, i32.get(), &d0, 1, 0, o_i64.get())),
            "Expected the dtype for input and out to match, but got Int for input's dtype and Long for out's dtype.");
  EXPECT_EQ(Error(bc_reduce_out(BC_ARGMAX, f.get(), &d0, 1, 0, o_i32.get())),
            "Expected out tensor to have dtype long int, but got int instead");
  EXPECT_EQ(Error(bc_reduce_out(BC_ANY, f.get(), &d0, 1, 0, o_i32.get())),
            "any only supports bool tensor for result, got: Int");
  EXPECT_EQ(Error(bc_reduce_out(BC_MEAN, f.get(), &d0, 1, 0, o_i64.get())),
            "result type Float can't be cast to the desired output type Long");
  bc_reduce_params p = {};
  p.dtype = BC_FLOAT32;
  p.given = BC_REDUCE_DTYPE;
  EXPECT_EQ(Error(bc_reduce_ex_out(BC_SUM, i32.get(), &d0, 1, 0, &p, o_i64.get())),
            "Expected out tensor to have dtype float, but got long int instead");
  Tensor wrong = ToTensor(Iota(BC_INT64, {2}));
  bc_status st = bc_reduce_out(BC_SUM, i32.get(), &d0, 1, 0, wrong.get());
  EXPECT_EQ(st, BC_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(Error(st), "output with shape [2] doesn't match the broadcast shape [3]");
  EXPECT_EQ(RawBytes(o_i32.get()), before);
  // sum's out= picks the dtype it computes in; dtype= converts first.
  ASSERT_EQ(bc_reduce_out(BC_SUM, i32.get(), &d0, 1, 0, o_i64.get()), BC_OK);
  EXPECT_EQ(FromTensor(o_i64.get()).v[2].i, 2 + 5);
  // var's degrees of freedom warning, raised as an error.
  bc_ctx* ctx = nullptr;
  ASSERT_EQ(bc_ctx_create(&ctx), BC_OK);
  ASSERT_EQ(bc_ctx_set_option(ctx, BC_OPT_WARNINGS_AS_ERRORS, 1), BC_OK);
  p.given = BC_REDUCE_CORRECTION;
  p.correction = 2;
  EXPECT_EQ(bc_ctx_reduce_ex(ctx, BC_VAR, f.get(), &d0, 1, 0, &p, &out), BC_ERR_POLICY);
  EXPECT_EQ(std::string(bc_ctx_last_error(ctx)),
            "var(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
            "(input numel divided by output numel).");
  bc_ctx_free(ctx);
}

TEST(Reduce, MaxDimGivesValuesAndFirstIndices) {
  const Host h = MakeHost(BC_FLOAT32, {2, 4}, {1, 3, 3, -1, 2, std::nan(""), 5, std::nan("")});
  std::mt19937 rng(3);
  Tensor x = ToStridedTensor(h, rng);
  bc_tensor *v = nullptr, *ix = nullptr;
  ASSERT_EQ(bc_max_dim(x.get(), -1, 1, &v, &ix), BC_OK) << bc_last_error();
  Tensor vt(v), it(ix);
  EXPECT_EQ(ShapeOf(v), (Shape{2, 1}));
  const Host hv = FromTensor(v), hi = FromTensor(ix);
  EXPECT_EQ(hv.v[0].f, 3);
  EXPECT_EQ(hi.v[0].i, 1);
  EXPECT_TRUE(std::isnan(hv.v[1].f));
  EXPECT_EQ(hi.v[1].i, 1);
  ASSERT_EQ(bc_min_dim(x.get(), 0, 0, &v, &ix), BC_OK);
  Tensor vt2(v), it2(ix);
  const Host hv2 = FromTensor(v), hi2 = FromTensor(ix);
  EXPECT_EQ(hv2.v[0].f, 1);
  EXPECT_EQ(hi2.v[0].i, 0);
  EXPECT_TRUE(std::isnan(hv2.v[1].f));
  EXPECT_EQ(hi2.v[1].i, 1);
  EXPECT_EQ(hv2.v[2].f, 3);
  EXPECT_EQ(hi2.v[2].i, 0);
  EXPECT_TRUE(std::isnan(hv2.v[3].f));
  EXPECT_EQ(hi2.v[3].i, 1);
}

}  // namespace
}  // namespace bct
