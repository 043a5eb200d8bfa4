#include "core/overlap.h"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"

namespace bcast {

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

namespace {

// Above this many elements a layout the stride test cannot clear is refused
// rather than enumerated.
constexpr int64_t kExactOverlapLimit = int64_t{1} << 20;

// Whether two elements of `t` share an offset, by listing every offset.
bool OffsetsRepeat(const bc_tensor& t) {
  std::vector<int64_t> offs(1, 0);
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 1) continue;
    const size_t n = offs.size();
    offs.reserve(n * static_cast<size_t>(t.shape[d]));
    for (int64_t i = 1; i < t.shape[d]; ++i)
      for (size_t j = 0; j < n; ++j) offs.push_back(offs[j] + i * t.strides[d]);
  }
  std::sort(offs.begin(), offs.end());
  return std::adjacent_find(offs.begin(), offs.end()) != offs.end();
}

// Every element's first byte, sorted.
std::vector<uintptr_t> ElementBytes(const bc_tensor& t) {
  const int64_t es = static_cast<int64_t>(DtypeSize(t.dtype));
  std::vector<uintptr_t> offs(1, reinterpret_cast<uintptr_t>(t.data));
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 1) continue;
    const size_t n = offs.size();
    offs.reserve(n * static_cast<size_t>(t.shape[d]));
    for (int64_t i = 1; i < t.shape[d]; ++i)
      for (size_t j = 0; j < n; ++j) offs.push_back(offs[j] + i * t.strides[d] * es);
  }
  std::sort(offs.begin(), offs.end());
  return offs;
}

// Whether an element of `a` and one of `b` share a byte (their ranges of
// bytes intersect). Interleaved views (every other element of one buffer)
// never do; small tensors are checked element by element, larger ones are
// assumed to meet.
bool ElementsMeet(const bc_tensor& a, const bc_tensor& b) {
  if (Numel(a) > kExactOverlapLimit || Numel(b) > kExactOverlapLimit) return true;
  const std::vector<uintptr_t> x = ElementBytes(a), y = ElementBytes(b);
  const uintptr_t ex = DtypeSize(a.dtype), ey = DtypeSize(b.dtype);
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i] + ex <= y[j]) ++i;
    else if (y[j] + ey <= x[i]) ++j;
    else return true;
  }
  return false;
}

}  // namespace

bool HasInternalOverlap(const bc_tensor& t) {
  if (Numel(t) == 0) return false;
  int64_t st[BC_MAX_DIMS], sz[BC_MAX_DIMS];
  int n = 0;
  for (int d = 0; d < t.ndim; ++d) {
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
    if (st[i] < extent) {
      // Interleaved dims may still never meet (as_strided((6,5,6), (21,91,1))):
      // small tensors are checked element by element; larger ones are refused.
      return Numel(t) > kExactOverlapLimit || OffsetsRepeat(t);
    }
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

void CheckOverlap(const bc_tensor& out, const bc_tensor& in) {
  if (Numel(out) == 0 || Numel(in) == 0) return;
  uintptr_t olo, ohi, ilo, ihi;
  ByteRange(out, &olo, &ohi);
  ByteRange(in, &ilo, &ihi);
  if (ohi <= ilo || ihi <= olo) return;
  // Shared memory is fine only as the very elements written, read through
  // broadcasting: `in` must expand to out's shape onto out's own strides.
  bool same = in.data == out.data && in.dtype == out.dtype && in.ndim <= out.ndim;
  const int lead = out.ndim - in.ndim;
  for (int d = 0; d < out.ndim && same; ++d) {
    if (out.shape[d] == 1) continue;
    const int j = d - lead;
    same = j >= 0 && in.shape[j] == out.shape[d] && in.strides[j] == out.strides[d];
  }
  if (!same && ElementsMeet(out, in)) Fail(BC_ERR_OVERLAP, kPartialOverlap);
}

void CheckOverlap(const bc_tensor& out, const bc_tensor& in, const int64_t* in_strides) {
  if (Numel(out) == 0 || Numel(in) == 0) return;
  uintptr_t olo, ohi, ilo, ihi;
  ByteRange(out, &olo, &ohi);
  ByteRange(in, &ilo, &ihi);
  if (ohi <= ilo || ihi <= olo) return;
  bool same = in.data == out.data && in.dtype == out.dtype;
  for (int d = 0; d < out.ndim && same; ++d)
    same = out.shape[d] == 1 || in_strides[d] == out.strides[d];
  if (!same && ElementsMeet(out, in)) Fail(BC_ERR_OVERLAP, kPartialOverlap);
}

}  // namespace bcast
