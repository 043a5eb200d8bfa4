// The C boundary: validates arguments, converts them, and maps every
// exception to a status. No semantics live here.
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <string>

#include "bcast/bcast.h"
#include "core/dtype.h"
#include "capi/guard.h"
#include "core/context.h"
#include "core/error.h"
#include "core/op_info.h"
#include "core/ops.h"
#include "core/reduce.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "hwy/targets.h"
#include "kernels/kernels.h"

using bcast::Error;
using bcast::Fail;
using bcast::Guarded;
using bcast::NewView;
using bcast::NotNull;
using bcast::RawEnum;

namespace {

void CheckDtype(const bc_dtype& d) {
  const int raw = RawEnum(d);
  if (!bcast::ValidDtype(raw)) Fail(BC_ERR_INVALID_ARGUMENT, "unknown dtype " + std::to_string(raw));
}

void Free(bc_tensor* t) { bcast::FreeTensor(t); }

// Copies a result shape into the caller's `out` of `capacity` entries; too
// small is refused before anything is written.
void WriteShape(const bcast::Shape& r, int64_t* out, size_t capacity, size_t* nout) {
  if (static_cast<size_t>(r.ndim) > capacity)
    Fail(BC_ERR_INVALID_ARGUMENT, "out has room for " + std::to_string(capacity) +
                                      " sizes; the broadcast shape has " +
                                      std::to_string(r.ndim) + " dimensions");
  for (int i = 0; i < r.ndim; ++i) out[i] = r.d[i];
  *nout = static_cast<size_t>(r.ndim);
}

bc_status Binary(bc_ctx* ctx, int op, const bc_tensor* a, const bc_tensor* b, bool has_alpha, double alpha,
                 bc_tensor** out_new, bc_tensor* out, bool inplace) {
  if (out_new) *out_new = nullptr;
  return Guarded(ctx, [&] {
    if (out != nullptr) bcast::CheckWritable(*out, inplace ? "self" : "out");
    if (static_cast<unsigned>(op) >= BC_OP_COUNT)
      Fail(BC_ERR_INVALID_ARGUMENT, "unknown op " + std::to_string(op));
    if (has_alpha && !bcast::InfoOf(op).alpha)
      Fail(BC_ERR_INVALID_ARGUMENT, "alpha is only accepted by BC_ADD and BC_SUB");
    if (!out_new) NotNull(out, inplace ? "self" : "out");
    bcast::OpArgs args;
    args.ctx = &bcast::Resolve(ctx);
    args.op = op;
    args.nin = 2;
    args.in[0] = a;
    args.in[1] = b;
    args.scalar = has_alpha ? alpha : 1;
    args.has_alpha = has_alpha;
    bc_tensor* r = bcast::RunElementwise(args, out, inplace);
    if (out_new) *out_new = r;
  });
}

// A unary op; `params` may be NULL (PyTorch's defaults).
bc_status Unary(bc_ctx* ctx, int op, const bc_tensor* x, const bc_unary_params* params,
                bc_tensor** out_new, bc_tensor* out, bool inplace) {
  if (out_new) *out_new = nullptr;
  return Guarded(ctx, [&] {
    if (static_cast<unsigned>(op) >= BC_UNARY_OP_COUNT)
      Fail(BC_ERR_INVALID_ARGUMENT, "unknown unary op " + std::to_string(op));
    if (!out_new) NotNull(out, inplace ? "self" : "out");
    if (out != nullptr) bcast::CheckWritable(*out, inplace ? "self" : "out");
    bcast::OpArgs args;
    args.ctx = &bcast::Resolve(ctx);
    args.op = bcast::UnaryKernelOp(op);
    args.nin = 1;
    args.in[0] = x;
    if (params != nullptr) {
      const int n = bcast::InfoOf(args.op).nparams;
      if ((params->given >> n) != 0)
        Fail(BC_ERR_INVALID_ARGUMENT, std::string(bcast::InfoOf(args.op).name) + " takes " +
                                          std::to_string(n) + " parameter(s); bc_unary_params.given is " +
                                          std::to_string(params->given));
      for (int k = 0; k < 3; ++k) args.params[k] = params->value[k];
      args.given = params->given;
    }
    bc_tensor* r = bcast::RunElementwise(args, out, inplace);
    if (out_new) *out_new = r;
  });
}

bc_status Ternary(bc_ctx* ctx, int op, const bc_tensor* x, const bc_tensor* y, const bc_tensor* z, double value,
                  bc_tensor** out_new, bc_tensor* out, bool inplace) {
  if (out_new) *out_new = nullptr;
  return Guarded(ctx, [&] {
    if (!out_new) NotNull(out, inplace ? "self" : "out");
    if (out != nullptr) bcast::CheckWritable(*out, inplace ? "self" : "out");
    bcast::OpArgs args;
    args.ctx = &bcast::Resolve(ctx);
    args.op = op;
    args.nin = 3;
    args.in[0] = x;
    args.in[1] = y;
    args.in[2] = z;
    args.scalar = value;
    bc_tensor* r = bcast::RunElementwise(args, out, inplace);
    if (out_new) *out_new = r;
  });
}

bc_status Clamp(bc_ctx* ctx, const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi, bc_tensor** out_new,
                bc_tensor* out, bool inplace) {
  if (out_new) *out_new = nullptr;
  if (lo == nullptr && hi == nullptr) {
    return Guarded(ctx, [&] {
      NotNull(x, "x");
      Fail(BC_ERR_INVALID_ARGUMENT, "torch.clamp: At least one of 'min' or 'max' must not be None");
    });
  }
  // Number bounds are PyTorch's clamp(Tensor, Scalar?, Scalar?).
  if ((lo == nullptr || lo->wrapped_number) && (hi == nullptr || hi->wrapped_number)) {
    return Guarded(ctx, [&] {
      if (!out_new) NotNull(out, inplace ? "self" : "out");
      if (out != nullptr) bcast::CheckWritable(*out, inplace ? "self" : "out");
      bc_tensor* r = bcast::RunClampScalar(bcast::Resolve(ctx), x, lo, hi, out, inplace);
      if (out_new) *out_new = r;
    });
  }
  // One bound is PyTorch's maximum (min=) or minimum (max=) of x and the
  // bound: promoted over the two (the result may be wider than x), and any
  // dtype, bool included.
  if (hi == nullptr) return Binary(ctx, BC_MAXIMUM, x, lo, false, 1, out_new, out, inplace);
  if (lo == nullptr) return Binary(ctx, BC_MINIMUM, x, hi, false, 1, out_new, out, inplace);
  return Ternary(ctx, bcast::kClamp, x, lo, hi, 1, out_new, out, inplace);
}

// The direct scalar forms: the number as a wrapped number on the stack.
bc_status CheckedScalar(bc_ctx* ctx, const bc_scalar* s, const char* what) {
  return Guarded(ctx, [&] {
    NotNull(s, what);
    bcast::CheckScalarKind(*s, what);
  });
}

bc_status BinaryScalar(bc_ctx* ctx, int op, const bc_tensor* t, const bc_scalar& s,
                       bool reflected, bc_tensor** out_new, bc_tensor* out, bool inplace) {
  if (out_new) *out_new = nullptr;
  if (const bc_status st = CheckedScalar(ctx, &s, reflected ? "a" : "b")) return st;
  const bcast::StackScalar w(s);
  return reflected ? Binary(ctx, op, w.get(), t, false, 1, out_new, out, inplace)
                   : Binary(ctx, op, t, w.get(), false, 1, out_new, out, inplace);
}

bc_status ClampScalar(bc_ctx* ctx, const bc_tensor* x, const bc_scalar* lo, const bc_scalar* hi,
                      bc_tensor** out_new, bc_tensor* out, bool inplace) {
  if (out_new) *out_new = nullptr;
  std::optional<bcast::StackScalar> wlo, whi;
  if (lo != nullptr) {
    if (const bc_status st = CheckedScalar(ctx, lo, "lo")) return st;
    wlo.emplace(*lo);
  }
  if (hi != nullptr) {
    if (const bc_status st = CheckedScalar(ctx, hi, "hi")) return st;
    whi.emplace(*hi);
  }
  return Clamp(ctx, x, wlo ? wlo->get() : nullptr, whi ? whi->get() : nullptr, out_new, out,
               inplace);
}

bc_status LerpScalar(bc_ctx* ctx, const bc_tensor* start, const bc_tensor* end,
                     const bc_scalar& w, bc_tensor** out_new, bc_tensor* out, bool inplace) {
  if (out_new) *out_new = nullptr;
  if (const bc_status st = CheckedScalar(ctx, &w, "weight")) return st;
  const bcast::StackScalar ww(w);
  return Ternary(ctx, bcast::kLerp, start, end, ww.get(), 1, out_new, out, inplace);
}

// Caller-given sizes that are only compared, never allocated: any value.
bcast::Shape RawShape(const int64_t* shape, size_t ndim) {
  if (ndim > BC_MAX_DIMS)
    Fail(BC_ERR_INVALID_ARGUMENT, "ndim " + std::to_string(ndim) + " exceeds the maximum of " +
                                      std::to_string(BC_MAX_DIMS) + " dimensions");
  if (ndim > 0) NotNull(shape, "shape");
  bcast::Shape s;
  s.ndim = static_cast<int>(ndim);
  for (size_t i = 0; i < ndim; ++i) s.d[i] = shape[i];
  return s;
}

bcast::Shape NonNegativeShape(const int64_t* shape, size_t ndim) {
  const bcast::Shape s = RawShape(shape, ndim);
  for (int i = 0; i < s.ndim; ++i)
    if (s.d[i] < 0)
      Fail(BC_ERR_INVALID_ARGUMENT, "Trying to create tensor with negative dimension " +
                                        std::to_string(s.d[i]) + ": " + bcast::FormatShape(s));
  return s;
}

// Python's repr of a shape tuple: "(4, 3)", "(4,)", "()".
std::string TupleText(const bcast::Shape& s) {
  std::string t = "(";
  for (int i = 0; i < s.ndim; ++i) t += (i ? ", " : "") + std::to_string(s.d[i]);
  return t + (s.ndim == 1 ? ",)" : ")");
}

}  // namespace

