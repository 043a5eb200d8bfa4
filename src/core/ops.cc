#include "core/ops.h"

// The elementwise driver: types, broadcast and checks (types.cc, compat.cc,
// overlap.cc) in PyTorch's order, then the plan with its kernel bound, run by
// core/execute.cc; the small-op fast path skips the plan.
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/compat.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/op_info.h"
#include "core/op_rules.h"
#include "core/overlap.h"
#include "core/plan.h"
#include "core/context.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/types.h"
#include "kernels/kernels.h"

namespace bcast {

namespace {

// Below this many elements an op on contiguous same-shape operands skips the
// plan: the executor would run it on one thread anyway (it starts threads
// from two grains of 32768 elements) and never streams its stores.
constexpr int64_t kSmallOp = 65536;

// A same-dtype copy moves bits, whatever they encode (halves included).
void SetBitCopy(Plan* p, bc_dtype d) {
  const size_t es = DtypeSize(d);
  const bc_dtype bits = es == 1 ? BC_UINT8 : es == 2 ? BC_INT16 : es == 4 ? BC_INT32 : BC_INT64;
  p->dtype[0] = p->dtype[1] = p->ktype[0] = p->ktype[1] = bits;
  p->via[0] = p->via[1] = bits;
  p->kernel = CopyKernel(es);
}

}  // namespace

void CopyElements(const bc_ctx& ctx, const bc_tensor& dst, const bc_tensor& src) {
  if (Numel(dst) == 0) return;  // (a 0-element tensor's strides may be anything)
  int64_t strides[2][BC_MAX_DIMS];
  for (int d = 0; d < dst.ndim; ++d) {
    strides[0][d] = dst.strides[d];
    strides[1][d] = src.strides[d];
  }
  bc_tensor* ts[2] = {const_cast<bc_tensor*>(&dst), const_cast<bc_tensor*>(&src)};
  Plan p;
  BuildPlan(ShapeOf(dst), 2, ts, strides, &p);
  SetBitCopy(&p, dst.dtype);
  Execute(p, ctx);
}

namespace {

// Whether an element of an integral tensor, read through its own strides and
// converted to the integral dtype `as` (the division's: an int64 divisor of
// an int32 division is cut to its low 32 bits, as PyTorch converts it), is
// zero: the integer-division check, one pass over the divisor.
bool HasZero(const bc_tensor& t, bc_dtype as) {
  const int64_t n = Numel(t);
  const size_t bits = 8 * DtypeSize(as);
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return VisitDtype(t.dtype, [&](auto v) {
    using T = decltype(v);
    const T* p = reinterpret_cast<const T*>(t.data);
    auto is_zero = [mask](T x) { return (static_cast<uint64_t>(Convert<int64_t>(x)) & mask) == 0; };
    if constexpr (std::is_integral_v<T>) {
      if (IsContiguous(t) && sizeof(T) <= DtypeSize(as)) {
        // Zero in `as` exactly when zero: the unsigned minimum of each block
        // (a loop the compiler vectorises) is zero. Blocks: an early exit.
        using U = std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>;
        const U* u = reinterpret_cast<const U*>(p);
        for (int64_t i = 0; i < n; i += 4096) {
          const int64_t end = std::min(n, i + 4096);
          U m = static_cast<U>(~U{0});
          for (int64_t j = i; j < end; ++j) m = u[j] < m ? u[j] : m;
          if (m == 0) return true;
        }
        return false;
      }
    }
    if (IsContiguous(t)) {
      bool zero = false;
      for (int64_t i = 0; i < n; ++i) zero |= is_zero(p[i]);
      return zero;
    }
    int64_t idx[BC_MAX_DIMS] = {};
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (int d = 0; d < t.ndim; ++d) off += idx[d] * t.strides[d];
      if (is_zero(p[off])) return true;
      for (int d = t.ndim - 1; d >= 0; --d) {
        if (++idx[d] < t.shape[d]) break;
        idx[d] = 0;
      }
    }
    return false;
  });
}

// Contiguous copy of `t` when its elements are not in row-major order.
bc_tensor* ContiguousCopy(const bc_ctx& ctx, const bc_tensor& t) {
  bc_tensor* c = NewTensor(t.dtype, ShapeOf(t));
  CopyElements(ctx, *c, t);
  return c;
}

bool WantsAlpha(const OpArgs& a) { return InfoOf(a.op).alpha && a.scalar != 1; }

// The numbers the kernel takes: alpha or value, as the op's rule gives it,
// or a unary op's parameters, resolved by its rules.
void KernelScalars(const OpArgs& a, const Types& t, double* s) {
  const OpRules& rules = RulesOf(a.op);
  s[0] = rules.kernel_scalar != nullptr ? rules.kernel_scalar(a, t) : a.scalar;
  s[1] = s[2] = 0;
  if (rules.kernel_params != nullptr) rules.kernel_params(a, t, s);
}

}  // namespace

