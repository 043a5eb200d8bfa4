// Fuzzes every op with random dtypes, shapes, strides and aliasing: operands
// (and the written tensor of out=/in-place forms) are views into up to three
// shared buffers, so they may coincide exactly, overlap partially, overlap
// themselves (stride 0) or be disjoint; the settings (legacy pointwise,
// broadcast warning, policy, warnings as errors) are random too.
//
// Every call must return a known status. A failed one must have a message,
// NULL outputs, and leave every buffer byte as it was. A successful one may
// only change bytes of the written tensor. For the exact binary ops (add,
// sub, mul, maximum, minimum, comparisons, logical and bitwise ops) on two
// operands of one dtype, the result is checked against a naive loop.
//
// The unary ops (bc_unary, _out, _, the _ex forms with random parameters,
// given bits beyond an op's count included) and bc_to run the same way; the
// exact unary ops on float32, float64 and the integer dtypes (neg, abs,
// sign, square, relu, floor, ceil, trunc, round on integers, bitwise_not,
// logical_not and the predicates) are checked against a naive loop too.
//
// The reductions (bc_reduce_ex and its out= form, with random dims, keepdim
// and parameters, unknown ops and dtypes included; bc_max_dim/bc_min_dim)
// run the same way: a known status, nothing touched but the written tensor.
#include <cmath>

#include "fuzz_common.h"