// Entry points are defined at global scope: they keep the C linkage of their
// declarations in bcast.h. Each fallible one is written once, as Do_x taking
// the context; BC_FORMS at the end defines bc_x and bc_ctx_x from it.

BC_API const char* bc_status_string(bc_status code) {
  switch (RawEnum(code)) {
    case BC_OK: return "BC_OK";
    case BC_ERR_INVALID_ARGUMENT: return "BC_ERR_INVALID_ARGUMENT";
    case BC_ERR_NOT_BROADCASTABLE: return "BC_ERR_NOT_BROADCASTABLE";
    case BC_ERR_SHAPE_MISMATCH: return "BC_ERR_SHAPE_MISMATCH";
    case BC_ERR_DTYPE: return "BC_ERR_DTYPE";
    case BC_ERR_OVERLAP: return "BC_ERR_OVERLAP";
    case BC_ERR_OUT_OF_MEMORY: return "BC_ERR_OUT_OF_MEMORY";
    case BC_ERR_OVERFLOW: return "BC_ERR_OVERFLOW";
    case BC_ERR_OUT_OF_BOUNDS: return "BC_ERR_OUT_OF_BOUNDS";
    case BC_ERR_DIVISION_BY_ZERO: return "BC_ERR_DIVISION_BY_ZERO";
    case BC_ERR_INTERNAL: return "BC_ERR_INTERNAL";
    case BC_ERR_POLICY: return "BC_ERR_POLICY";
    case BC_ERR_CALLBACK: return "BC_ERR_CALLBACK";
  }
  return "BC_ERR_UNKNOWN";
}

