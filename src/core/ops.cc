#include "core/ops.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/dtype.h"
#include "core/error.h"
#include "core/op_info.h"
#include "core/plan.h"
#include "core/settings.h"
#include "core/shape.h"
#include "kernels/kernels.h"

namespace bcast {

namespace {

// Storage of 2 MiB or more starts on a 2 MiB boundary and its whole 2 MiB
// blocks are offered to Linux as transparent huge pages (MADV_HUGEPAGE: the
// default "madvise" mode of most distributions uses them only when asked).
// One TLB entry then covers 2 MiB instead of 4 KiB, which is what walks across
// a transposed operand's rows need (each 256-byte run of a tile lies in
// another 4 KiB page), and a first touch faults once per 2 MiB. The partial
// block at the end stays in small pages, so resident memory is never more
// than the tensor's bytes. Advice the kernel refuses is harmless: the memory
// is then ordinary pages. Storage the caller wraps is never advised.
// BCAST_HUGE_PAGES=0 in the environment (read once) turns the advice off, for
// hosts where the kernel's compaction on a huge-page fault costs too much.
constexpr size_t kHugePage = size_t{2} << 20;

bool HugePagesWanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("BCAST_HUGE_PAGES");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return wanted;
}

void* AllocateData(size_t nbytes) {
  if (nbytes == 0) return std::malloc(1);
  const size_t align = nbytes >= kHugePage ? kHugePage : 64;
  void* data = nullptr;
  if (posix_memalign(&data, align, (nbytes + 63) / 64 * 64) != 0) return nullptr;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == kHugePage && HugePagesWanted()) madvise(data, nbytes / kHugePage * kHugePage, MADV_HUGEPAGE);
#endif
  return data;
}

}  // namespace

bc_tensor* NewTensor(bc_dtype dtype, const Shape& shape) {
  const int64_t numel = ShapeNumel(shape);
  const size_t es = DtypeSize(dtype);
  if (numel > static_cast<int64_t>(SIZE_MAX / 2 / es))
    Fail(BC_ERR_OVERFLOW, "tensor of shape " + FormatShape(shape) + " is too large");
  size_t nbytes = static_cast<size_t>(numel) * es;
  void* data = AllocateData(nbytes);
  Storage* s = data ? new (std::nothrow) Storage : nullptr;
  bc_tensor* t = s ? new (std::nothrow) bc_tensor : nullptr;
  if (t == nullptr) {
    delete s;
    std::free(data);
    Fail(BC_ERR_OUT_OF_MEMORY, "out of memory allocating " + std::to_string(nbytes) + " bytes");
  }
  s->data = data;
  s->nbytes = nbytes;
  s->owned = true;
  t->storage = s;
  t->data = static_cast<char*>(data);
  t->dtype = dtype;
  t->ndim = shape.ndim;
  int64_t stride = 1;
  for (int i = shape.ndim - 1; i >= 0; --i) {
    t->shape[i] = shape.d[i];
    t->strides[i] = stride;
    stride = NextStride(stride, shape.d[i]);
  }
  return t;
}

namespace {

// Below this many elements an op on contiguous same-shape operands skips the plan.
constexpr int64_t kSmallOp = 4096;

// A same-dtype copy moves bits, whatever they encode (halves included).
void SetBitCopy(Plan* p, bc_dtype d) {
  const size_t es = DtypeSize(d);
  const bc_dtype bits = es == 1 ? BC_UINT8 : es == 2 ? BC_INT16 : es == 4 ? BC_INT32 : BC_INT64;
  p->dtype[0] = p->dtype[1] = p->ktype[0] = p->ktype[1] = bits;
  p->via[0] = p->via[1] = bits;
  p->kernel = CopyKernel(es);
}

}  // namespace

void CopyElements(const bc_tensor& dst, const bc_tensor& src) {
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
  Execute(p);
}

