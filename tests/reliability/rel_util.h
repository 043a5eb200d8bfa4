// Small helpers for the reliability tests: owning handles, tensors from
// vectors, and byte snapshots for "nothing was written" checks. Only the
// public C API is used.
#ifndef BCAST_TESTS_RELIABILITY_REL_UTIL_H_
#define BCAST_TESTS_RELIABILITY_REL_UTIL_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bcast/bcast.h"

namespace rel {

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

// A contiguous tensor holding `vals` converted to T; null on failure.
template <typename T>
Tensor Make(bc_dtype d, const Shape& s, const std::vector<T>& vals) {
  bc_tensor* t = nullptr;
  if (bc_tensor_from_data(d, s.data(), s.size(), vals.data(), &t) != BC_OK) return Tensor();
  return Tensor(t);
}

inline Tensor Floats(const Shape& s, float start = 0.5f, float step = 1.25f) {
  std::vector<float> v(static_cast<size_t>(NumelOf(s)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<float>(i % 977);
  return Make(BC_FLOAT32, s, v);
}

inline Tensor Ints(const Shape& s, int32_t start = 1, int32_t step = 3) {
  std::vector<int32_t> v(static_cast<size_t>(NumelOf(s)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<int32_t>(i % 1013);
  return Make(BC_INT32, s, v);
}

// The logical contents of any view, row-major, as bytes.
inline std::vector<unsigned char> Bytes(const bc_tensor* t) {
  size_t n = static_cast<size_t>(bc_tensor_numel(t)) * bc_dtype_size(bc_tensor_dtype(t));
  std::vector<unsigned char> b(n + 1);
  if (bc_tensor_copy_to(t, b.data(), b.size()) != BC_OK) return {};
  b.resize(n);
  return b;
}

inline Shape ShapeOf(const bc_tensor* t) {
  const int64_t* s = bc_tensor_shape(t);
  return Shape(s, s + bc_tensor_ndim(t));
}

}  // namespace rel

#endif  // BCAST_TESTS_RELIABILITY_REL_UTIL_H_