BC_API int bc_version(void) { return BC_VERSION_NUMBER; }
BC_API const char* bc_version_string(void) { return BC_VERSION_STRING; }
BC_API const char* bc_simd_target(void) { return bcast::ChosenTargetName(); }

BC_API bc_status bc_set_simd_cap(const char* target_name) {
  return Guarded(nullptr, [&] { bcast::CapSimdTargets(target_name); });
}

BC_API size_t bc_dtype_size(bc_dtype dtype) {
  const int raw = RawEnum(dtype);
  return bcast::ValidDtype(raw) ? bcast::DtypeSize(dtype) : 0;
}
BC_API const char* bc_dtype_name(bc_dtype dtype) {
  const int raw = RawEnum(dtype);
  return bcast::ValidDtype(raw) ? bcast::DtypeName(dtype) : "Unknown";
}

BC_API const char* bc_op_name(bc_op op) {
  const int raw = RawEnum(op);
  return static_cast<unsigned>(raw) < BC_OP_COUNT ? bcast::InfoOf(raw).name : "unknown";
}

BC_API const char* bc_unary_op_name(bc_unary_op op) {
  const int raw = RawEnum(op);
  return static_cast<unsigned>(raw) < BC_UNARY_OP_COUNT ? bcast::InfoOf(bcast::UnaryKernelOp(raw)).name
                                                         : "unknown";
}

// ---- tensors ----

static bc_status Do_tensor_empty(bc_ctx* ctx, const bc_dtype& dtype, const int64_t* shape, size_t ndim,
                                 bc_tensor** out) {
  if (out) *out = nullptr;
  return Guarded(ctx, [&] {
    NotNull(out, "out");
    CheckDtype(dtype);
    *out = bcast::NewTensor(dtype, bcast::CheckedShape(shape, ndim));
  });
}

static bc_status Do_tensor_zeros(bc_ctx* ctx, const bc_dtype& dtype, const int64_t* shape, size_t ndim,
                                 bc_tensor** out) {
  if (out) *out = nullptr;
  return Guarded(ctx, [&] {
    NotNull(out, "out");
    CheckDtype(dtype);
    bc_tensor* t = bcast::NewTensor(dtype, bcast::CheckedShape(shape, ndim));
    std::memset(t->data, 0, t->storage->nbytes);
    *out = t;
  });
}

static bc_status Do_tensor_from_data(bc_ctx* ctx, const bc_dtype& dtype, const int64_t* shape, size_t ndim,
                                     const void* data, bc_tensor** out) {
  if (out) *out = nullptr;
  return Guarded(ctx, [&] {
    NotNull(out, "out");
    CheckDtype(dtype);
    bc_tensor* t = bcast::NewTensor(dtype, bcast::CheckedShape(shape, ndim));
    if (t->storage->nbytes > 0 && data == nullptr) {
      Free(t);
      Fail(BC_ERR_INVALID_ARGUMENT, "data is NULL");
    }
    if (t->storage->nbytes > 0) std::memcpy(t->data, data, t->storage->nbytes);
    *out = t;
  });
}

static bc_status Do_tensor_wrap(bc_ctx* ctx, const bc_dtype& dtype, const int64_t* shape, const int64_t* strides,
                                size_t ndim, void* data, size_t nbytes, bc_deleter deleter,
                                void* deleter_ctx, bc_tensor** out) {
  if (out) *out = nullptr;
  return Guarded(ctx, [&] {
    NotNull(out, "out");
    CheckDtype(dtype);
    *out = bcast::WrapBuffer(dtype, shape, strides, ndim, data, nbytes, deleter, deleter_ctx);
  });
}

BC_API void bc_tensor_free(bc_tensor* t) { Free(t); }

static bc_status Do_tensor_view(bc_ctx* ctx, const bc_tensor* t, bc_tensor** out) {
  if (out) *out = nullptr;
  return Guarded(ctx, [&] {
    NotNull(t, "tensor");
    NotNull(out, "out");
    *out = NewView(*t);
  });
}

static bc_status Do_tensor_clone(bc_ctx* ctx, const bc_tensor* t, bc_tensor** out) {
  if (out) *out = nullptr;
  return Guarded(ctx, [&] {
    NotNull(t, "tensor");
    NotNull(out, "out");
    bc_tensor* c = bcast::NewTensor(t->dtype, bcast::ShapeOf(*t));
    bcast::CopyElements(bcast::Resolve(ctx), *c, *t);
    *out = c;
  });
}