namespace {

// Frees a tensor when leaving scope unless released.
struct TensorGuard {
  bc_tensor* t = nullptr;
  ~TensorGuard() {
    if (t) {
      StorageRelease(t->storage);
      delete t;
    }
  }
  bc_tensor* release() {
    bc_tensor* r = t;
    t = nullptr;
    return r;
  }
};

bool IsIntDivision(int op) {
  return op == BC_DIV_TRUNC || op == BC_DIV_FLOOR || op == BC_REMAINDER || op == BC_FMOD;
}

// Dtype names as PyTorch's TypeMeta prints them (lerp's message uses these).
const char* CppTypeName(bc_dtype d) {
  static const char* const kName[kNumDtypes] = {
      "bool", "unsigned char", "signed char", "short int", "int", "long int",
      "c10::Half", "c10::BFloat16", "float", "double"};
  return ValidDtype(d) ? kName[d] : "unknown";
}

[[noreturn]] void NotImplemented(int op, bc_dtype d) {
  Fail(BC_ERR_DTYPE,
       std::string("\"") + InfoOf(op).kernel + "\" not implemented for '" + DtypeName(d) + "'");
}

// torch.result_type: dimensioned operands first; 0-dim ones only when they
// are of a higher category (bool < integer < floating).
bc_dtype ResultType(const bc_tensor* const* ts, int n) {
  int dim = -1, zero = -1;
  for (int i = 0; i < n; ++i) {
    int& slot = ts[i]->ndim > 0 ? dim : zero;
    slot = slot < 0 ? ts[i]->dtype : PromoteTypes(static_cast<bc_dtype>(slot), ts[i]->dtype);
  }
  if (dim < 0) return static_cast<bc_dtype>(zero);
  if (zero < 0) return static_cast<bc_dtype>(dim);
  const bc_dtype d = static_cast<bc_dtype>(dim), z = static_cast<bc_dtype>(zero);
  if (IsFloating(d)) return d;
  if (d == BC_BOOL || IsFloating(z)) return PromoteTypes(d, z);
  return d;
}

bc_dtype ComputeType(bc_dtype d) { return IsHalf(d) ? BC_FLOAT32 : d; }

struct Types {
  bc_dtype in;      // kernel input type
  bc_dtype out;     // kernel output type
  bc_dtype result;  // dtype of an allocated result
  bc_dtype common;  // dtype the inputs are cast to (computed in `in` when it is a half)
};

void CheckIntegralScalar(bc_dtype common, double v, const char* what) {
  if (IsFloating(common)) return;
  if (!(std::trunc(v) == v) || std::fabs(v) > 9.2e18) {
    Fail(BC_ERR_INVALID_ARGUMENT, std::string("For integral input tensors, argument ") + what +
                                      " must not be a floating point number.");
  }
}

Types ResolveTypes(const OpArgs& a, const bc_tensor* out) {
  const int op = a.op;
  if (op == kCopy) {
    const bc_dtype d = ComputeType(out->dtype);
    return {d, d, out->dtype, out->dtype};
  }
  if (op == kWhere) {
    if (a.in[0]->dtype != BC_BOOL)
      Fail(BC_ERR_DTYPE, std::string("where expected condition to be a boolean tensor, but got "
                                     "a tensor with dtype ") +
                             DtypeName(a.in[0]->dtype));
    const bc_dtype c = ResultType(a.in + 1, 2);
    return {ComputeType(c), ComputeType(c), c, c};
  }
  if (op == kLerp) {
    const char* names[3] = {"self", "end", "weight"};
    for (int i = 1; i < 3; ++i) {
      if (a.in[i]->dtype != a.in[0]->dtype)
        Fail(BC_ERR_DTYPE, std::string("expected dtype ") + CppTypeName(a.in[0]->dtype) +
                               " for `" + names[i] + "` but got dtype " +
                               CppTypeName(a.in[i]->dtype));
    }
    if (!IsFloating(a.in[0]->dtype)) NotImplemented(op, a.in[0]->dtype);
  }
  if (op == kAddcdiv && !IsFloating(a.in[1]->dtype) && !IsFloating(a.in[2]->dtype)) {
    Fail(BC_ERR_DTYPE,
         "Integer division with addcdiv is no longer supported, and in a future  release "
         "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
         "behavior can be implemented as (input + value * torch.trunc(tensor1 / "
         "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
         "tensor2) for float inputs. The future addcdiv behavior is just the latter "
         "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  }
  const OpInfo& info = InfoOf(op);
  bc_dtype common = ResultType(a.in, a.nin);
  if (op == BC_SUB) {
    if (a.in[0]->dtype == BC_BOOL && a.in[1]->dtype == BC_BOOL)
      Fail(BC_ERR_DTYPE,
           "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
           "`^` or `logical_xor()` operator instead.");
    if (a.in[0]->dtype == BC_BOOL || a.in[1]->dtype == BC_BOOL)
      Fail(BC_ERR_DTYPE,
           "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
           "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  if (info.alpha && a.has_alpha) {
    CheckIntegralScalar(common, a.scalar, "alpha");
    if (common == BC_BOOL && a.scalar != 0 && a.scalar != 1)
      Fail(BC_ERR_INVALID_ARGUMENT, "Boolean alpha only supported for Boolean results.");
  }
  if (info.promotion == kToFloat && !IsFloating(common)) common = BC_FLOAT32;
  if (!InDtypeSet(info.dtypes, common)) NotImplemented(op, common);
  // Like PyTorch, an integral addcmul truncates a fractional value, but
  // refuses one that no int64 holds.
  if (op == kAddcmul && !IsFloating(common) &&
      !(a.scalar >= -9223372036854775808.0 && a.scalar < 9223372036854775808.0))
    Fail(BC_ERR_INVALID_ARGUMENT, "value cannot be converted to type int64_t without overflow");
  switch (info.promotion) {
    // Logical ops, like comparisons, read the operands cast to their common
    // dtype (PyTorch 2.x: logical_and(f16 1, f64 0-dim 1e-10) is false).
    case kCompare:
    case kLogical: return {ComputeType(common), BC_BOOL, BC_BOOL, common};
    default: return {ComputeType(common), ComputeType(common), common, common};
  }
}

const char* const* OperandNames(int op) { return InfoOf(op).operands; }

std::string JoinNames(const char* const* names, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i) s += (i == n - 1) ? " and " : ", ";
    s += names[i];
  }
  return s;
}

// Elements of the tensor, read through its own strides, as int64; for the
// integer-division zero check.
bool HasZero(const bc_tensor& t) {
  const int64_t n = Numel(t);
  int64_t idx[BC_MAX_DIMS] = {};
  const size_t es = DtypeSize(t.dtype);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int d = 0; d < t.ndim; ++d) off += idx[d] * t.strides[d];
    const char* p = t.data + off * static_cast<int64_t>(es);
    const bool zero = VisitDtype(t.dtype, [&](auto v) {
      using T = decltype(v);
      T x;
      std::memcpy(&x, p, sizeof(T));
      return Convert<int64_t>(x) == 0;
    });
    if (zero) return true;
    for (int d = t.ndim - 1; d >= 0; --d) {
      if (++idx[d] < t.shape[d]) break;
      idx[d] = 0;
    }
  }
  return false;
}

