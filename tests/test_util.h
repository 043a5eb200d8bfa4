// Shared helpers for the bcast tests: owning handles, host tensors and their
// round trip through the library, naive broadcasting by index arithmetic,
// random values and result comparison. The references themselves live in
// reference.h; nothing here calls into bcast except to create tensors and
// read them back, so a test comparing with these helpers can fail when the
// library is wrong.
#ifndef BCAST_TESTS_TEST_UTIL_H_
#define BCAST_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "reference.h"

namespace bct {

// Every x86-64 SIMD target name Highway may compile, worst first; a test runs
// those that bc_set_simd_cap accepts on this CPU and build. SCALAR (Highway
// 1.0) or EMU128/SSE2 (later) is the baseline that CPUs without SSE4 run;
// the library does not compile SSSE3 (CMakeLists.txt).
inline const char* const kSimdTargets[] = {"SCALAR", "EMU128",  "SSE2",      "SSE4",     "AVX2",
                                           "AVX3",   "AVX3_DL", "AVX3_ZEN4", "AVX3_SPR"};

// ---------------------------------------------------------------------------
// Handles and shapes

struct TensorFree {
  void operator()(bc_tensor* t) const { bc_tensor_free(t); }
};
using Tensor = std::unique_ptr<bc_tensor, TensorFree>;
using Shape = std::vector<int64_t>;

inline int64_t NumelOf(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

inline std::string ShapeStr(const Shape& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

inline Shape ShapeOf(const bc_tensor* t) {
  const int64_t* p = bc_tensor_shape(t);
  return Shape(p, p + bc_tensor_ndim(t));
}

inline Shape StridesOf(const bc_tensor* t) {
  const int64_t* p = bc_tensor_strides(t);
  return Shape(p, p + bc_tensor_ndim(t));
}

// Broadcast shape computed by hand (NumPy rules), or false if impossible.
inline bool RefBroadcast(const Shape& a, const Shape& b, Shape* out) {
  size_t n = std::max(a.size(), b.size());
  Shape r(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    r[i] = x == 1 ? y : x;
  }
  *out = r;
  return true;
}

// ---------------------------------------------------------------------------
// Host tensors: a dtype, a shape and row-major logical values.

struct Host {
  bc_dtype dtype = BC_FLOAT32;
  Shape shape;
  std::vector<Val> v;
};

inline std::vector<unsigned char> Encode(const Host& h) {
  std::vector<unsigned char> bytes(h.v.size() * ElemSize(h.dtype) + 1);
  for (size_t k = 0; k < h.v.size(); ++k) StoreVal(h.dtype, h.v[k], &bytes[k * ElemSize(h.dtype)]);
  return bytes;
}

inline Tensor ToTensor(const Host& h) {
  bc_tensor* t = nullptr;
  std::vector<unsigned char> bytes = Encode(h);
  bc_status st = bc_tensor_from_data(h.dtype, h.shape.data(), h.shape.size(), bytes.data(), &t);
  EXPECT_EQ(st, BC_OK) << bc_last_error();
  return Tensor(t);
}

// Reads any view back (through bc_tensor_copy_to) as a Host.
inline Host FromTensor(const bc_tensor* t) {
  Host h;
  h.dtype = bc_tensor_dtype(t);
  h.shape = ShapeOf(t);
  int64_t n = bc_tensor_numel(t);
  std::vector<unsigned char> bytes(static_cast<size_t>(n) * ElemSize(h.dtype) + 1);
  bc_status st = bc_tensor_copy_to(t, bytes.data(), bytes.size());
  EXPECT_EQ(st, BC_OK) << bc_last_error();
  h.v.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) h.v[k] = LoadVal(h.dtype, &bytes[k * ElemSize(h.dtype)]);
  return h;
}

// Raw bytes of a tensor's logical contents, for "nothing changed" checks.
inline std::vector<unsigned char> RawBytes(const bc_tensor* t) {
  size_t n = static_cast<size_t>(bc_tensor_numel(t)) * ElemSize(bc_tensor_dtype(t));
  std::vector<unsigned char> bytes(n + 1);
  EXPECT_EQ(bc_tensor_copy_to(t, bytes.data(), bytes.size()), BC_OK);
  bytes.resize(n);
  return bytes;
}

inline Host MakeHost(bc_dtype d, const Shape& s, const std::vector<double>& vals) {
  Host h;
  h.dtype = d;
  h.shape = s;
  for (double x : vals) h.v.push_back(IsFloat(d) ? FVal(RoundTo(d, x)) : IVal(static_cast<int64_t>(x)));
  EXPECT_EQ(static_cast<int64_t>(h.v.size()), NumelOf(s));
  return h;
}

inline Host Iota(bc_dtype d, const Shape& s, double start = 0, double step = 1) {
  std::vector<double> vals;
  for (int64_t k = 0; k < NumelOf(s); ++k) vals.push_back(start + step * static_cast<double>(k));
  return MakeHost(d, s, vals);
}

// ---------------------------------------------------------------------------
// Wrapped, strided copies of host tensors (the library reads them in place).

// Lays `h` out in a fresh malloc'ed buffer with permuted dimension order and
// gaps between elements, wraps it, and lets the library free it.
inline Tensor ToStridedTensor(const Host& h, std::mt19937& rng, bool permute = true, int max_gap = 3) {
  size_t nd = h.shape.size();
  std::vector<size_t> order(nd);
  for (size_t i = 0; i < nd; ++i) order[i] = i;
  if (permute) std::shuffle(order.begin(), order.end(), rng);
  // order[0] is the outermost dimension in memory.
  Shape strides(nd, 0);
  int64_t span = 1;
  std::uniform_int_distribution<int> gap(1, max_gap);
  for (size_t k = nd; k-- > 0;) {
    size_t d = order[k];
    int64_t g = gap(rng);
    strides[d] = span * g;
    span = strides[d] * std::max<int64_t>(h.shape[d], 1);
  }
  size_t es = ElemSize(h.dtype);
  size_t nbytes = static_cast<size_t>(span) * es + es;
  unsigned char* buf = static_cast<unsigned char*>(std::malloc(nbytes));
  std::memset(buf, 0xA5, nbytes);  // junk in the gaps
  Shape idx(nd, 0);
  for (size_t k = 0; k < h.v.size(); ++k) {
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += idx[d] * strides[d];
    StoreVal(h.dtype, h.v[k], buf + off * es);
    for (size_t d = nd; d-- > 0;) {
      if (++idx[d] < h.shape[d]) break;
      idx[d] = 0;
    }
  }
  bc_tensor* t = nullptr;
  bc_status st = bc_tensor_wrap(h.dtype, h.shape.data(), strides.data(), nd, buf, nbytes,
                                [](void* data, void*) { std::free(data); }, nullptr, &t);
  EXPECT_EQ(st, BC_OK) << bc_last_error();
  if (st != BC_OK) std::free(buf);
  return Tensor(t);
}

// ---------------------------------------------------------------------------
// Broadcast iteration by naive index arithmetic.

// Row-major index into a tensor of shape `in` for the multi-index `idx` of a
// result of shape `out` (right-aligned, size-1 dims pinned to 0).
inline int64_t SourceIndex(const Shape& in, const Shape& out, const Shape& idx) {
  int64_t off = 0;
  size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    int64_t i = in[d] == 1 ? 0 : idx[lead + d];
    off = off * in[d] + i;
  }
  return off;
}

template <typename Fn>
void ForEachIndex(const Shape& shape, Fn fn) {
  int64_t n = NumelOf(shape);
  Shape idx(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    fn(k, idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

// Reference op(a, b) with broadcasting and promotion; `*zero_div` reports an
// integer division by zero. The result is computed in `ct` and has dtype `rt`.
inline Host RefBinaryAs(bc_op op, const Host& a, const Host& b, bc_dtype ct, bc_dtype rt,
                        double alpha = 1.0, bool* zero_div = nullptr) {
  Host r;
  bool zd = false;
  EXPECT_TRUE(RefBroadcast(a.shape, b.shape, &r.shape));
  r.dtype = rt;
  r.v.resize(static_cast<size_t>(NumelOf(r.shape)));
  // PyTorch's half mul/div/trunc/floor division by a one-element second
  // operand: that operand's own value in float32, the op in float32.
  const bool half_scalar = (ct == BC_FLOAT16 || ct == BC_BFLOAT16) && NumelOf(b.shape) == 1 &&
                           (op == BC_MUL || op == BC_DIV || op == BC_DIV_TRUNC || op == BC_DIV_FLOOR);
  ForEachIndex(r.shape, [&](int64_t k, const Shape& idx) {
    Val x = ConvertVal(a.v[SourceIndex(a.shape, r.shape, idx)], a.dtype, ct);
    Val y = ConvertVal(b.v[SourceIndex(b.shape, r.shape, idx)], b.dtype, half_scalar ? BC_FLOAT32 : ct);
    Val z = ScalarOp(op, ct, x, y, alpha, &zd, !half_scalar);
    bc_dtype produced = (IsComparison(op) || IsLogical(op)) ? BC_BOOL : ct;
    r.v[k] = ConvertVal(z, produced, rt);
  });
  if (zero_div) *zero_div = zd;
  return r;
}

inline Host RefBinary(bc_op op, const Host& a, const Host& b, double alpha = 1.0,
                      bool* zero_div = nullptr) {
  bc_dtype common = ResultType({{a.dtype, a.shape.empty()}, {b.dtype, b.shape.empty()}});
  return RefBinaryAs(op, a, b, ComputeDtype(op, common), ResultDtype(op, common), alpha, zero_div);
}

// ---------------------------------------------------------------------------
// Random values

inline Val RandomVal(bc_dtype d, std::mt19937& rng, bool specials = true) {
  std::uniform_int_distribution<int> pct(0, 99);
  if (d == BC_BOOL) return IVal(pct(rng) < 50);
  if (IsFloat(d)) {
    if (specials && pct(rng) < 12) {
      static const double kSpecial[] = {
          std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity(), 0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0,
          1e-30, -1e30, 65504.0, 6e-8};
      std::uniform_int_distribution<size_t> pick(0, sizeof(kSpecial) / sizeof(kSpecial[0]) - 1);
      return FVal(RoundTo(d, kSpecial[pick(rng)]));
    }
    int k = pct(rng);
    double x;
    if (k < 30) {
      x = std::uniform_int_distribution<int>(-12, 12)(rng);  // small integers: exact cases
    } else {
      std::uniform_real_distribution<double> mant(0.5, 1.0);
      int e = std::uniform_int_distribution<int>(-8, 9)(rng);
      x = std::ldexp(mant(rng), e) * (pct(rng) < 50 ? -1 : 1);
    }
    return FVal(RoundTo(d, x));
  }
  int64_t lo = IntMin(d), hi = IntMax(d);
  int k = pct(rng);
  if (specials && k < 15) {
    const int64_t edge[] = {lo, hi, 0, 1, lo + 1, hi - 1, IsSigned(d) ? -1 : 2};
    return IVal(edge[std::uniform_int_distribution<int>(0, 6)(rng)]);
  }
  if (k < 55) {
    return IVal(std::uniform_int_distribution<int64_t>(std::max<int64_t>(lo, -20), std::min<int64_t>(hi, 20))(rng));
  }
  return IVal(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
}

inline Host RandomHost(bc_dtype d, const Shape& s, std::mt19937& rng, bool specials = true) {
  Host h;
  h.dtype = d;
  h.shape = s;
  h.v.resize(static_cast<size_t>(NumelOf(s)));
  for (Val& x : h.v) x = RandomVal(d, rng, specials);
  return h;
}

// Random right operand suited to `op`: no zero divisors for integer division,
// shift counts mostly in range, small exponents for integer pow.
inline Host RandomRhs(bc_op op, bc_dtype d, const Shape& s, std::mt19937& rng) {
  Host h = RandomHost(d, s, rng);
  if (IsFloat(d) || d == BC_BOOL) return h;
  for (Val& x : h.v) {
    if (IsIntDivision(op)) {
      while (x.i == 0) x = RandomVal(d, rng);
    } else if (IsShift(op)) {
      if (std::uniform_int_distribution<int>(0, 9)(rng) < 8) {
        x.i = std::uniform_int_distribution<int64_t>(IsSigned(d) ? -2 : 0, Bits(d) + 2)(rng);
      }
    } else if (op == BC_POW) {
      if (std::uniform_int_distribution<int>(0, 9)(rng) < 8) {
        x.i = std::uniform_int_distribution<int64_t>(IsSigned(d) ? -3 : 0, 12)(rng);
      }
    }
  }
  return h;
}

// ---------------------------------------------------------------------------
// Comparing results

enum class Cmp {
  kExact,         // bit-exact, except that any NaN matches any NaN
  kZeroSignFree,  // exact, but +0 matches -0 (max/min pick either zero)
  kUlp,           // within a few units in the last place of the dtype
};

inline int64_t OrderedBits(bc_dtype d, double x) {
  int64_t mag;
  bool neg = std::signbit(x);
  if (d == BC_FLOAT64) {
    uint64_t u;
    std::memcpy(&u, &x, 8);
    mag = static_cast<int64_t>(u & 0x7fffffffffffffffull);
  } else if (d == BC_FLOAT32) {
    float f = static_cast<float>(x);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    mag = u & 0x7fffffffu;
  } else if (d == BC_FLOAT16) {
    mag = FloatToHalfBits(static_cast<float>(x)) & 0x7fff;
  } else {
    mag = FloatToBf16Bits(static_cast<float>(x)) & 0x7fff;
  }
  return neg ? -mag : mag;
}

inline bool ValMatches(bc_dtype d, Val got, Val want, Cmp cmp, int ulps) {
  if (!IsFloat(d)) return got.i == want.i;
  if (std::isnan(got.f) || std::isnan(want.f)) return std::isnan(got.f) && std::isnan(want.f);
  if (cmp == Cmp::kUlp) {
    if (std::isinf(want.f) || std::isinf(got.f)) return got.f == want.f;
    int64_t diff = OrderedBits(d, got.f) - OrderedBits(d, want.f);
    return std::llabs(diff) <= ulps;
  }
  if (got.f != want.f) return false;
  return cmp == Cmp::kZeroSignFree || std::signbit(got.f) == std::signbit(want.f);
}

inline std::string ValStr(bc_dtype d, Val v) {
  std::ostringstream os;
  if (IsFloat(d)) {
    os.precision(17);
    os << v.f;
  } else {
    os << v.i;
  }
  return os.str();
}

inline ::testing::AssertionResult SameHost(const Host& got, const Host& want, Cmp cmp = Cmp::kExact,
                                           int ulps = 0) {
  if (got.dtype != want.dtype)
    return ::testing::AssertionFailure() << "dtype " << TorchName(got.dtype) << " != expected "
                                         << TorchName(want.dtype);
  if (got.shape != want.shape)
    return ::testing::AssertionFailure() << "shape " << ShapeStr(got.shape) << " != expected "
                                         << ShapeStr(want.shape);
  int bad = 0;
  std::ostringstream os;
  for (size_t k = 0; k < want.v.size(); ++k) {
    if (!ValMatches(want.dtype, got.v[k], want.v[k], cmp, ulps)) {
      if (bad < 8) {
        os << "\n  at flat index " << k << ": got " << ValStr(want.dtype, got.v[k]) << ", want "
           << ValStr(want.dtype, want.v[k]);
      }
      ++bad;
    }
  }
  if (bad) return ::testing::AssertionFailure() << bad << " of " << want.v.size() << " elements differ:" << os.str();
  return ::testing::AssertionSuccess();
}

inline Cmp CmpFor(bc_op op) {
  switch (op) {
    case BC_POW: case BC_ATAN2: case BC_HYPOT: return Cmp::kUlp;
    case BC_MAXIMUM: case BC_MINIMUM: case BC_FMAX: case BC_FMIN:
    // PyTorch gives remainder(-0., 1.) = -0., Python and NumPy give +0.
    case BC_REMAINDER: return Cmp::kZeroSignFree;
    default: return Cmp::kExact;
  }
}
inline int UlpsFor(bc_op op, bc_dtype d) {
  if (CmpFor(op) != Cmp::kUlp) return 0;
  return (d == BC_FLOAT16 || d == BC_BFLOAT16) ? 1 : 4;
}

// ---------------------------------------------------------------------------
// Error checks

inline std::string LastError() { return bc_last_error(); }
inline bc_error_detail LastDetail() {
  bc_error_detail d;
  bc_last_error_detail(&d);
  return d;
}

inline ::testing::AssertionResult Fails(bc_status got, bc_status want, const std::string& msg = "") {
  if (got != want)
    return ::testing::AssertionFailure() << "status " << bc_status_string(got) << " != expected "
                                         << bc_status_string(want) << " (message: \"" << bc_last_error()
                                         << "\")";
  std::string m = bc_last_error();
  if (m.empty()) return ::testing::AssertionFailure() << "empty error message";
  if (!msg.empty() && m != msg)
    return ::testing::AssertionFailure() << "message \"" << m << "\" != expected \"" << msg << "\"";
  bc_error_detail d;
  if (bc_last_error_detail(&d) != want || d.code != want)
    return ::testing::AssertionFailure() << "bc_last_error_detail code " << d.code << " != " << want;
  return ::testing::AssertionSuccess();
}

inline bc_tensor* const kPoison = reinterpret_cast<bc_tensor*>(static_cast<uintptr_t>(0x10));

}  // namespace bct

#endif  // BCAST_TESTS_TEST_UTIL_H_