BC_API size_t bc_tensor_ndim(const bc_tensor* t) { return t ? static_cast<size_t>(t->ndim) : 0; }
BC_API const int64_t* bc_tensor_shape(const bc_tensor* t) { return t ? t->shape : nullptr; }
BC_API const int64_t* bc_tensor_strides(const bc_tensor* t) { return t ? t->strides : nullptr; }
BC_API bc_dtype bc_tensor_dtype(const bc_tensor* t) { return t ? t->dtype : BC_FLOAT32; }
BC_API int64_t bc_tensor_numel(const bc_tensor* t) { return t ? bcast::Numel(*t) : 0; }
BC_API void* bc_tensor_data(const bc_tensor* t) { return t ? t->data : nullptr; }
BC_API int bc_tensor_is_contiguous(const bc_tensor* t) {
  return t && bcast::IsContiguous(*t) ? 1 : 0;
}

static bc_status Do_tensor_copy_to(bc_ctx* ctx, const bc_tensor* t, void* dst, size_t nbytes) {
  return Guarded(ctx, [&] {
    NotNull(t, "tensor");
    const int64_t numel = bcast::Numel(*t);
    size_t need = 0;
    if (__builtin_mul_overflow(static_cast<size_t>(numel), bcast::DtypeSize(t->dtype), &need))
      Fail(BC_ERR_OUT_OF_BOUNDS, "destination has " + std::to_string(nbytes) +
                                     " bytes; the tensor's size in bytes overflows size_t");
    if (nbytes < need)
      Fail(BC_ERR_OUT_OF_BOUNDS, "destination has " + std::to_string(nbytes) + " bytes, " +
                                     std::to_string(need) + " needed");
    if (numel == 0) return;
    NotNull(dst, "dst");
    bc_tensor d;  // a stack view of the caller's buffer, never freed
    d.data = static_cast<char*>(dst);
    d.dtype = t->dtype;
    d.ndim = t->ndim;
    for (int i = 0; i < t->ndim; ++i) d.shape[i] = t->shape[i];
    bcast::RowMajorStrides(d.shape, d.ndim, d.strides);
    bcast::CopyElements(bcast::Resolve(ctx), d, *t);
  });
}

// ---- shapes ----

static bc_status Do_broadcast_shapes(bc_ctx* ctx, const int64_t* a, size_t na, const int64_t* b, size_t nb,
                                     int64_t* out, size_t out_capacity, size_t* nout) {
  return Guarded(ctx, [&] {
    if (out_capacity > 0) NotNull(out, "out");
    NotNull(nout, "nout");
    // Sizes are compared, never multiplied (as at::infer_size): no element
    // count to overflow; negative sizes are refused.
    const bcast::Shape r = bcast::Broadcast(NonNegativeShape(a, na), NonNegativeShape(b, nb));
    WriteShape(r, out, out_capacity, nout);
  });
}

static bc_status Do_broadcast_shapes_n(bc_ctx* ctx, const int64_t* const* shapes, const size_t* ndims,
                                       size_t count, int64_t* out, size_t out_capacity,
                                       size_t* nout) {
  return Guarded(ctx, [&] {
    if (out_capacity > 0) NotNull(out, "out");
    NotNull(nout, "nout");
    if (count > 0) {
      NotNull(shapes, "shapes");
      NotNull(ndims, "ndims");
    }
    // torch.broadcast_shapes (torch._refs._broadcast_shapes): sizes are
    // compared, never multiplied, so no element count can overflow.
    bcast::Shape r;  // all ones, as long as the longest shape
    for (size_t i = 0; i < count; ++i) {
      const bcast::Shape s = RawShape(shapes[i], ndims[i]);
      for (int d = r.ndim; d < s.ndim; ++d) r.d[d] = 1;
      if (s.ndim > r.ndim) r.ndim = s.ndim;
    }
    for (size_t i = 0; i < count; ++i) {
      const bcast::Shape s = RawShape(shapes[i], ndims[i]);
      for (int k = 1; k <= s.ndim; ++k) {
        const int64_t want = s.d[s.ndim - k];
        int64_t& have = r.d[r.ndim - k];
        if (want == have) continue;
        if (have == 1) {
          if (want < 0)
            Fail(BC_ERR_INVALID_ARGUMENT, "Attempting to broadcast a dimension with negative length!");
          have = want;
        }
        if (want == 1 || want == have) continue;
        bcast::FailDim(BC_ERR_NOT_BROADCASTABLE,
                       "Attempting to broadcast a dimension of length " + std::to_string(want) +
                           " at -" + std::to_string(k) + "! Mismatching argument at index " +
                           std::to_string(i) + " had " + TupleText(s) +
                           "; but expected shape should be broadcastable to " +
                           bcast::FormatShape(r),
                       r.ndim - k, want, have);
      }
    }
    WriteShape(r, out, out_capacity, nout);
  });
}

static bc_status Do_expand(bc_ctx* ctx, const bc_tensor* t, const int64_t* shape, size_t ndim,
                           bc_tensor** view) {
  if (view) *view = nullptr;
  return Guarded(ctx, [&] {
    NotNull(t, "tensor");
    NotNull(view, "view");
    bcast::Shape r;
    int64_t strides[BC_MAX_DIMS];
    bcast::ExpandGeometry(*t, RawShape(shape, ndim), &r, strides);
    *view = NewView(*t, r.d, strides, r.ndim);
  });
}