// Byte range [lo, hi) covered by the elements of a non-empty tensor.
void ByteRange(const bc_tensor& t, uintptr_t* lo, uintptr_t* hi) {
  int64_t mn = 0, mx = 0;
  for (int d = 0; d < t.ndim; ++d) {
    const int64_t e = (t.shape[d] - 1) * t.strides[d];
    if (e < 0) mn += e;
    else mx += e;
  }
  const int64_t es = static_cast<int64_t>(DtypeSize(t.dtype));
  *lo = reinterpret_cast<uintptr_t>(t.data) + mn * es;
  *hi = reinterpret_cast<uintptr_t>(t.data) + (mx + 1) * es;
}

// True when two elements of `t` may share memory: any broadcast (stride 0)
// dim, or strides too small to keep the dims apart.
bool HasInternalOverlap(const bc_tensor& t) {
  int64_t st[BC_MAX_DIMS], sz[BC_MAX_DIMS];
  int n = 0;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 0) return false;
    if (t.shape[d] == 1) continue;
    if (t.strides[d] == 0) return true;
    st[n] = std::llabs(t.strides[d]);
    sz[n] = t.shape[d];
    ++n;
  }
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && st[j - 1] > st[j]; --j) {
      std::swap(st[j - 1], st[j]);
      std::swap(sz[j - 1], sz[j]);
    }
  int64_t extent = 1;  // elements spanned by the faster dims
  for (int i = 0; i < n; ++i) {
    if (st[i] < extent) return true;
    extent = st[i] * (sz[i] - 1) + extent;
  }
  return false;
}