bool IsOneValue(const bc_tensor& b, bc_dtype common) {
  for (int d = 0; d < b.ndim; ++d)
    if (b.shape[d] != 1 && b.strides[d] != 0) return false;
  return Numel(b) == 1 || b.dtype == common;
}

namespace {

// On half dtypes, the operand PyTorch reads at its own value (the op's
// half_number_operand rule): run in float32 tiles with that operand
// converted straight from its dtype, not rounded to the half type.
// Returns the operand's index in a.in, or -1.
int HalfScalarOperand(const OpArgs& a, const Types& t) {
  const auto f = RulesOf(a.op).half_number_operand;
  return IsHalf(t.common) && f != nullptr ? f(a, t) : -1;
}

bool SwapsOperands(const OpArgs& a, const Types& t) {
  const auto f = RulesOf(a.op).swaps_operands;
  return f != nullptr && f(a, t);
}

// The dtype the kernel reads operand i in: bool for the op's bool operand.
bc_dtype OperandKernelDtype(const OpArgs& a, int i, bc_dtype common) {
  return RulesOf(a.op).bool_operand == i ? BC_BOOL : common;
}

// A half-precision op runs on its own dtype (widened in registers, rounded
// once: the same arithmetic as float32 tiles) when the table has its kernel
// and no operand (nor the output, of dtype `out`) needs converting.
// Comparisons and logical ops, and mixed dtypes, go through float32 (or
// bool) tiles; but ops that round each step to the half type (trunc and
// floor division) always run the half kernel, their operands and result
// converted to and from it. Returns that kernel, or nullptr.
RowKernel FusedHalfKernel(const OpArgs& a, bc_dtype out, const Types& t) {
  if (!IsHalf(t.common) || t.in != BC_FLOAT32 || t.out != BC_FLOAT32) return nullptr;
  if (!RulesOf(a.op).half_steps) {
    if (t.result != t.common || out != t.common) return nullptr;
    for (int i = 0; i < a.nin; ++i)
      if (a.in[i]->dtype != OperandKernelDtype(a, i, t.common)) return nullptr;
  }
  return FindKernel(a.op, t.common, WantsAlpha(a));
}

// add/sub with alpha on float16/bfloat16: PyTorch computes `self +
// alpha*other` with alpha rounded to the half type, on two paths. Its
// vector loop rounds once (the float32 fma, then the half type); its scalar
// loop (c10::BFloat16 / c10::Half arithmetic) rounds `alpha*other` to the
// half type before adding: bf16 23 + (-2.5)*(-53) is 156 on the first, 155
// on the second. PyTorch takes its vector loop on the inner dim of its
// iterator (dims sorted and coalesced, as the plan's) when every operand
// walks it contiguously, one input possibly with stride 0, in whole vectors
// of 32 elements (its AVX-512 kernels, which both machines measured run; 16
// on AVX2-only CPUs), and its scalar loop for the rest. bcast takes PyTorch's
// scalar loop for an inner dim PyTorch does not vectorise or that is shorter
// than 32 elements, its vector loop's result otherwise. What stays
// path-dependent in PyTorch (the last `n % 32` elements of a longer row,
// rows of 16-31 on AVX2, rows split between its threads) is listed in
// docs/numerics.md.
bool HalfAlphaApplies(const OpArgs& a, const Types& t) {
  return RulesOf(a.op).half_alpha_factor != nullptr && WantsAlpha(a) && IsHalf(t.common);
}

// Whether PyTorch takes its scalar loop on plan `p` (HalfAlphaApplies).
bool HalfAlphaScalarLoop(const Plan& p) {
  if (p.ndim == 0) return true;  // one element
  int broadcast = 0;
  for (int k = 0; k < p.nops; ++k) {
    if (p.stride[k][0] == 0 && k > 0) {
      ++broadcast;
      continue;
    }
    if (p.stride[k][0] != 1) return true;  // strided: PyTorch's basic loop
  }
  return broadcast > 1 || p.shape[0] < 32;
}

// `alpha*other` rounded to the half dtype `common`: PyTorch's scalar-loop
// product, as a tensor of other's shape (other converted to `common` first,
// as PyTorch's iterator converts its inputs).
bc_tensor* HalfAlphaProduct(const OpArgs& a, const Types& t, const bc_tensor& other) {
  TensorGuard converted;
  const bc_tensor* b = &other;
  if (b->dtype != t.common) {
    converted.t = NewTensor(t.common, ShapeOf(other));
    OpArgs c;
    c.ctx = a.ctx;
    c.op = kCopy;  // converted as copy_ does
    c.nin = 1;
    c.in[0] = &other;
    RunElementwise(c, converted.t, false);
    b = converted.t;
  }
  const StackScalar alpha(bc_scalar_float(RulesOf(a.op).half_alpha_factor(a, t)));
  OpArgs m;
  m.ctx = a.ctx;
  m.op = BC_MUL;
  m.nin = 2;
  m.in[0] = b;
  m.in[1] = alpha.get();  // a one-value operand: used at its (half) value, rounded once
  return RunElementwise(m, nullptr, false);
}

// The op's kernel on kernel dtype `d`: the table has one for every dtype
// that type resolution lets through.
RowKernel KernelOf(const OpArgs& a, bc_dtype d) {
  const RowKernel k = FindKernel(a.op, d, WantsAlpha(a));
  if (k == nullptr)
    Fail(BC_ERR_INTERNAL, std::string("no kernel for ") + InfoOf(a.op).name + " on " + DtypeName(d));
  return k;
}

// Ops that BindDirect never binds, decided from the op and its inputs'
// dtypes alone (the small-op paths test it before looking at shapes):
// integer division (its zero check reads the divisor), the copies, and
// add/sub with alpha on a half dtype (HalfAlphaScalarLoop decides on the
// plan).
bool NeverDirect(const OpArgs& a) {
  if (IsIntDivision(a.op) || RulesOf(a.op).copies) return true;
  return RulesOf(a.op).half_alpha_factor != nullptr && WantsAlpha(a) &&
         (IsHalf(a.in[0]->dtype) || IsHalf(a.in[1]->dtype));
}

// Small ops (under kSmallOp elements) whose checks can only pass skip them:
// the shapes broadcast, the broadcast warning is off and the policy allows
// broadcasting (else those apply in the general path); out= has the broadcast shape, is contiguous and shares no
// byte with an input unless it is that very input (in place); and every
// operand is already in the kernel's dtype. Then only dtype errors remain
// possible, and they come now, as in the general path. A 0-dim operand (a
// number, `x + 2`) joins as one value, converted here as the executor would
// (through the common dtype); half dtypes with a number, whose numbers
// PyTorch reads unrounded, are left to the general path, as is anything
// else unusual (no elements, integer division, another dtype to convert
// from): there every check runs and says what PyTorch says. The executor
// runs the op on a plan; without `out`, the result is allocated here.
// Returns the output, or nullptr (nothing done) when the general path must run.
// Called by RunSmallContiguous only, after NeverDirect. It binds as
// BindDirect does, inline: through BindDirect the small broadcasts took
// 12-17 ns longer (bcast_small_latency, Intel Xeon VM, 2026-11-27).
__attribute__((noinline)) bc_tensor* RunSmallBroadcast(const OpArgs& a, bc_tensor* out) {
  // The broadcast shape, and what the broadcast warning and policy look at.
  Shape result;
  result.ndim = 0;
  for (int i = 0; i < a.nin; ++i) result.ndim = std::max(result.ndim, a.in[i]->ndim);
  int64_t numel = 1;
  for (int d = 0; d < result.ndim; ++d) {
    int64_t size = 1;
    for (int i = 0; i < a.nin; ++i) {
      const bc_tensor& t = *a.in[i];
      const int j = d - (result.ndim - t.ndim);
      if (j < 0 || t.shape[j] == 1) continue;
      if (size != 1 && t.shape[j] != size) return nullptr;  // the general path's error
      size = t.shape[j];
    }
    result.d[d] = size;
    // (capped on the way: a product of huge sizes must not wrap around)
    numel = std::min(numel, kSmallOp) * std::min(size, kSmallOp);
  }
  if (numel >= kSmallOp || numel == 0) return nullptr;
  // The broadcast warning and a policy other than allow are left to the
  // general path.
  const bc_ctx& ctx = *a.ctx;
  if (BroadcastWarningOn(ctx) || Policy(ctx) != BC_POLICY_ALLOW) return nullptr;
  if (out != nullptr) {
    if (out->ndim != result.ndim || !IsContiguous(*out)) return nullptr;
    for (int d = 0; d < result.ndim; ++d)
      if (out->shape[d] != result.d[d]) return nullptr;
    uintptr_t olo, ohi;
    ByteRange(*out, &olo, &ohi);
    for (int i = 0; i < a.nin; ++i) {
      const bc_tensor& t = *a.in[i];
      uintptr_t lo, hi;
      ByteRange(t, &lo, &hi);
      if (lo < ohi && olo < hi && !SameView(t, *out)) return nullptr;
    }
  }
  const Types types = ResolveTypes(a, out);
  bool one_value = false;
  for (int i = 0; i < a.nin; ++i) one_value |= a.in[i]->ndim == 0;
  if (one_value && IsHalf(types.common)) return nullptr;
  if (HalfScalarOperand(a, types) >= 0) return nullptr;
  const bc_dtype out_dtype = out != nullptr ? out->dtype : types.result;
  const RowKernel fused = FusedHalfKernel(a, out_dtype, types);
  const bc_dtype kd = fused != nullptr ? types.common : types.in;
  if (out_dtype != (kd == types.in ? types.out : kd)) return nullptr;
  // Operands, strides (elements, over the result's dims) and the values of
  // 0-dim ones, converted.
  bc_tensor* ts[4] = {out};
  char* base[4];
  alignas(8) char value[3][8];
  for (int i = 0; i < a.nin; ++i) {
    const bool cond = RulesOf(a.op).bool_operand == i;
    const bc_dtype want = OperandKernelDtype(a, i, kd);
    bc_tensor* t = const_cast<bc_tensor*>(a.in[i]);
    ts[i + 1] = t;
    base[i + 1] = t->data;
    if (t->ndim == 0) {
      ConvertStridedVia(want, value[i], 1, cond ? BC_BOOL : types.common, t->dtype, t->data, 0, 1);
      base[i + 1] = value[i];
    } else if (t->dtype != want) {
      return nullptr;
    }
  }
  const RowKernel kernel = fused != nullptr ? fused : KernelOf(a, kd);
  double scalar[kMaxScalars];
  KernelScalars(a, types, scalar);
  const bool swap = SwapsOperands(a, types);
  int64_t strides[4][BC_MAX_DIMS];
  for (int i = 0; i < a.nin; ++i) {
    const bc_tensor& t = *a.in[i];
    const int lead = result.ndim - t.ndim;
    for (int d = 0; d < result.ndim; ++d)
      strides[i + 1][d] = d < lead || t.shape[d - lead] == 1 ? 0 : t.strides[d - lead];
  }
  if (swap) {
    std::swap(ts[1], ts[2]);
    std::swap(base[1], base[2]);
    std::swap(strides[1], strides[2]);
  }
  TensorGuard fresh;
  if (out == nullptr) out = fresh.t = NewTensor(types.result, result);
  RowMajorStrides(result.d, result.ndim, strides[0]);
  ts[0] = out;
  Plan p;
  BuildPlan(result, a.nin + 1, ts, strides, &p);
  for (int k = 0; k <= a.nin; ++k) {
    p.base[k] = k == 0 ? out->data : base[k];
    p.dtype[k] = p.ktype[k] = p.via[k] = k == 0 ? out_dtype : OperandKernelDtype(a, k - 1, kd);
  }
  p.kernel = kernel;
  if (fused == nullptr) p.short_row_bytes = ShortRowBytes(a.op, kd, WantsAlpha(a));
  for (int k = 0; k < kMaxScalars; ++k) p.scalar[k] = scalar[k];
  Execute(p, ctx);
  fresh.release();
  return out;
}

}  // namespace