static bc_status Do_broadcast_tensors(bc_ctx* ctx, const bc_tensor* const* tensors, size_t count,
                                      bc_tensor** views, size_t views_capacity) {
  if (views && (tensors || count == 0) && views_capacity >= count)
    for (size_t i = 0; i < count; ++i) views[i] = nullptr;
  return Guarded(ctx, [&] {
    if (count == 0) return;
    if (views_capacity < count)
      Fail(BC_ERR_INVALID_ARGUMENT, "views has room for " + std::to_string(views_capacity) +
                                        " tensors; " + std::to_string(count) + " needed");
    NotNull(tensors, "tensors");
    NotNull(views, "views");
    bcast::Shape r;
    for (size_t i = 0; i < count; ++i) {
      NotNull(tensors[i], "tensors[i]");
      r = i == 0 ? bcast::ShapeOf(*tensors[0]) : bcast::Broadcast(r, bcast::ShapeOf(*tensors[i]));
    }
    bcast::ShapeNumel(r);  // views whose element count overflows int64 are refused
    try {
      for (size_t i = 0; i < count; ++i) {
        int64_t strides[BC_MAX_DIMS];
        bcast::Shape s;
        bcast::ExpandGeometry(*tensors[i], r, &s, strides);
        views[i] = NewView(*tensors[i], s.d, strides, s.ndim);
      }
    } catch (...) {
      for (size_t i = 0; i < count; ++i) {
        Free(views[i]);
        views[i] = nullptr;
      }
      throw;
    }
  });
}

static bc_status Do_sum_to_shape(bc_ctx* ctx, const bc_tensor* t, const int64_t* shape, size_t ndim,
                                 bc_tensor** out) {
  if (out) *out = nullptr;
  return Guarded(ctx, [&] {
    NotNull(t, "tensor");
    NotNull(out, "out");
    *out = bcast::SumToShape(bcast::Resolve(ctx), *t, RawShape(shape, ndim));
  });
}

// ---- ops ----

static bc_status Do_unary(bc_ctx* ctx, const bc_unary_op& op, const bc_tensor* x, bc_tensor** out) {
  return Unary(ctx, RawEnum(op), x, nullptr, out, nullptr, false);
}
static bc_status Do_unary_out(bc_ctx* ctx, const bc_unary_op& op, const bc_tensor* x, bc_tensor* out) {
  return Unary(ctx, RawEnum(op), x, nullptr, nullptr, out, false);
}
static bc_status Do_unary_(bc_ctx* ctx, const bc_unary_op& op, bc_tensor* self) {
  return Unary(ctx, RawEnum(op), self, nullptr, nullptr, self, true);
}
static bc_status Do_unary_ex(bc_ctx* ctx, const bc_unary_op& op, const bc_tensor* x,
                             const bc_unary_params* params, bc_tensor** out) {
  return Unary(ctx, RawEnum(op), x, params, out, nullptr, false);
}
static bc_status Do_unary_ex_out(bc_ctx* ctx, const bc_unary_op& op, const bc_tensor* x,
                                 const bc_unary_params* params, bc_tensor* out) {
  return Unary(ctx, RawEnum(op), x, params, nullptr, out, false);
}
static bc_status Do_unary_ex_(bc_ctx* ctx, const bc_unary_op& op, bc_tensor* self,
                              const bc_unary_params* params) {
  return Unary(ctx, RawEnum(op), self, params, nullptr, self, true);
}
// x.to(dtype): a view when the dtype is x's, else a converted contiguous copy.
static bc_status Do_to(bc_ctx* ctx, const bc_tensor* x, const bc_dtype& dtype, bc_tensor** out) {
  if (out) *out = nullptr;
  return Guarded(ctx, [&] {
    NotNull(x, "x");
    NotNull(out, "out");
    CheckDtype(dtype);
    const bc_dtype d = static_cast<bc_dtype>(RawEnum(dtype));
    if (d == x->dtype) {
      *out = NewView(*x);
      return;
    }
    bcast::TensorGuard r(bcast::NewTensor(d, bcast::ShapeOf(*x)));
    bcast::OpArgs args;
    args.ctx = &bcast::Resolve(ctx);
    args.op = bcast::kCopy;
    args.nin = 1;
    args.in[0] = x;
    bcast::RunElementwise(args, r.t, false);
    *out = r.release();
  });
}
static bc_status Do_binary(bc_ctx* ctx, const bc_op& op, const bc_tensor* a, const bc_tensor* b, bc_tensor** out) {
  return Binary(ctx, RawEnum(op), a, b, false, 1, out, nullptr, false);
}
static bc_status Do_binary_out(bc_ctx* ctx, const bc_op& op, const bc_tensor* a, const bc_tensor* b, bc_tensor* out) {
  return Binary(ctx, RawEnum(op), a, b, false, 1, nullptr, out, false);
}
static bc_status Do_binary_(bc_ctx* ctx, const bc_op& op, bc_tensor* self, const bc_tensor* other) {
  return Binary(ctx, RawEnum(op), self, other, false, 1, nullptr, self, true);
}
static bc_status Do_binary_alpha(bc_ctx* ctx, const bc_op& op, const bc_tensor* a, const bc_tensor* b, double alpha,
                                 bc_tensor** out) {
  return Binary(ctx, RawEnum(op), a, b, true, alpha, out, nullptr, false);
}
static bc_status Do_binary_alpha_out(bc_ctx* ctx, const bc_op& op, const bc_tensor* a, const bc_tensor* b,
                                     double alpha, bc_tensor* out) {
  return Binary(ctx, RawEnum(op), a, b, true, alpha, nullptr, out, false);
}
static bc_status Do_binary_alpha_(bc_ctx* ctx, const bc_op& op, bc_tensor* self, const bc_tensor* other,
                                  double alpha) {
  return Binary(ctx, RawEnum(op), self, other, true, alpha, nullptr, self, true);
}

