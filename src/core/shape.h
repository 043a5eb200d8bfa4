// Broadcasting rules and their PyTorch error texts.
#ifndef BCAST_CORE_SHAPE_H_
#define BCAST_CORE_SHAPE_H_

#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/tensor.h"

namespace bcast {

std::string FormatShape(const int64_t* d, int n);  // "[3, 3, 7]"
inline std::string FormatShape(const Shape& s) { return FormatShape(s.d, s.ndim); }
Shape ShapeOf(const bc_tensor& t);
inline bool SameShape(const Shape& a, const Shape& b) {
  if (a.ndim != b.ndim) return false;
  for (int i = 0; i < a.ndim; ++i)
    if (a.d[i] != b.d[i]) return false;
  return true;
}
int64_t ShapeNumel(const Shape& s);  // throws BC_ERR_OVERFLOW

// Validates caller-supplied sizes: ndim <= BC_MAX_DIMS, sizes >= 0, numel fits.
Shape CheckedShape(const int64_t* shape, size_t ndim);

// Broadcast of a and b; nullopt-free: returns false and fills `err` instead of
// throwing, so legacy mode can fall back.
bool TryBroadcast(const Shape& a, const Shape& b, Shape* out, Error* err);
Shape Broadcast(const Shape& a, const Shape& b);  // throws PyTorch's text

// Strides of `t` viewed with shape `to` (t must broadcast to it): 0 on
// broadcast and prepended dims.
void BroadcastStrides(const bc_tensor& t, const Shape& to, int64_t* strides);

// PyTorch's expand (inferExpandGeometry): the shape and strides of `t`
// expanded to `target` (-1 keeps a size); size-1 dims keep their stride and
// new leading dims stride over the dims inside them, as in PyTorch; expanded
// dims get stride 0. Throws PyTorch's texts.
void ExpandGeometry(const bc_tensor& t, const Shape& target, Shape* shape, int64_t* strides);

// The older expand check (legacy in-place wording); throws the expand text.
void CheckExpand(const Shape& tensor, bc_dtype dtype, const Shape& target, Shape* out_shape);

}  // namespace bcast

#endif  // BCAST_CORE_SHAPE_H_
