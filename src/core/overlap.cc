#include "core/overlap.h"

#include <cstdlib>
#include <utility>

#include "core/dtype.h"
#include "core/error.h"

namespace bcast {

namespace {

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

}  // namespace

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

namespace {

const char kInternalOverlap[] =
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.";
const char kPartialOverlap[] =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation.";

}  // namespace

[[noreturn]] void FailInternalOverlap() { Fail(BC_ERR_OVERLAP, kInternalOverlap); }

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

}  // namespace bcast