static bc_status Do_where(bc_ctx* ctx, const bc_tensor* cond, const bc_tensor* a, const bc_tensor* b,
                          bc_tensor** out) {
  return Ternary(ctx, bcast::kWhere, cond, a, b, 1, out, nullptr, false);
}
static bc_status Do_where_out(bc_ctx* ctx, const bc_tensor* cond, const bc_tensor* a, const bc_tensor* b,
                              bc_tensor* out) {
  return Ternary(ctx, bcast::kWhere, cond, a, b, 1, nullptr, out, false);
}
static bc_status Do_where_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* cond, const bc_tensor* other) {
  // self is the written tensor but the second operand of where(cond, self, other).
  return Ternary(ctx, bcast::kWhere, cond, self, other, 1, nullptr, self, false);
}

#define BC_TERNARY_FORMS(NAME, OP)                                                          \
  static bc_status Do_##NAME(bc_ctx* ctx, const bc_tensor* self, const bc_tensor* t1,                \
                      const bc_tensor* t2, double value, bc_tensor** out) {                   \
    return Ternary(ctx, OP, self, t1, t2, value, out, nullptr, false);                        \
  }                                                                                         \
  static bc_status Do_##NAME##_out(bc_ctx* ctx, const bc_tensor* self, const bc_tensor* t1,          \
                            const bc_tensor* t2, double value, bc_tensor* out) {              \
    return Ternary(ctx, OP, self, t1, t2, value, nullptr, out, false);                        \
  }                                                                                         \
  static bc_status Do_##NAME##_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2, \
                         double value) {                                                    \
    return Ternary(ctx, OP, self, t1, t2, value, nullptr, self, true);                        \
  }
BC_TERNARY_FORMS(addcmul, bcast::kAddcmul)
BC_TERNARY_FORMS(addcdiv, bcast::kAddcdiv)
#undef BC_TERNARY_FORMS

static bc_status Do_lerp(bc_ctx* ctx, const bc_tensor* start, const bc_tensor* end, const bc_tensor* weight,
                         bc_tensor** out) {
  return Ternary(ctx, bcast::kLerp, start, end, weight, 1, out, nullptr, false);
}
static bc_status Do_lerp_out(bc_ctx* ctx, const bc_tensor* start, const bc_tensor* end,
                             const bc_tensor* weight, bc_tensor* out) {
  return Ternary(ctx, bcast::kLerp, start, end, weight, 1, nullptr, out, false);
}
static bc_status Do_lerp_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* end, const bc_tensor* weight) {
  return Ternary(ctx, bcast::kLerp, self, end, weight, 1, nullptr, self, true);
}

static bc_status Do_clamp(bc_ctx* ctx, const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi,
                          bc_tensor** out) {
  return Clamp(ctx, x, lo, hi, out, nullptr, false);
}
static bc_status Do_clamp_out(bc_ctx* ctx, const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi,
                              bc_tensor* out) {
  return Clamp(ctx, x, lo, hi, nullptr, out, false);
}
static bc_status Do_clamp_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* lo, const bc_tensor* hi) {
  return Clamp(ctx, self, lo, hi, nullptr, self, true);
}

// ---- scalar operands ----
// The op arrives by reference: BC_FORMS forwards the caller's int without
// loading it as a bc_op (undefined for an unknown value); RawEnum reads its
// bytes. A bc_scalar is copied whole, its kind read through its bytes.