bool BindDirect(const OpArgs& a, const bc_tensor* out, unsigned one_value, DirectCall* c) {
  if (NeverDirect(a)) return false;
  const Types types = ResolveTypes(a, out);
  if (one_value != 0 && IsHalf(types.common)) return false;
  const bc_dtype out_dtype = out != nullptr ? out->dtype : types.result;
  const RowKernel fused = FusedHalfKernel(a, out_dtype, types);
  const bc_dtype kd = fused != nullptr ? types.common : types.in;
  if (out_dtype != (kd == types.in ? types.out : kd)) return false;
  for (int i = 0; i < a.nin; ++i) {
    const bool cond = RulesOf(a.op).bool_operand == i;
    const bc_dtype want = OperandKernelDtype(a, i, kd);
    if (one_value & (1u << i)) {
      ConvertStridedVia(want, c->values[i], 1, cond ? BC_BOOL : types.common, a.in[i]->dtype, a.in[i]->data, 0, 1);
      continue;
    }
    if (a.in[i]->dtype != want) return false;
  }
  c->swap = SwapsOperands(a, types);
  c->kernel = fused != nullptr ? fused : KernelOf(a, kd);
  KernelScalars(a, types, c->scalar);
  c->result = types.result;
  return true;
}

namespace {

// Small ops on operands of one shape, contiguous and already in the kernel's
// dtypes, need no plan: nothing broadcasts, so no warning or policy applies,
// no overlap or shape error can arise, and the whole op is one row. A 0-dim
// operand (a number, `x + 2`) joins them as one value, converted here as the
// executor would (through the common dtype): a 0-dim operand broadcasts with
// anything, is ignored by the broadcast policy, and warns only beside a
// one-element tensor (numel 1 is left to the general path, as are half
// dtypes, whose numbers PyTorch reads unrounded, and a 0-dim operand that
// shares memory with the output). Without `out`, the result is allocated
// here. Other layouts try RunSmallBroadcast. Returns the output, or nullptr
// (nothing done) when the general path must run.
bc_tensor* RunSmallContiguous(const OpArgs& a, bc_tensor* out) {
  if (NeverDirect(a)) return nullptr;
  // The result's shape: the first dimensioned input's, which the output's
  // must be. With every input 0-dim the broadcast shape is [], and an out=
  // of any other shape is refused by the general path (out-resize).
  const bc_tensor* shape = nullptr;
  for (int i = 0; i < a.nin && shape == nullptr; ++i)
    if (a.in[i]->ndim > 0) shape = a.in[i];
  if (shape == nullptr && out != nullptr && out->ndim > 0) return nullptr;
  if (out != nullptr) shape = out;  // compared with every dimensioned input below
  if (shape == nullptr) return nullptr;
  if (!IsContiguous(*shape)) return RunSmallBroadcast(a, out);
  const int64_t numel = Numel(*shape);
  if (numel >= kSmallOp || numel == 0) return nullptr;
  const size_t nbytes = out != nullptr ? static_cast<size_t>(numel) * DtypeSize(out->dtype) : 0;
  unsigned one_value = 0;  // bit i: input i is 0-dim, one value for the whole row
  for (int i = 0; i < a.nin; ++i) {
    const bc_tensor& t = *a.in[i];
    const bool overlaps = out != nullptr && t.data < out->data + nbytes &&
                          out->data < t.data + Numel(t) * DtypeSize(t.dtype);
    if (t.ndim == 0 && numel > 1) {
      if (overlaps) return nullptr;
      one_value |= 1u << i;
      continue;
    }
    if (t.ndim != shape->ndim || !IsContiguous(t)) return RunSmallBroadcast(a, out);
    for (int d = 0; d < t.ndim; ++d)
      if (t.shape[d] != shape->shape[d]) return RunSmallBroadcast(a, out);
    // Exact aliasing is fine; any other shared byte needs the general checks.
    if (overlaps && (t.data != out->data || t.dtype != out->dtype)) return nullptr;
  }
  // Only dtype errors remain possible, and they come now, as in the general path.
  DirectCall call;
  if (!BindDirect(a, out, one_value, &call)) return nullptr;
  char* ptr[4];
  for (int i = 0; i < a.nin; ++i) ptr[i + 1] = (one_value & (1u << i)) ? call.values[i] : a.in[i]->data;
  if (call.swap) {
    std::swap(ptr[1], ptr[2]);
    one_value = (one_value & ~3u) | ((one_value & 1u) << 1) | ((one_value >> 1) & 1u);
  }
  if (out == nullptr) out = NewTensor(call.result, ShapeOf(*shape));
  ptr[0] = out->data;
  call.kernel(numel, 1, ptr, nullptr, one_value, call.scalar, kPlainStores);
  return out;
}

}  // namespace

