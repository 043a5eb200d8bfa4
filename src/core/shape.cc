#include "core/shape.h"

#include "core/dtype.h"
#include "core/error.h"

namespace bcast {

std::string FormatShape(const int64_t* d, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += std::to_string(d[i]);
  }
  return s + "]";
}

Shape ShapeOf(const bc_tensor& t) {
  Shape s;
  s.ndim = t.ndim;
  for (int i = 0; i < t.ndim; ++i) s.d[i] = t.shape[i];
  return s;
}

int64_t ShapeNumel(const Shape& s) {
  int64_t n = 1;
  bool zero = false;
  for (int i = 0; i < s.ndim; ++i) zero |= s.d[i] == 0;
  if (zero) return 0;
  for (int i = 0; i < s.ndim; ++i) {
    if (__builtin_mul_overflow(n, s.d[i], &n))
      Fail(BC_ERR_OVERFLOW, "number of elements of shape " + FormatShape(s) + " overflows int64");
  }
  return n;
}

Shape CheckedShape(const int64_t* shape, size_t ndim) {
  if (ndim > BC_MAX_DIMS)
    Fail(BC_ERR_INVALID_ARGUMENT, "ndim " + std::to_string(ndim) + " exceeds the maximum of " +
                                      std::to_string(BC_MAX_DIMS) + " dimensions");
  if (ndim > 0 && shape == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "shape is NULL");
  Shape s;
  s.ndim = static_cast<int>(ndim);
  for (size_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0)
      Fail(BC_ERR_INVALID_ARGUMENT, "Trying to create tensor with negative dimension " +
                                        std::to_string(shape[i]) + ": " +
                                        FormatShape(shape, static_cast<int>(ndim)));
    s.d[i] = shape[i];
  }
  ShapeNumel(s);
  return s;
}

bool TryBroadcast(const Shape& a, const Shape& b, Shape* out, Error* err) {
  int n = a.ndim > b.ndim ? a.ndim : b.ndim;
  Shape r;
  r.ndim = n;
  // PyTorch walks from the trailing dimension and reports the first clash there.
  for (int i = n - 1; i >= 0; --i) {
    int ia = i - (n - a.ndim), ib = i - (n - b.ndim);
    int64_t sa = ia >= 0 ? a.d[ia] : 1;
    int64_t sb = ib >= 0 ? b.d[ib] : 1;
    if (sa == sb || sb == 1) {
      r.d[i] = sa;
    } else if (sa == 1) {
      r.d[i] = sb;
    } else {
      if (err) {
        *err = Error{BC_ERR_NOT_BROADCASTABLE,
                     "The size of tensor a (" + std::to_string(sa) +
                         ") must match the size of tensor b (" + std::to_string(sb) +
                         ") at non-singleton dimension " + std::to_string(i),
                     i, sa, sb};
      }
      return false;
    }
  }
  *out = r;
  return true;
}

Shape Broadcast(const Shape& a, const Shape& b) {
  Shape r;
  Error e;
  if (!TryBroadcast(a, b, &r, &e)) throw e;
  return r;
}

void BroadcastStrides(const bc_tensor& t, const Shape& to, int64_t* strides) {
  int lead = to.ndim - t.ndim;
  for (int i = 0; i < to.ndim; ++i) {
    int j = i - lead;
    strides[i] = (j < 0 || (t.shape[j] == 1 && to.d[i] != 1)) ? 0 : t.strides[j];
  }
}

namespace {
// expand's first check, with PyTorch's text: no fewer sizes than dims.
void CheckExpandRank(const Shape& tensor, bc_dtype dtype, const Shape& target) {
  if (target.ndim < tensor.ndim) {
    Fail(BC_ERR_SHAPE_MISMATCH,
         std::string("expand(") + DtypeTensorName(dtype) + "{" + FormatShape(tensor) +
             "}, size=" + FormatShape(target) + "): the number of sizes provided (" +
             std::to_string(target.ndim) +
             ") must be greater or equal to the number of dimensions in the tensor (" +
             std::to_string(tensor.ndim) + ")");
  }
}
}  // namespace