static bc_status Do_tensor_from_scalar(bc_ctx* ctx, bc_scalar s, bc_tensor** out) {
  if (out) *out = nullptr;
  return Guarded(ctx, [&] {
    NotNull(out, "out");
    bcast::CheckScalarKind(s, "s");
    *out = bcast::NewWrappedScalar(s);
  });
}
BC_API int bc_tensor_is_wrapped_number(const bc_tensor* t) {
  return t != nullptr && t->wrapped_number ? 1 : 0;
}
static bc_status Do_binary_scalar(bc_ctx* ctx, const bc_op& op, const bc_tensor* a, bc_scalar b,
                                  bc_tensor** out) {
  return BinaryScalar(ctx, RawEnum(op), a, b, false, out, nullptr, false);
}
static bc_status Do_binary_scalar_out(bc_ctx* ctx, const bc_op& op, const bc_tensor* a, bc_scalar b,
                                      bc_tensor* out) {
  return BinaryScalar(ctx, RawEnum(op), a, b, false, nullptr, out, false);
}
static bc_status Do_binary_scalar_(bc_ctx* ctx, const bc_op& op, bc_tensor* self, bc_scalar b) {
  return BinaryScalar(ctx, RawEnum(op), self, b, false, nullptr, self, true);
}
static bc_status Do_binary_rscalar(bc_ctx* ctx, const bc_op& op, bc_scalar a, const bc_tensor* b,
                                   bc_tensor** out) {
  return BinaryScalar(ctx, RawEnum(op), b, a, true, out, nullptr, false);
}
static bc_status Do_binary_rscalar_out(bc_ctx* ctx, const bc_op& op, bc_scalar a, const bc_tensor* b,
                                       bc_tensor* out) {
  return BinaryScalar(ctx, RawEnum(op), b, a, true, nullptr, out, false);
}
static bc_status Do_clamp_scalar(bc_ctx* ctx, const bc_tensor* x, const bc_scalar* lo,
                                 const bc_scalar* hi, bc_tensor** out) {
  return ClampScalar(ctx, x, lo, hi, out, nullptr, false);
}
static bc_status Do_clamp_scalar_out(bc_ctx* ctx, const bc_tensor* x, const bc_scalar* lo,
                                     const bc_scalar* hi, bc_tensor* out) {
  return ClampScalar(ctx, x, lo, hi, nullptr, out, false);
}
static bc_status Do_clamp_scalar_(bc_ctx* ctx, bc_tensor* self, const bc_scalar* lo,
                                  const bc_scalar* hi) {
  return ClampScalar(ctx, self, lo, hi, nullptr, self, true);
}
static bc_status Do_lerp_scalar(bc_ctx* ctx, const bc_tensor* start, const bc_tensor* end,
                                bc_scalar weight, bc_tensor** out) {
  return LerpScalar(ctx, start, end, weight, out, nullptr, false);
}
static bc_status Do_lerp_scalar_out(bc_ctx* ctx, const bc_tensor* start, const bc_tensor* end,
                                    bc_scalar weight, bc_tensor* out) {
  return LerpScalar(ctx, start, end, weight, nullptr, out, false);
}
static bc_status Do_lerp_scalar_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* end,
                                 bc_scalar weight) {
  return LerpScalar(ctx, self, end, weight, nullptr, self, true);
}

static bc_status Do_copy_(bc_ctx* ctx, bc_tensor* dst, const bc_tensor* src) {
  return Guarded(ctx, [&] {
    NotNull(dst, "dst");
    bcast::CheckWritable(*dst, "dst");
    bcast::OpArgs args;
    args.ctx = &bcast::Resolve(ctx);
    args.op = bcast::kCopy;
    args.nin = 1;
    args.in[0] = src;
    bcast::RunElementwise(args, dst, true);
  });
}

// ---- the two forms of each fallible entry point ----

BC_FORMS(tensor_empty,
         (bc_dtype dtype, const int64_t* shape, size_t ndim, bc_tensor** out),
         (dtype, shape, ndim, out))
BC_FORMS(tensor_zeros,
         (bc_dtype dtype, const int64_t* shape, size_t ndim, bc_tensor** out),
         (dtype, shape, ndim, out))
BC_FORMS(tensor_from_data,
         (bc_dtype dtype, const int64_t* shape, size_t ndim, const void* data, bc_tensor** out),
         (dtype, shape, ndim, data, out))
BC_FORMS(tensor_wrap,
         (bc_dtype dtype, const int64_t* shape, const int64_t* strides, size_t ndim, void* data, size_t nbytes, bc_deleter deleter, void* deleter_ctx, bc_tensor** out),
         (dtype, shape, strides, ndim, data, nbytes, deleter, deleter_ctx, out))
BC_FORMS(tensor_view,
         (const bc_tensor* t, bc_tensor** out),
         (t, out))
BC_FORMS(tensor_clone,
         (const bc_tensor* t, bc_tensor** out),
         (t, out))
BC_FORMS(tensor_copy_to,
         (const bc_tensor* t, void* dst, size_t nbytes),
         (t, dst, nbytes))
BC_FORMS(broadcast_shapes,
         (const int64_t* a, size_t na, const int64_t* b, size_t nb, int64_t* out, size_t out_capacity, size_t* nout),
         (a, na, b, nb, out, out_capacity, nout))
BC_FORMS(broadcast_shapes_n,
         (const int64_t* const* shapes, const size_t* ndims, size_t count, int64_t* out, size_t out_capacity, size_t* nout),
         (shapes, ndims, count, out, out_capacity, nout))
BC_FORMS(expand,
         (const bc_tensor* t, const int64_t* shape, size_t ndim, bc_tensor** view),
         (t, shape, ndim, view))
BC_FORMS(broadcast_tensors,
         (const bc_tensor* const* tensors, size_t count, bc_tensor** views, size_t views_capacity),
         (tensors, count, views, views_capacity))
BC_FORMS(sum_to_shape,
         (const bc_tensor* t, const int64_t* shape, size_t ndim, bc_tensor** out),
         (t, shape, ndim, out))
BC_FORMS(binary,
         (bc_op op, const bc_tensor* a, const bc_tensor* b, bc_tensor** out),
         (op, a, b, out))
BC_FORMS(binary_out,
         (bc_op op, const bc_tensor* a, const bc_tensor* b, bc_tensor* out),
         (op, a, b, out))
BC_FORMS(binary_,
         (bc_op op, bc_tensor* self, const bc_tensor* other),
         (op, self, other))
BC_FORMS(binary_alpha,
         (bc_op op, const bc_tensor* a, const bc_tensor* b, double alpha, bc_tensor** out),
         (op, a, b, alpha, out))