const char kInternalOverlap[] =
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.";
const char kPartialOverlap[] =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation.";

// An input may share memory with the output only element for element.
void CheckOverlap(const bc_tensor& out, const bc_tensor& in, const int64_t* in_strides) {
  if (Numel(out) == 0 || Numel(in) == 0) return;
  uintptr_t olo, ohi, ilo, ihi;
  ByteRange(out, &olo, &ohi);
  ByteRange(in, &ilo, &ihi);
  if (ohi <= ilo || ihi <= olo) return;
  bool same = in.data == out.data && in.dtype == out.dtype;
  for (int d = 0; d < out.ndim && same; ++d)
    same = out.shape[d] == 1 || in_strides[d] == out.strides[d];
  if (!same) Fail(BC_ERR_OVERLAP, kPartialOverlap);
}

// Contiguous copy of `t` when its elements are not in row-major order.
bc_tensor* ContiguousCopy(const bc_tensor& t) {
  bc_tensor* c = NewTensor(t.dtype, ShapeOf(t));
  CopyElements(*c, t);
  return c;
}

bool WantsAlpha(const OpArgs& a) { return InfoOf(a.op).alpha && a.scalar != 1; }

// A half-precision op runs on its own dtype (widened in registers, rounded
// once: the same arithmetic as float32 tiles) when the table has its kernel
// and no operand needs converting. Comparisons and logical ops, and mixed
// dtypes, go through float32 (or bool) tiles.
bool FusedHalf(const OpArgs& a, const bc_tensor& out, const Types& t) {
  if (!IsHalf(t.common) || t.result != t.common || out.dtype != t.common ||
      t.in != BC_FLOAT32 || t.out != BC_FLOAT32)
    return false;
  for (int i = 0; i < a.nin; ++i) {
    const bc_dtype want = (a.op == kWhere && i == 0) ? BC_BOOL : t.common;
    if (a.in[i]->dtype != want) return false;
  }
  return FindKernel(a.op, t.common, WantsAlpha(a)) != nullptr;
}

// The op's kernel on kernel dtype `d`: the table has one for every dtype
// that type resolution lets through.
RowKernel KernelOf(const OpArgs& a, bc_dtype d) {
  const RowKernel k = FindKernel(a.op, d, WantsAlpha(a));
  if (k == nullptr)
    Fail(BC_ERR_INTERNAL, std::string("no kernel for ") + InfoOf(a.op).name + " on " + DtypeName(d));
  return k;
}