// copy_ of a view onto itself (same data, dtype, shape and strides) does
// nothing, before any check: PyTorch returns early, even for an expanded view.
bool SameView(const bc_tensor& x, const bc_tensor& y) {
  if (x.data != y.data || x.dtype != y.dtype || x.ndim != y.ndim) return false;
  for (int d = 0; d < x.ndim; ++d)
    if (x.shape[d] != y.shape[d] || x.strides[d] != y.strides[d]) return false;
  return true;
}

namespace {

// Everything but the small-op fast path: kept out of line so that a small op
// does not pay for this frame (several KiB of shapes, strides and plan).
// PyTorch's order: the written tensor's overlaps, then shapes, then dtypes.
__attribute__((noinline)) bc_tensor* RunGeneral(const OpArgs& a, bc_tensor* out, bool inplace) {
  if (out != nullptr) {
    if (HasInternalOverlap(*out)) FailInternalOverlap();
    for (int i = 0; i < a.nin; ++i) CheckOverlap(*out, *a.in[i]);
  }
  const OperandBroadcast b = BroadcastOperands(a, out);
  const Shape& result = b.result;
  const bool legacy = b.legacy;
  if (out != nullptr) CheckOutShape(a, *out, inplace, b);
  const Types types = ResolveTypes(a, out);

  // Operand strides over the result shape (legacy: each viewed as the first's shape).
  TensorGuard owned[3];
  const bc_tensor* ins[3];
  int64_t strides[4][BC_MAX_DIMS];
  for (int i = 0; i < a.nin; ++i) {
    ins[i] = a.in[i];
    if (legacy) {
      if (!IsContiguous(*ins[i])) ins[i] = owned[i].t = ContiguousCopy(*a.ctx, *ins[i]);
      RowMajorStrides(result.d, result.ndim, strides[i + 1]);
    } else {
      BroadcastStrides(*ins[i], result, strides[i + 1]);
    }
  }
  if (out != nullptr) {
    for (int i = 0; i < a.nin; ++i) CheckOverlap(*out, *ins[i], strides[i + 1]);
  }
  // A result that does not depend on the values: one element read (after
  // the overlap checks, which look at every element).
  const bool constant = RulesOf(a.op).constant_result != nullptr && RulesOf(a.op).constant_result(a);
  if (constant) {
    for (int i = 0; i < a.nin; ++i) std::fill(strides[i + 1], strides[i + 1] + result.ndim, 0);
  }

  const int64_t numel = ShapeNumel(result);
  if (IsIntDivision(a.op) && IsIntegral(types.in) && numel > 0 && HasZero(*ins[1], types.in))
    Fail(BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError");

  for (const std::string& w : b.warnings) Warn(*a.ctx, w);

  TensorGuard fresh;
  if (out == nullptr) out = fresh.t = NewTensor(types.result, result);
  if (numel == 0) {  // nothing to compute (and empty strides may be anything)
    fresh.release();
    return out;
  }
  for (int d = 0; d < result.ndim; ++d) strides[0][d] = out->strides[d];

  if (SwapsOperands(a, types)) {
    std::swap(ins[0], ins[1]);
    std::swap(strides[1], strides[2]);
  }
  bc_tensor* ts[4] = {out};
  bool aliased = false;
  // Bytes the op moves: the output and each input's own elements (a
  // broadcast row counts once).
  int64_t moved = numel * static_cast<int64_t>(DtypeSize(out->dtype));
  for (int i = 0; i < a.nin; ++i) {
    ts[i + 1] = const_cast<bc_tensor*>(ins[i]);
    aliased |= ins[i]->storage == out->storage;
    if (!constant) moved += Numel(*ins[i]) * static_cast<int64_t>(DtypeSize(ins[i]->dtype));
  }
  Plan p;
  OpArgs run = a;  // the op the kernel computes
  TensorGuard product;
  if (HalfAlphaApplies(a, types)) {
    Plan probe;
    BuildPlan(result, a.nin + 1, ts, strides, &probe);
    if (HalfAlphaScalarLoop(probe)) {
      // self + (alpha*other rounded): a plain add of the rounded product.
      product.t = HalfAlphaProduct(a, types, *ins[1]);
      moved += Numel(*product.t) * static_cast<int64_t>(DtypeSize(product.t->dtype)) -
               Numel(*ins[1]) * static_cast<int64_t>(DtypeSize(ins[1]->dtype));
      ins[1] = product.t;
      ts[2] = product.t;
      BroadcastStrides(*product.t, result, strides[2]);
      run.op = BC_ADD;
      run.in[1] = product.t;
      run.scalar = 1;
      run.has_alpha = false;
    }
  }
  KernelScalars(run, types, p.scalar);
  // Streaming stores once the operands together outgrow the cache (Execute
  // decides, by thread count): also when the output alone is smaller (int16
  // (1024,4096) + (1024,4096) on one thread: 8 MiB out, 24 MiB moved, 27-30
  // -> 41-44 GB/s).
  p.stream = !aliased;
  p.moved = moved;
  BuildPlan(result, a.nin + 1, ts, strides, &p);
  // Values pass through the common dtype on the way in and through the result
  // dtype on the way out, as in PyTorch; this matters when a half-precision op
  // is computed in float32.
  p.ktype[0] = types.out;
  p.via[0] = types.out == types.in ? types.result : types.out;
  for (int i = 0; i < a.nin; ++i) {
    p.ktype[i + 1] = types.in;
    p.via[i + 1] = types.common;
  }
  if (const int b = RulesOf(a.op).bool_operand; b >= 0) p.ktype[b + 1] = p.via[b + 1] = BC_BOOL;
  if (RulesOf(a.op).copies) {
    p.kernel = CopyKernel(DtypeSize(types.in));
    // Same dtype: move bits, whatever they encode.
    if (a.in[0]->dtype == out->dtype) SetBitCopy(&p, out->dtype);
  } else if (const int k = HalfScalarOperand(run, types); k >= 0) {
    p.via[k + 1] = p.ktype[k + 1];  // the operand's own value, not rounded to the half type
    p.kernel = KernelOf(run, types.in);
  } else if (const RowKernel fused = FusedHalfKernel(run, out->dtype, types)) {
    for (int k = 0; k < p.nops; ++k)
      if (p.ktype[k] != BC_BOOL) p.ktype[k] = p.via[k] = types.common;
    p.kernel = fused;
  } else {
    p.kernel = KernelOf(run, types.in);
    p.short_row_bytes = ShortRowBytes(run.op, types.in, WantsAlpha(run));
  }
  Execute(p, *a.ctx);
  fresh.release();
  return out;
}

}  // namespace

bc_tensor* RunElementwise(const OpArgs& a, bc_tensor* out, bool inplace) {
  for (int i = 0; i < a.nin; ++i)
    if (a.in[i] == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "tensor argument is NULL");
  const OpRules& rules = RulesOf(a.op);
  if (rules.copies && out == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "destination is NULL");
  if (rules.copies && SameView(*out, *a.in[0])) return out;
  if (rules.number_path != nullptr) {
    if (bc_tensor* r = rules.number_path(a, out, inplace)) return r;
  }
  PreCheck(a, out);
  if (!rules.copies) {
    if (bc_tensor* r = RunSmallContiguous(a, out)) return r;
  }
  return RunGeneral(a, out, inplace);
}

}  // namespace bcast