BC_FORMS(binary_alpha_out,
         (bc_op op, const bc_tensor* a, const bc_tensor* b, double alpha, bc_tensor* out),
         (op, a, b, alpha, out))
BC_FORMS(binary_alpha_,
         (bc_op op, bc_tensor* self, const bc_tensor* other, double alpha),
         (op, self, other, alpha))
BC_FORMS(where,
         (const bc_tensor* cond, const bc_tensor* a, const bc_tensor* b, bc_tensor** out),
         (cond, a, b, out))
BC_FORMS(where_out,
         (const bc_tensor* cond, const bc_tensor* a, const bc_tensor* b, bc_tensor* out),
         (cond, a, b, out))
BC_FORMS(where_,
         (bc_tensor* self, const bc_tensor* cond, const bc_tensor* other),
         (self, cond, other))
BC_FORMS(addcmul,
         (const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2, double value, bc_tensor** out),
         (self, t1, t2, value, out))
BC_FORMS(addcmul_out,
         (const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2, double value, bc_tensor* out),
         (self, t1, t2, value, out))
BC_FORMS(addcmul_,
         (bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2, double value),
         (self, t1, t2, value))
BC_FORMS(addcdiv,
         (const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2, double value, bc_tensor** out),
         (self, t1, t2, value, out))
BC_FORMS(addcdiv_out,
         (const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2, double value, bc_tensor* out),
         (self, t1, t2, value, out))
BC_FORMS(addcdiv_,
         (bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2, double value),
         (self, t1, t2, value))
BC_FORMS(lerp,
         (const bc_tensor* start, const bc_tensor* end, const bc_tensor* weight, bc_tensor** out),
         (start, end, weight, out))
BC_FORMS(lerp_out,
         (const bc_tensor* start, const bc_tensor* end, const bc_tensor* weight, bc_tensor* out),
         (start, end, weight, out))
BC_FORMS(lerp_,
         (bc_tensor* self, const bc_tensor* end, const bc_tensor* weight),
         (self, end, weight))
BC_FORMS(clamp,
         (const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi, bc_tensor** out),
         (x, lo, hi, out))
BC_FORMS(clamp_out,
         (const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi, bc_tensor* out),
         (x, lo, hi, out))
BC_FORMS(clamp_,
         (bc_tensor* self, const bc_tensor* lo, const bc_tensor* hi),
         (self, lo, hi))
BC_FORMS(copy_,
         (bc_tensor* dst, const bc_tensor* src),
         (dst, src))
BC_FORMS(tensor_from_scalar,
         (bc_scalar s, bc_tensor** out),
         (s, out))
BC_FORMS(binary_scalar,
         (bc_op op, const bc_tensor* a, bc_scalar b, bc_tensor** out),
         (op, a, b, out))
BC_FORMS(binary_scalar_out,
         (bc_op op, const bc_tensor* a, bc_scalar b, bc_tensor* out),
         (op, a, b, out))
BC_FORMS(binary_scalar_,
         (bc_op op, bc_tensor* self, bc_scalar b),
         (op, self, b))
BC_FORMS(binary_rscalar,
         (bc_op op, bc_scalar a, const bc_tensor* b, bc_tensor** out),
         (op, a, b, out))
BC_FORMS(binary_rscalar_out,
         (bc_op op, bc_scalar a, const bc_tensor* b, bc_tensor* out),
         (op, a, b, out))
BC_FORMS(clamp_scalar,
         (const bc_tensor* x, const bc_scalar* lo, const bc_scalar* hi, bc_tensor** out),
         (x, lo, hi, out))
BC_FORMS(clamp_scalar_out,
         (const bc_tensor* x, const bc_scalar* lo, const bc_scalar* hi, bc_tensor* out),
         (x, lo, hi, out))
BC_FORMS(clamp_scalar_,
         (bc_tensor* self, const bc_scalar* lo, const bc_scalar* hi),
         (self, lo, hi))
BC_FORMS(lerp_scalar,
         (const bc_tensor* start, const bc_tensor* end, bc_scalar weight, bc_tensor** out),
         (start, end, weight, out))
BC_FORMS(lerp_scalar_out,
         (const bc_tensor* start, const bc_tensor* end, bc_scalar weight, bc_tensor* out),
         (start, end, weight, out))
BC_FORMS(lerp_scalar_,
         (bc_tensor* self, const bc_tensor* end, bc_scalar weight),
         (self, end, weight))

BC_FORMS(unary,
         (bc_unary_op op, const bc_tensor* x, bc_tensor** out),
         (op, x, out))
BC_FORMS(unary_out,
         (bc_unary_op op, const bc_tensor* x, bc_tensor* out),
         (op, x, out))
BC_FORMS(unary_,
         (bc_unary_op op, bc_tensor* self),
         (op, self))
BC_FORMS(unary_ex,
         (bc_unary_op op, const bc_tensor* x, const bc_unary_params* params, bc_tensor** out),
         (op, x, params, out))
BC_FORMS(unary_ex_out,
         (bc_unary_op op, const bc_tensor* x, const bc_unary_params* params, bc_tensor* out),
         (op, x, params, out))
BC_FORMS(unary_ex_,
         (bc_unary_op op, bc_tensor* self, const bc_unary_params* params),
         (op, self, params))
BC_FORMS(to,
         (const bc_tensor* x, bc_dtype dtype, bc_tensor** out),
         (x, dtype, out))