// Small ops on operands of one shape, contiguous and already in the kernel's
// dtypes, need no plan: nothing broadcasts, so no warning or policy applies,
// and the whole op is one row. Returns false when the general path must run.
bool RunSmallContiguous(const OpArgs& a, bc_tensor* out, const Types& types) {
  if (out == nullptr || IsIntDivision(a.op) || !IsContiguous(*out)) return false;
  const int64_t numel = Numel(*out);
  if (numel >= kSmallOp || numel == 0) return false;
  const bc_dtype kd = FusedHalf(a, *out, types) ? types.common : types.in;
  if (out->dtype != (kd == types.in ? types.out : kd)) return false;
  const size_t nbytes = static_cast<size_t>(numel) * DtypeSize(out->dtype);
  char* ptr[4] = {out->data};
  for (int i = 0; i < a.nin; ++i) {
    const bc_tensor& t = *a.in[i];
    const bc_dtype want = (a.op == kWhere && i == 0) ? BC_BOOL : kd;
    if (t.dtype != want || t.ndim != out->ndim || !IsContiguous(t)) return false;
    for (int d = 0; d < t.ndim; ++d)
      if (t.shape[d] != out->shape[d]) return false;
    // Exact aliasing is fine; any other shared byte needs the general checks.
    const size_t tbytes = static_cast<size_t>(numel) * DtypeSize(t.dtype);
    if (t.data != out->data && t.data < out->data + nbytes && out->data < t.data + tbytes)
      return false;
    ptr[i + 1] = t.data;
  }
  KernelOf(a, kd)(numel, ptr, 0, a.scalar, false);
  return true;
}