namespace {

using Shape = std::vector<int64_t>;

constexpr int kBuffers = 3;
constexpr size_t kBufBytes = 512;

struct View {
  bc_dtype dtype;
  int buf;
  size_t offset;  // bytes
  Shape shape, strides;
  bc_tensor* t = nullptr;
};

struct World {
  unsigned char* buf[kBuffers] = {};
  size_t size[kBuffers] = {};  // bytes reachable by some view: exact ASan bounds
};

// Bytes spanned by a view (0 if empty), or SIZE_MAX on overflow.
size_t Span(const View& v) {
  const int64_t n = bcfuzz::NumelOrMinus1(v.shape);
  if (n == 0) return 0;
  if (n < 0) return SIZE_MAX;
  __int128 last = 0;
  for (size_t d = 0; d < v.shape.size(); ++d) last += static_cast<__int128>(v.shape[d] - 1) * v.strides[d];
  const __int128 bytes = (last + 1) * bcfuzz::ElemSize(v.dtype);
  return bytes > static_cast<__int128>(kBufBytes) ? SIZE_MAX : static_cast<size_t>(bytes);
}

// `forced` is a dtype, or -1 to pick one.
bool PickView(FuzzedDataProvider& p, View* v, int forced = -1) {
  v->dtype = static_cast<bc_dtype>(forced >= 0 ? forced : bcfuzz::PickDtype(p, false));
  v->buf = p.ConsumeIntegralInRange<int>(0, kBuffers - 1);
  const size_t es = bcfuzz::ElemSize(v->dtype);
  v->offset = p.ConsumeIntegralInRange<size_t>(0, 16) * es;
  const size_t nd = p.ConsumeIntegralInRange<size_t>(0, 4);
  v->shape.resize(nd);
  v->strides.resize(nd);
  const bool contiguous = p.ConsumeBool();
  int64_t expected = 1;
  for (size_t i = nd; i-- > 0;) {
    const uint8_t k = p.ConsumeIntegral<uint8_t>();
    v->shape[i] = k < 30 ? 0 : k < 90 ? 1 : 1 + k % 5;
    v->strides[i] = contiguous ? expected : p.ConsumeIntegralInRange<int64_t>(0, 7);
    expected *= v->shape[i] > 1 ? v->shape[i] : 1;
  }
  return v->offset + Span(*v) <= kBufBytes;
}

// --- the reference for exact unary ops ---------------------------------------

bool IsFloatDtype(bc_dtype d) { return d == BC_FLOAT32 || d == BC_FLOAT64; }

// Whether `op` on `d` is checked here, and the dtype it gives.
bool UnaryExact(int op, bc_dtype d, bc_dtype* rd) {
  const bool is_int = d >= BC_UINT8 && d <= BC_INT64;
  *rd = d;
  switch (op) {
    case BC_NEG: case BC_ABS: case BC_SIGN: case BC_SQUARE: case BC_RELU:
    case BC_FLOOR: case BC_CEIL: case BC_TRUNC:
      return is_int || IsFloatDtype(d);
    case BC_ROUND: case BC_BITWISE_NOT: return is_int;
    case BC_ISNAN: case BC_ISINF: case BC_ISFINITE: case BC_SIGNBIT: case BC_LOGICAL_NOT:
      *rd = BC_BOOL;
      return is_int || IsFloatDtype(d) || d == BC_BOOL;
    default: return false;
  }
}

template <typename F>
F UnaryFloat(int op, F x, bool* is_bool) {
  *is_bool = false;
  switch (op) {
    case BC_NEG: return -x;
    case BC_ABS: return std::fabs(x);
    case BC_SIGN: return x > 0 ? F(1) : x < 0 ? F(-1) : F(0);
    case BC_SQUARE: return x * x;
    case BC_RELU: return x < 0 ? F(0) : x;
    case BC_FLOOR: return std::floor(x);
    case BC_CEIL: return std::ceil(x);
    case BC_TRUNC: return std::trunc(x);
  }
  *is_bool = true;
  switch (op) {
    case BC_ISNAN: return std::isnan(x);
    case BC_ISINF: return std::isinf(x);
    case BC_ISFINITE: return std::isfinite(x);
    case BC_SIGNBIT: return std::signbit(x);
    default: return x == 0;  // BC_LOGICAL_NOT
  }
}

// Two's-complement wrap of `r` into `d`.
int64_t Wrap(uint64_t r, bc_dtype d);

int64_t UnaryInt(int op, bc_dtype d, int64_t x, bool* is_bool) {
  *is_bool = false;
  const uint64_t u = static_cast<uint64_t>(x);
  switch (op) {
    case BC_NEG: return Wrap(0 - u, d);
    case BC_ABS: return x < 0 ? Wrap(0 - u, d) : x;
    case BC_SIGN: return (x > 0) - (x < 0);
    case BC_SQUARE: return Wrap(u * u, d);
    case BC_RELU: return x < 0 ? 0 : x;
    case BC_FLOOR: case BC_CEIL: case BC_TRUNC: case BC_ROUND: return x;
    case BC_BITWISE_NOT: return Wrap(~u, d);
  }
  *is_bool = true;
  switch (op) {
    case BC_ISNAN: case BC_ISINF: return 0;
    case BC_ISFINITE: return 1;
    case BC_SIGNBIT: return x < 0;
    default: return x == 0;  // BC_LOGICAL_NOT
  }
}

// --- the reference for exact binary ops --------------------------------------

bool Exact(int op, bc_dtype d) {
  const bool is_float = d == BC_FLOAT32 || d == BC_FLOAT64;
  const bool is_int = d >= BC_UINT8 && d <= BC_INT64;
  switch (op) {
    case BC_ADD: case BC_MUL: case BC_MAXIMUM: case BC_MINIMUM:
      return is_int || is_float || (d == BC_BOOL && op != BC_ADD);
    case BC_SUB: return is_int || is_float;
    case BC_EQ: case BC_NE: case BC_LT: case BC_LE: case BC_GT: case BC_GE:
    case BC_LOGICAL_AND: case BC_LOGICAL_OR: case BC_LOGICAL_XOR:
      return is_int || is_float || d == BC_BOOL;
    case BC_BITWISE_AND: case BC_BITWISE_OR: case BC_BITWISE_XOR:
      return is_int || d == BC_BOOL;
    default: return false;
  }
}

bool Signed(bc_dtype d) { return d != BC_UINT8 && d != BC_BOOL; }

int64_t LoadInt(bc_dtype d, const unsigned char* p) {
  switch (d) {
    case BC_BOOL: case BC_UINT8: return *p;
    case BC_INT8: return static_cast<int8_t>(*p);
    case BC_INT16: { int16_t x; std::memcpy(&x, p, 2); return x; }
    case BC_INT32: { int32_t x; std::memcpy(&x, p, 4); return x; }
    default: { int64_t x; std::memcpy(&x, p, 8); return x; }
  }
}

template <typename F>
bool FloatRef(int op, F a, F b, F* r, bool* is_bool) {
  *is_bool = true;
  switch (op) {
    case BC_ADD: *is_bool = false; *r = a + b; return true;
    case BC_SUB: *is_bool = false; *r = a - b; return true;
    case BC_MUL: *is_bool = false; *r = a * b; return true;
    case BC_MAXIMUM: *is_bool = false; *r = (std::isnan(a) || std::isnan(b)) ? NAN : (a > b ? a : b); return true;
    case BC_MINIMUM: *is_bool = false; *r = (std::isnan(a) || std::isnan(b)) ? NAN : (a < b ? a : b); return true;
    case BC_EQ: *r = a == b; return true;
    case BC_NE: *r = a != b; return true;
    case BC_LT: *r = a < b; return true;
    case BC_LE: *r = a <= b; return true;
    case BC_GT: *r = a > b; return true;
    case BC_GE: *r = a >= b; return true;
    case BC_LOGICAL_AND: *r = (a != 0) && (b != 0); return true;
    case BC_LOGICAL_OR: *r = (a != 0) || (b != 0); return true;
    case BC_LOGICAL_XOR: *r = (a != 0) != (b != 0); return true;
  }
  return false;
}

int64_t IntRef(int op, bc_dtype d, int64_t a, int64_t b, bool* is_bool) {
  *is_bool = op >= BC_EQ && op <= BC_LOGICAL_XOR;
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  uint64_t r;
  switch (op) {
    case BC_ADD: r = ua + ub; break;
    case BC_SUB: r = ua - ub; break;
    case BC_MUL: r = ua * ub; break;
    case BC_MAXIMUM: return a > b ? a : b;
    case BC_MINIMUM: return a < b ? a : b;
    case BC_EQ: return a == b;
    case BC_NE: return a != b;
    case BC_LT: return a < b;
    case BC_LE: return a <= b;
    case BC_GT: return a > b;
    case BC_GE: return a >= b;
    case BC_LOGICAL_AND: return a && b;
    case BC_LOGICAL_OR: return a || b;
    case BC_LOGICAL_XOR: return (a != 0) != (b != 0);
    case BC_BITWISE_AND: r = ua & ub; break;
    case BC_BITWISE_OR: r = ua | ub; break;
    default: r = ua ^ ub; break;
  }
  return Wrap(r, d);
}

int64_t Wrap(uint64_t r, bc_dtype d) {
  const int bits = static_cast<int>(bcfuzz::ElemSize(d) * 8);
  if (bits == 64) return static_cast<int64_t>(r);
  r &= (uint64_t{1} << bits) - 1;
  if (Signed(d) && (r >> (bits - 1)) != 0) r |= ~((uint64_t{1} << bits) - 1);
  return static_cast<int64_t>(r);
}

// Row-major element offsets (bytes) of `v` broadcast to `to`.
std::vector<size_t> ByteOffsets(const View& v, const Shape& to) {
  const int64_t n = bcfuzz::NumelOrMinus1(to);
  std::vector<size_t> offs(static_cast<size_t>(n));
  Shape idx(to.size(), 0);
  const size_t lead = to.size() - v.shape.size(), es = bcfuzz::ElemSize(v.dtype);
  for (int64_t k = 0; k < n; ++k) {
    int64_t o = 0;
    for (size_t d = 0; d < v.shape.size(); ++d)
      if (v.shape[d] != 1) o += idx[lead + d] * v.strides[d];
    offs[k] = v.offset + static_cast<size_t>(o) * es;
    for (size_t d = to.size(); d-- > 0;) {
      if (++idx[d] < to[d]) break;
      idx[d] = 0;
    }
  }
  return offs;
}

// Expected bytes of op(a, b) for every element of the broadcast shape.
std::vector<unsigned char> Reference(int op, const View& a, const View& b, const Shape& shape,
                                     unsigned char* const* before, bc_dtype* out_dtype) {
  const bc_dtype d = a.dtype;
  const std::vector<size_t> oa = ByteOffsets(a, shape), ob = ByteOffsets(b, shape);
  const bool to_bool = op >= BC_EQ && op <= BC_LOGICAL_XOR;
  *out_dtype = to_bool ? BC_BOOL : d;
  const size_t es = bcfuzz::ElemSize(*out_dtype);
  std::vector<unsigned char> r(oa.size() * es);
  for (size_t k = 0; k < oa.size(); ++k) {
    const unsigned char* pa = before[a.buf] + oa[k];
    const unsigned char* pb = before[b.buf] + ob[k];
    bool is_bool = false;
    if (d == BC_FLOAT32) {
      float x, y, z = 0;
      std::memcpy(&x, pa, 4);
      std::memcpy(&y, pb, 4);
      FloatRef(op, x, y, &z, &is_bool);
      if (is_bool) r[k] = z != 0;
      else std::memcpy(&r[k * 4], &z, 4);
    } else if (d == BC_FLOAT64) {
      double x, y, z = 0;
      std::memcpy(&x, pa, 8);
      std::memcpy(&y, pb, 8);
      FloatRef(op, x, y, &z, &is_bool);
      if (is_bool) r[k] = z != 0;
      else std::memcpy(&r[k * 8], &z, 8);
    } else {
      const int64_t z = IntRef(op, d, LoadInt(d, pa), LoadInt(d, pb), &is_bool);
      if (d == BC_BOOL && !is_bool) {
        r[k] = z != 0;  // bool results are 0 or 1
      } else if (is_bool) {
        r[k] = z != 0;
      } else {
        std::memcpy(&r[k * es], &z, es);  // little endian
      }
    }
  }
  return r;
}

// Expected bytes of op(x) for every element of x (result dtype `rd`).
std::vector<unsigned char> UnaryReference(int op, const View& x, bc_dtype rd,
                                          unsigned char* const* before) {
  const bc_dtype d = x.dtype;
  const std::vector<size_t> ox = ByteOffsets(x, x.shape);
  const size_t es = bcfuzz::ElemSize(rd);
  std::vector<unsigned char> r(ox.size() * es);
  for (size_t k = 0; k < ox.size(); ++k) {
    const unsigned char* px = before[x.buf] + ox[k];
    bool is_bool = false;
    if (d == BC_FLOAT32) {
      float v;
      std::memcpy(&v, px, 4);
      const float z = UnaryFloat(op, v, &is_bool);
      if (is_bool) r[k] = z != 0;
      else std::memcpy(&r[k * 4], &z, 4);
    } else if (d == BC_FLOAT64) {
      double v;
      std::memcpy(&v, px, 8);
      const double z = UnaryFloat(op, v, &is_bool);
      if (is_bool) r[k] = z != 0;
      else std::memcpy(&r[k * 8], &z, 8);
    } else {
      const int64_t z = UnaryInt(op, d, LoadInt(d, px), &is_bool);
      if (is_bool) r[k] = z != 0;
      else std::memcpy(&r[k * es], &z, es);  // little endian
    }
  }
  return r;
}

// Elements equal as the dtype sees them: any NaN equals any NaN, and for
// maximum/minimum +0 and -0 are interchangeable.
bool SameElement(bc_dtype d, int op, const unsigned char* x, const unsigned char* y) {
  if (d == BC_FLOAT32 || d == BC_FLOAT64) {
    double a, b;
    if (d == BC_FLOAT32) {
      float fa, fb;
      std::memcpy(&fa, x, 4);
      std::memcpy(&fb, y, 4);
      a = fa;
      b = fb;
    } else {
      std::memcpy(&a, x, 8);
      std::memcpy(&b, y, 8);
    }
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if ((op == BC_MAXIMUM || op == BC_MINIMUM) && a == 0 && b == 0) return true;
    return std::memcmp(x, y, bcfuzz::ElemSize(d)) == 0;
  }
  return std::memcmp(x, y, bcfuzz::ElemSize(d)) == 0;
}

// Statuses each entry point may return (beyond BC_OK).
bool Allowed(bc_status s) {
  return s == BC_OK || s == BC_ERR_INVALID_ARGUMENT || s == BC_ERR_NOT_BROADCASTABLE ||
         s == BC_ERR_SHAPE_MISMATCH || s == BC_ERR_DTYPE || s == BC_ERR_OVERLAP ||
         s == BC_ERR_DIVISION_BY_ZERO || s == BC_ERR_POLICY;
}

int g_warnings = 0;

// A host loop for bc_iter (kind 12): reads every input element, writes
// every output element (0 or 1 in each byte: valid in every dtype), checks
// the inner strides, and fails on call `fail_at`.
struct FuzzLoop {
  int nops = 0;
  int64_t es[4] = {};
  int fail_at = -1;
  int calls = 0;
};

int RunFuzzLoop(void* user, char* const* data, const int64_t* st, int64_t n0, int64_t n1) {
  FuzzLoop& f = *static_cast<FuzzLoop*>(user);
  if (f.calls++ == f.fail_at) return 3;
  FUZZ_CHECK(n0 >= 1 && n1 >= 1, "block %lld x %lld", static_cast<long long>(n1), static_cast<long long>(n0));
  FUZZ_CHECK(st[0] == f.es[0], "output inner stride %lld", static_cast<long long>(st[0]));
  for (int k = 1; k < f.nops; ++k)
    FUZZ_CHECK(st[k] == 0 || st[k] == f.es[k], "input %d inner stride %lld", k, static_cast<long long>(st[k]));
  for (int64_t i = 0; i < n1; ++i) {
    for (int64_t j = 0; j < n0; ++j) {
      unsigned acc = 0;
      for (int k = 1; k < f.nops; ++k) {
        const unsigned char* e = reinterpret_cast<const unsigned char*>(data[k] + i * st[f.nops + k] + j * st[k]);
        for (int64_t b = 0; b < f.es[k]; ++b) acc += e[b];
      }
      std::memset(data[0] + i * st[f.nops] + j * st[0], static_cast<int>(acc & 1), static_cast<size_t>(f.es[0]));
    }
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider p(data, size);
  // Settings.
  const uint8_t settings = p.ConsumeIntegral<uint8_t>();
  bc_set_legacy_pointwise(settings & 1);
  bc_set_broadcast_warning((settings >> 1) & 1);
  bc_set_warnings_as_errors((settings >> 2) & 1);
  bc_set_broadcast_policy(static_cast<bc_policy>(((settings >> 3) & 3) % 3));
  bc_set_warning_handler([](const char* m, void*) { g_warnings += m[0] != 0; }, nullptr);

  // kind: 0 binary, 1 binary_alpha, 2 where, 3 addcmul, 4 addcdiv, 5 lerp,
  // 6 clamp, 7 copy_, 8 unary, 9 bc_to, 10 reduce, 11 max/min along a dim,
  // 12 a host loop through bc_iter; form: 0 allocating, 1 out=, 2 in place.
  const int kind = p.ConsumeIntegralInRange<int>(0, 12);
  const int form = kind == 7 ? 2 : kind == 9 || kind == 11 ? 0
                 : kind == 10 ? p.ConsumeIntegralInRange<int>(0, 1) : p.ConsumeIntegralInRange<int>(0, 2);
  // Out-of-range ops too (known bug: UB inside the library until fixed).
  const int op_count = kind == 8 ? BC_UNARY_OP_COUNT : kind == 10 ? BC_REDUCE_OP_COUNT
                     : kind == 11 ? 2 : kind == 12 ? 1 : BC_OP_COUNT;
  const int op = bcfuzz::AvoidKnownBugs() ? p.ConsumeIntegralInRange<int>(0, op_count - 1)
                                          : p.ConsumeIntegralInRange<int>(-1, op_count);
  double scalar = p.ConsumeBool() ? 1.0 : p.ConsumeFloatingPoint<double>();
  // Known bug: an integral addcmul converts a value outside int64 (or NaN) with UB.
  if (bcfuzz::AvoidKnownBugs() && !(std::fabs(scalar) < 1e15)) scalar = 3.0;
  // bc_iter: 1 to 3 inputs, loop dtypes (any int, or NULL), the allocated
  // output's dtype, flags (any bits), push or pull mode, a failing call.
  const int iter_nin = kind == 12 ? p.ConsumeIntegralInRange<int>(1, 3) : 0;
  int iter_loop[4] = {};
  const bool iter_loop_given = kind == 12 && p.ConsumeBool();
  for (int k = 0; iter_loop_given && k < 4; ++k) iter_loop[k] = bcfuzz::PickDtype(p, true);
  const int iter_out_dtype = kind == 12 ? bcfuzz::PickDtype(p, true) : 0;
  const unsigned iter_flags = kind == 12 ? p.ConsumeIntegralInRange<unsigned>(0, 4) : 0;
  const bool iter_pull = kind == 12 && p.ConsumeBool();
  const int iter_fail_at = kind == 12 ? p.ConsumeIntegralInRange<int>(-1, 3) : -1;
  const int nin = kind == 12 ? iter_nin : kind <= 1 || kind == 7 ? 2 : kind >= 8 ? 1 : 3;
  const bool same_dtype = p.ConsumeBool();
  // Unary parameters: none (the plain forms), NULL, PyTorch's few bits, or
  // any bits; values from `scalar` and two more numbers. bc_to's dtype.
  const uint8_t ex_pick = kind == 8 ? p.ConsumeIntegral<uint8_t>() : 0;
  const bool unary_ex = ex_pick >= 64;
  bc_unary_params params = {{scalar, 0, 0}, 0};
  if (unary_ex) {
    params.given = ex_pick < 240 ? ex_pick & 7u : p.ConsumeIntegral<uint32_t>();
    params.value[1] = p.ConsumeBool() ? p.ConsumeFloatingPoint<double>()
                                      : p.ConsumeIntegralInRange<int>(-8, 8) * 0.5;
    params.value[2] = p.ConsumeBool() ? p.ConsumeFloatingPoint<double>()
                                      : p.ConsumeIntegralInRange<int>(-8, 8) * 0.5;
  }
  const bc_unary_params* pp = unary_ex && ex_pick < 250 ? &params : nullptr;
  const int to_dtype = kind == 9 ? bcfuzz::PickDtype(p, true) : 0;
  // Reductions: up to 3 dims in [-5, 5] (none: every dim), keepdim, and
  // bc_reduce_params with any bits, any dtype and any correction.
  std::vector<int64_t> rdims;
  bool keepdim = false;
  bc_reduce_params rparams = {BC_FLOAT32, 1.0, 0};
  const bc_reduce_params* rpp = nullptr;
  if (kind >= 10) {
    const size_t nd = p.ConsumeIntegralInRange<size_t>(0, kind == 11 ? 1 : 3);
    for (size_t i = 0; i < nd; ++i) rdims.push_back(p.ConsumeIntegralInRange<int64_t>(-5, 5));
    if (kind == 11 && rdims.empty()) rdims.push_back(0);
    keepdim = p.ConsumeBool();
    if (kind == 10 && p.ConsumeBool()) {
      rparams.given = p.ConsumeIntegralInRange<unsigned>(0, 4);
      rparams.dtype = static_cast<bc_dtype>(bcfuzz::PickDtype(p, true));
      rparams.correction = p.ConsumeBool() ? 0.0 : p.ConsumeFloatingPoint<double>();
      rpp = &rparams;
    }
  }

  World w;
  std::vector<View> views(static_cast<size_t>(nin) + (form == 1 ? 1 : 0));
  for (size_t i = 0; i < views.size(); ++i) {
    int forced = -1;
    if (same_dtype && i > 0) forced = views[0].dtype;
    if (kind == 2 && i == 0 && p.ConsumeBool()) forced = BC_BOOL;
    if (!PickView(p, &views[i], forced)) return 0;
  }
  const bool clamp_lo = p.ConsumeBool(), clamp_hi = !clamp_lo || p.ConsumeBool();
  for (View& v : views)
    if (Span(v) == SIZE_MAX) return 0;
  // Each buffer holds exactly the bytes its views reach (at least one), so
  // that a read or write past the last element is an ASan report.
  for (int b = 0; b < kBuffers; ++b) w.size[b] = 1;
  for (View& v : views) {
    const size_t end = v.offset + Span(v);
    if (end > w.size[v.buf]) w.size[v.buf] = end;
  }
  const std::vector<uint8_t> fill = p.ConsumeRemainingBytes<uint8_t>();
  unsigned char* before[kBuffers];
  for (int b = 0; b < kBuffers; ++b) {
    w.buf[b] = static_cast<unsigned char*>(std::malloc(w.size[b]));
    for (size_t i = 0; i < w.size[b]; ++i)
      w.buf[b][i] = fill.empty() ? static_cast<uint8_t>(i * 31 + b) : fill[(i + b * 97) % fill.size()];
  }
  // Bool elements hold 0 or 1.
  for (View& v : views) {
    if (v.dtype != BC_BOOL) continue;
    for (size_t off : ByteOffsets(v, v.shape)) w.buf[v.buf][off] &= 1;
  }
  for (View& v : views) {
    const size_t nbytes = w.size[v.buf] > v.offset ? w.size[v.buf] - v.offset : 0;
    unsigned char* ptr = v.offset < w.size[v.buf] ? w.buf[v.buf] + v.offset : nullptr;
    const bc_status ws = bc_tensor_wrap(v.dtype, v.shape.data(), v.strides.data(), v.shape.size(),
                                        ptr, nbytes, nullptr, nullptr, &v.t);
    bcfuzz::CheckFailure(ws, "wrap");
    FUZZ_CHECK(ws == BC_OK, "a view inside its buffer was refused");
  }
  for (int b = 0; b < kBuffers; ++b) {
    before[b] = static_cast<unsigned char*>(std::malloc(w.size[b]));
    std::memcpy(before[b], w.buf[b], w.size[b]);
  }

  const bc_tensor* in[3] = {views[0].t, nin > 1 ? views[1].t : nullptr, nin > 2 ? views[2].t : nullptr};
  bc_tensor* written = form == 1 ? views[nin].t : form == 2 ? views[0].t : nullptr;
  bc_tensor* result = reinterpret_cast<bc_tensor*>(0x10);
  bc_tensor** rp = form == 0 ? &result : nullptr;
  const int warnings_before = g_warnings;
  bc_status s = BC_OK;
  // Ops go through the C shims as ints: `op` may be out of range.
  switch (kind) {
    case 0:
      s = form == 0 ? fuzz_binary(op, in[0], in[1], rp)
          : form == 1 ? fuzz_binary_out(op, in[0], in[1], written)
                      : fuzz_binary_(op, views[0].t, in[1]);
      break;
    case 1:
      s = form == 0 ? fuzz_binary_alpha(op, in[0], in[1], scalar, rp)
          : form == 1 ? fuzz_binary_alpha_out(op, in[0], in[1], scalar, written)
                      : fuzz_binary_alpha_(op, views[0].t, in[1], scalar);
      break;
    case 2:
      s = form == 0 ? bc_where(in[0], in[1], in[2], rp)
          : form == 1 ? bc_where_out(in[0], in[1], in[2], written)
                      : bc_where_(views[1].t, in[0], in[2]);
      if (form == 2) written = views[1].t;
      break;
    case 3:
      s = form == 0 ? bc_addcmul(in[0], in[1], in[2], scalar, rp)
          : form == 1 ? bc_addcmul_out(in[0], in[1], in[2], scalar, written)
                      : bc_addcmul_(views[0].t, in[1], in[2], scalar);
      break;
    case 4:
      s = form == 0 ? bc_addcdiv(in[0], in[1], in[2], scalar, rp)
          : form == 1 ? bc_addcdiv_out(in[0], in[1], in[2], scalar, written)
                      : bc_addcdiv_(views[0].t, in[1], in[2], scalar);
      break;
    case 5:
      s = form == 0 ? bc_lerp(in[0], in[1], in[2], rp)
          : form == 1 ? bc_lerp_out(in[0], in[1], in[2], written)
                      : bc_lerp_(views[0].t, in[1], in[2]);
      break;
    case 6: {
      const bc_tensor* lo = clamp_lo ? in[1] : nullptr;
      const bc_tensor* hi = clamp_hi ? in[2] : nullptr;
      s = form == 0 ? bc_clamp(in[0], lo, hi, rp)
          : form == 1 ? bc_clamp_out(in[0], lo, hi, written)
                      : bc_clamp_(views[0].t, lo, hi);
      break;
    }
    case 7:
      s = bc_copy_(views[0].t, views[1].t);
      written = views[0].t;
      break;
    case 8:
      if (!unary_ex) {
        s = form == 0 ? fuzz_unary(op, in[0], rp)
            : form == 1 ? fuzz_unary_out(op, in[0], written)
                        : fuzz_unary_(op, views[0].t);
      } else {
        s = form == 0 ? fuzz_unary_ex(op, in[0], pp, rp)
            : form == 1 ? fuzz_unary_ex_out(op, in[0], pp, written)
                        : fuzz_unary_ex_(op, views[0].t, pp);
      }
      break;
    case 9:
      s = fuzz_to(in[0], to_dtype, rp);
      break;
    case 10: {
      const int64_t* d = rdims.empty() ? nullptr : rdims.data();
      s = form == 0 ? fuzz_reduce_ex(op, in[0], d, rdims.size(), keepdim, rpp, rp)
                    : fuzz_reduce_ex_out(op, in[0], d, rdims.size(), keepdim, rpp, written);
      break;
    }
    case 12: {
      if (form == 2) written = views[0].t;
      bc_dtype loop_dtypes[4];
      for (int k = 0; k < 4; ++k) std::memcpy(&loop_dtypes[k], &iter_loop[k], sizeof(int));
      bc_iter_spec spec{};
      spec.inputs = in;
      spec.nin = static_cast<size_t>(nin);
      spec.out = written;
      std::memcpy(&spec.out_dtype, &iter_out_dtype, sizeof(int));
      spec.loop_dtypes = iter_loop_given ? loop_dtypes : nullptr;
      spec.flags = iter_flags;
      bc_iter* it = reinterpret_cast<bc_iter*>(0x10);
      s = bc_iter_new(&spec, &it);
      bcfuzz::CheckFailure(s, "bc_iter_new");
      if (s != BC_OK) {
        FUZZ_CHECK(it == nullptr, "iterator not NULL on failure");
        bool bad_dtype = (iter_flags & ~3u) != 0 || (written == nullptr && !bcfuzz::ValidDtype(iter_out_dtype));
        for (int k = 0; iter_loop_given && k <= nin; ++k) bad_dtype |= !bcfuzz::ValidDtype(iter_loop[k]);
        if (bad_dtype) FUZZ_CHECK(s == BC_ERR_INVALID_ARGUMENT, "bad dtype or flags gave %s", bc_status_string(s));
        if (form == 0) result = nullptr;
        break;
      }
      FuzzLoop loop;
      loop.nops = nin + 1;
      loop.fail_at = iter_fail_at;
      for (int k = 0; k <= nin; ++k) {
        const int own = k == 0 ? (written ? static_cast<int>(bc_tensor_dtype(written)) : iter_out_dtype)
                               : static_cast<int>(bc_tensor_dtype(in[k - 1]));
        loop.es[k] = static_cast<int64_t>(bcfuzz::ElemSize(iter_loop_given ? iter_loop[k] : own));
      }
      if (iter_pull) {
        const size_t n = bc_iter_num_chunks(it);
        FUZZ_CHECK((n == 0) == (bc_iter_numel(it) == 0), "%zu chunks", n);
        for (size_t i = 0; i < n && s == BC_OK; ++i) s = bc_iter_run_chunk(it, i, RunFuzzLoop, &loop);
      } else {
        s = bc_iter_run(it, RunFuzzLoop, &loop);
        bcfuzz::CheckFailure(s, "bc_iter_run");
      }
      if (s == BC_ERR_CALLBACK) FUZZ_CHECK(bc_iter_callback_code(it) == 3, "callback code");
      FUZZ_CHECK(s == BC_OK || (s == BC_ERR_CALLBACK && loop.fail_at >= 0), "run gave %s", bc_status_string(s));
      if (form == 0) {
        result = nullptr;
        if (s == BC_OK) FUZZ_CHECK(bc_iter_output(it, &result) == BC_OK, "bc_iter_output");
      }
      bc_iter_free(it);
      break;
    }
    default: {
      bc_tensor* indices = reinterpret_cast<bc_tensor*>(0x10);
      s = op == 0 ? bc_max_dim(in[0], rdims[0], keepdim, rp, &indices)
                  : bc_min_dim(in[0], rdims[0], keepdim, rp, &indices);
      if (s == BC_OK) {
        FUZZ_CHECK(bc_tensor_dtype(indices) == BC_INT64, "indices of dtype %d", bc_tensor_dtype(indices));
        FUZZ_CHECK(bc_tensor_numel(indices) == bc_tensor_numel(result), "indices and values differ in size");
        bc_tensor_free(indices);
      } else {
        FUZZ_CHECK(indices == nullptr, "indices not NULL on failure");
      }
      break;
    }
  }
  // (A pull-mode chunk records nothing: its caller reports the status.)
  if (!(kind == 12 && iter_pull && s == BC_ERR_CALLBACK)) bcfuzz::CheckFailure(s, "op");
  FUZZ_CHECK(Allowed(s) || (kind == 12 && s == BC_ERR_CALLBACK), "status %s", bc_status_string(s));
  if ((kind <= 1 || kind == 8 || kind == 10) && (op < 0 || op >= op_count))
    FUZZ_CHECK(s == BC_ERR_INVALID_ARGUMENT, "unknown op %d gave %s", op, bc_status_string(s));
  if (kind == 8 && pp != nullptr && (pp->given >> 3) != 0)
    FUZZ_CHECK(s == BC_ERR_INVALID_ARGUMENT, "params.given 0x%x gave %s", pp->given,
               bc_status_string(s));
  if (kind == 9) {
    if (!bcfuzz::ValidDtype(to_dtype))
      FUZZ_CHECK(s == BC_ERR_INVALID_ARGUMENT, "bc_to dtype %d gave %s", to_dtype, bc_status_string(s));
    if (s == BC_OK) {
      FUZZ_CHECK(bc_tensor_dtype(result) == to_dtype, "bc_to gave dtype %d", bc_tensor_dtype(result));
      if (to_dtype == views[0].dtype)
        FUZZ_CHECK(bc_tensor_data(result) == bc_tensor_data(views[0].t), "bc_to copied");
    }
  }
  if (bc_get_warnings_as_errors()) FUZZ_CHECK(g_warnings == warnings_before, "handler called");

  // Bytes that may have changed: only the written tensor's elements.
  std::vector<unsigned char> may_change[kBuffers];
  for (int b = 0; b < kBuffers; ++b) may_change[b].assign(w.size[b], 0);
  int written_buf = -1;
  if ((s == BC_OK || s == BC_ERR_CALLBACK) && written != nullptr) {
    for (View& v : views) {
      if (v.t != written) continue;
      written_buf = v.buf;
      const size_t es = bcfuzz::ElemSize(v.dtype);
      for (size_t off : ByteOffsets(v, v.shape))
        for (size_t i = 0; i < es; ++i) may_change[v.buf][off + i] = 1;
    }
  }
  for (int b = 0; b < kBuffers; ++b)
    for (size_t i = 0; i < w.size[b]; ++i)
      FUZZ_CHECK(may_change[b][i] || w.buf[b][i] == before[b][i],
                 "byte %zu of buffer %d changed (status %s, kind %d, form %d)", i, b,
                 bc_status_string(s), kind, form);
  if (form == 0) {
    if (s != BC_OK) FUZZ_CHECK(result == nullptr, "result not NULL on failure");
    else FUZZ_CHECK(result != nullptr && result != reinterpret_cast<bc_tensor*>(0x10), "no result");
  }

  // The naive reference for the exact binary ops.
  if (s == BC_OK && kind == 0 && views[0].dtype == views[1].dtype && Exact(op, views[0].dtype) &&
      !views[0].shape.empty() && !views[1].shape.empty() && !bc_get_legacy_pointwise()) {
    Shape shape;
    FUZZ_CHECK(bcfuzz::RefBroadcast(views[0].shape, views[1].shape, &shape), "broadcast");
    bc_dtype rd;
    const std::vector<unsigned char> want = Reference(op, views[0], views[1], shape, before, &rd);
    const bc_tensor* r = form == 0 ? result : written;
    bool comparable = bc_tensor_dtype(r) == rd;
    // An out= tensor sharing a buffer with an input is compared only when
    // the inputs were read before being overwritten, i.e. exact aliasing;
    // any dtype conversion of the written tensor skips the comparison.
    if (form != 0 && written_buf >= 0) {
      for (int i = 0; i < 2; ++i)
        if (views[i].buf == written_buf && views[i].t != written) comparable = false;
    }
    if (comparable) {
      const size_t es = bcfuzz::ElemSize(rd);
      std::vector<unsigned char> got(want.size() + 1);
      FUZZ_CHECK(bc_tensor_copy_to(r, got.data(), got.size()) == BC_OK, "copy_to");
      for (size_t k = 0; k * es < want.size(); ++k)
        FUZZ_CHECK(SameElement(rd, op, &got[k * es], &want[k * es]),
                   "op %d: element %zu differs (dtype %s)", op, k, bc_dtype_name(rd));
    }
  }

  // The naive reference for the exact unary ops (no parameters).
  bc_dtype urd;
  if (s == BC_OK && kind == 8 && pp == nullptr && UnaryExact(op, views[0].dtype, &urd)) {
    const bc_tensor* r = form == 0 ? result : written;
    bool comparable = bc_tensor_dtype(r) == urd &&
                      bcfuzz::NumelOrMinus1(views[0].shape) == bc_tensor_numel(r);
    // out= sharing a buffer with x: only exact aliasing reads x first.
    if (form == 1 && views[1].buf == views[0].buf && views[1].t != views[0].t) comparable = false;
    if (comparable) {
      const std::vector<unsigned char> want = UnaryReference(op, views[0], urd, before);
      const size_t es = bcfuzz::ElemSize(urd);
      std::vector<unsigned char> got(want.size() + 1);
      FUZZ_CHECK(bc_tensor_copy_to(r, got.data(), got.size()) == BC_OK, "copy_to");
      for (size_t k = 0; k * es < want.size(); ++k)
        FUZZ_CHECK(SameElement(urd, -1, &got[k * es], &want[k * es]),
                   "unary op %d: element %zu differs (dtype %s)", op, k, bc_dtype_name(urd));
    }
  }

  if (form == 0 && s == BC_OK) bc_tensor_free(result);
  for (View& v : views) bc_tensor_free(v.t);
  for (int b = 0; b < kBuffers; ++b) {
    std::free(w.buf[b]);
    std::free(before[b]);
  }
  bc_set_legacy_pointwise(0);
  bc_set_broadcast_warning(0);
  bc_set_warnings_as_errors(0);
  bc_set_broadcast_policy(BC_POLICY_ALLOW);
  return 0;
}