void CheckExpand(const Shape& tensor, bc_dtype dtype, const Shape& target, Shape* out_shape) {
  CheckExpandRank(tensor, dtype, target);
  Shape r;
  r.ndim = target.ndim;
  int lead = target.ndim - tensor.ndim;
  for (int i = target.ndim - 1; i >= 0; --i) {
    int j = i - lead;
    int64_t want = target.d[i];
    if (j < 0) {
      if (want < 0)
        Fail(BC_ERR_SHAPE_MISMATCH, "The expanded size of the tensor (" + std::to_string(want) +
                                        ") isn't allowed in a leading, non-existing dimension " +
                                        std::to_string(i));
      r.d[i] = want;
      continue;
    }
    int64_t have = tensor.d[j];
    if (want == -1) want = have;
    if (want < 0)
      Fail(BC_ERR_INVALID_ARGUMENT,
           "Trying to create tensor with negative dimension " + std::to_string(want) + ": " +
               FormatShape(target));
    if (have != want && have != 1) {
      FailDim(BC_ERR_SHAPE_MISMATCH,
              "The expanded size of the tensor (" + std::to_string(want) +
                  ") must match the existing size (" + std::to_string(have) +
                  ") at non-singleton dimension " + std::to_string(i) +
                  ".  Target sizes: " + FormatShape(target) +
                  ".  Tensor sizes: " + FormatShape(tensor),
              i, want, have);
    }
    r.d[i] = want;
  }
  ShapeNumel(r);
  *out_shape = r;
}

}  // namespace bcast

namespace bcast {

void ExpandGeometry(const bc_tensor& t, const Shape& target, Shape* shape, int64_t* strides) {
  CheckExpandRank(ShapeOf(t), t.dtype, target);
  Shape r;
  r.ndim = target.ndim;
  if (t.ndim == 0) {  // a 0-dim tensor is viewed with every stride 0
    for (int i = 0; i < target.ndim; ++i) {
      r.d[i] = target.d[i];
      strides[i] = 0;
    }
  }
  const int lead = target.ndim - t.ndim;
  for (int i = t.ndim == 0 ? -1 : target.ndim - 1; i >= 0; --i) {
    const int j = i - lead;
    int64_t size = j >= 0 ? t.shape[j] : 1;
    // A new leading dim strides over everything inside it, as in PyTorch.
    // (Wrapping: only absurd sizes overflow, and those fail the count below.)
    int64_t stride = j >= 0 ? t.strides[j]
                            : i + 1 < target.ndim
                                  ? static_cast<int64_t>(static_cast<uint64_t>(r.d[i + 1]) *
                                                         static_cast<uint64_t>(strides[i + 1]))
                                  : 1;
    int64_t want = target.d[i];
    if (want == -1) {
      if (j < 0)
        Fail(BC_ERR_SHAPE_MISMATCH, "The expanded size of the tensor (-1) isn't allowed in a "
                                    "leading, non-existing dimension " + std::to_string(i));
      want = size;
    }
    if (size != want) {
      if (size != 1) {
        FailDim(BC_ERR_SHAPE_MISMATCH,
                "The expanded size of the tensor (" + std::to_string(want) +
                    ") must match the existing size (" + std::to_string(size) +
                    ") at non-singleton dimension " + std::to_string(i) +
                    ".  Target sizes: " + FormatShape(target) +
                    ".  Tensor sizes: " + FormatShape(ShapeOf(t)),
                i, want, size);
      }
      size = want;
      stride = 0;
    }
    r.d[i] = size;
    strides[i] = stride;
  }
  // PyTorch multiplies the sizes as uint64 from the first, overflow sticky,
  // and refuses a count beyond int64 with this text; sizes left negative
  // (other than -1 on an existing dim) fail with it too. (Where PyTorch's
  // count happens not to overflow, e.g. a 0 next to -2, it returns a view with
  // a negative size; bcast has no such tensors.)
  bool negative = false, overflow = false;
  uint64_t n = 1;
  for (int i = 0; i < r.ndim; ++i) {
    negative |= r.d[i] < 0;
    overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(r.d[i]), &n);
  }
  overflow |= n > static_cast<uint64_t>(INT64_MAX);
  if (negative || overflow)
    Fail(negative ? BC_ERR_INVALID_ARGUMENT : BC_ERR_OVERFLOW,
         "numel: integer multiplication overflow");
  *shape = r;
}

}  // namespace bcast