// Everything but the small-op fast path: kept out of line so that a small op
// does not pay for this frame (several KiB of shapes, strides and plan).
__attribute__((noinline)) bc_tensor* RunGeneral(const OpArgs& a, bc_tensor* out, bool inplace,
                                                const Types& types) {
  const char* const* names = OperandNames(a.op);

  Shape shapes[3];
  bool same_numel = true, same_shape = true;
  int64_t numel0 = 0;
  for (int i = 0; i < a.nin; ++i) {
    shapes[i] = ShapeOf(*a.in[i]);
    const int64_t n = Numel(*a.in[i]);
    if (i == 0) numel0 = n;
    same_numel &= n == numel0;
    same_shape &= SameShape(shapes[i], shapes[0]);
  }
  // copy_ broadcasts its source into the destination's shape.
  Shape first = a.op == kCopy ? ShapeOf(*out) : shapes[0];
  if (a.op == kCopy) {
    same_numel = Numel(*out) == numel0;
    same_shape = SameShape(first, shapes[0]);
  }

  std::vector<std::string> warnings;
  bool legacy = false;
  Shape result = first;
  Error err;
  for (int i = a.op == kCopy ? 0 : 1; i < a.nin && !legacy; ++i) {
    if (TryBroadcast(result, shapes[i], &result, &err)) continue;
    if (!(LegacyPointwiseOn() && same_numel)) throw err;
    legacy = true;
    result = first;
    warnings.push_back(std::string(a.op == kCopy ? "src" : names[i]) + " is not broadcastable to " +
                       (a.op == kCopy ? "self" : names[0]) +
                       ", but they have the same number of elements. Falling back to "
                       "deprecated pointwise behavior.");
  }
  if (!legacy && !same_shape) {
    if (BroadcastWarningOn() && same_numel) {
      warnings.push_back(
          (a.op == kCopy ? std::string("self and src") : JoinNames(names, a.nin)) +
          " do not have the same shape, but are broadcastable, and have the same number of "
          "elements. Changing behavior in a backwards incompatible manner to broadcasting "
          "rather than viewing as 1-dimensional.");
    }
    bool differ = false;  // ignoring 0-dim operands, which are scalars
    for (int i = 0; i < a.nin; ++i)
      differ |= a.in[i]->ndim > 0 && !SameShape(shapes[i], result);
    if (a.op == kCopy) differ = !SameShape(shapes[0], result) && a.in[0]->ndim > 0;
    if (differ && Policy() != BC_POLICY_ALLOW) {
      std::string desc;
      for (int i = 0; i < a.nin; ++i) {
        if (i) desc += i == a.nin - 1 ? " and " : ", ";
        desc += std::string(names[i]) + " with shape " + FormatShape(shapes[i]);
      }
      if (Policy() == BC_POLICY_ERROR)
        Fail(BC_ERR_POLICY, "broadcast policy is 'error': " + desc +
                                " would be implicitly broadcast to " + FormatShape(result));
      warnings.push_back("implicit broadcast: " + desc + " broadcast to " + FormatShape(result));
    }
  }

  if (out != nullptr) {
    const Shape oshape = ShapeOf(*out);
    if (!SameShape(oshape, result)) {
      if (inplace && LegacyPointwiseOn()) {
        Shape ignored;
        for (int i = 1; i < a.nin; ++i) CheckExpand(shapes[i], a.in[i]->dtype, oshape, &ignored);
      }
      Fail(BC_ERR_SHAPE_MISMATCH, "output with shape " + FormatShape(oshape) +
                                      " doesn't match the broadcast shape " + FormatShape(result));
    }
    if (a.op != kCopy && !CanCast(types.result, out->dtype))
      Fail(BC_ERR_DTYPE, std::string("result type ") + DtypeName(types.result) +
                             " can't be cast to the desired output type " +
                             DtypeName(out->dtype));
    if (HasInternalOverlap(*out)) Fail(BC_ERR_OVERLAP, kInternalOverlap);
  }

  // Operand strides over the result shape (legacy: each viewed as the first's shape).
  TensorGuard owned[3];
  const bc_tensor* ins[3];
  int64_t strides[4][BC_MAX_DIMS];
  for (int i = 0; i < a.nin; ++i) {
    ins[i] = a.in[i];
    if (legacy) {
      if (!IsContiguous(*ins[i])) ins[i] = owned[i].t = ContiguousCopy(*ins[i]);
      int64_t s = 1;
      for (int d = result.ndim - 1; d >= 0; --d) {
        strides[i + 1][d] = result.d[d] == 1 ? 0 : s;
        s *= result.d[d];
      }
    } else {
      BroadcastStrides(*ins[i], result, strides[i + 1]);
    }
  }
  if (out != nullptr) {
    for (int i = 0; i < a.nin; ++i) CheckOverlap(*out, *ins[i], strides[i + 1]);
  }

  const int64_t numel = ShapeNumel(result);
  if (IsIntDivision(a.op) && IsIntegral(types.in) && numel > 0 && HasZero(*ins[1]))
    Fail(BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError");

  for (const std::string& w : warnings) Warn(w);

  TensorGuard fresh;
  if (out == nullptr) out = fresh.t = NewTensor(types.result, result);
  if (numel == 0) {  // nothing to compute (and empty strides may be anything)
    fresh.release();
    return out;
  }
  for (int d = 0; d < result.ndim; ++d) strides[0][d] = out->strides[d];

  bc_tensor* ts[4] = {out};
  bool aliased = false;
  for (int i = 0; i < a.nin; ++i) {
    ts[i + 1] = const_cast<bc_tensor*>(ins[i]);
    aliased |= ins[i]->storage == out->storage;
  }
  Plan p;
  p.scalar = a.scalar;
  p.ternary = a.nin == 3;
  p.stream = !aliased && numel * static_cast<int64_t>(DtypeSize(out->dtype)) >=
                             StreamingThreshold();
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
  if (a.op == kWhere) p.ktype[1] = p.via[1] = BC_BOOL;
  if (a.op == kCopy) {
    p.kernel = CopyKernel(DtypeSize(types.in));
    // Same dtype: move bits, whatever they encode.
    if (a.in[0]->dtype == out->dtype) SetBitCopy(&p, out->dtype);
  } else if (FusedHalf(a, *out, types)) {
    for (int k = 0; k < p.nops; ++k)
      if (p.ktype[k] != BC_BOOL) p.ktype[k] = p.via[k] = types.common;
    p.kernel = KernelOf(a, types.common);
  } else {
    p.kernel = KernelOf(a, types.in);
  }
  Execute(p);
  fresh.release();
  return out;
}

}  // namespace

bc_tensor* RunElementwise(const OpArgs& a, bc_tensor* out, bool inplace) {
  for (int i = 0; i < a.nin; ++i)
    if (a.in[i] == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "tensor argument is NULL");
  if (a.op == kCopy && out == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "destination is NULL");
  const Types types = ResolveTypes(a, out);
  if (a.op != kCopy && RunSmallContiguous(a, out, types)) return out;
  return RunGeneral(a, out, inplace, types);
}

}  // namespace bcast
