// sum_to_shape: the reduction that undoes a broadcast.
#include <algorithm>
#include <cstring>

#include "core/dtype.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/reduce.h"
#include "core/context.h"
#include "core/parallel.h"
#include "core/shape.h"

namespace bcast {

namespace {

template <typename Acc>
void SumTo(const bc_ctx& ctx, const bc_tensor& t, const Shape& aligned, bc_tensor* out) {
  // Kept dims (aligned size == input size) index the output; reduced dims are
  // walked in row-major order for every output element, so the summation
  // order never depends on the thread count.
  int kept[BC_MAX_DIMS], red[BC_MAX_DIMS], nk = 0, nr = 0;
  for (int d = 0; d < t.ndim; ++d) {
    if (aligned.d[d] == t.shape[d]) kept[nk++] = d;
    else red[nr++] = d;
  }
  const int64_t nout = Numel(*out);
  if (Numel(t) == 0) {  // every sum is empty (and the sizes may be huge)
    std::memset(out->data, 0, static_cast<size_t>(nout) * DtypeSize(out->dtype));
    return;
  }
  int64_t nred = 1;
  for (int i = 0; i < nr; ++i) nred *= t.shape[red[i]];
  const size_t es = DtypeSize(t.dtype);
  // One output element per loop step; chunks of them go to threads.
  const auto sum_one = [&](int64_t o) {
    int64_t base = 0, rest = o;
    for (int i = nk - 1; i >= 0; --i) {
      const int d = kept[i];
      base += (rest % t.shape[d]) * t.strides[d];
      rest /= t.shape[d];
    }
    Acc acc = 0;
    int64_t idx[BC_MAX_DIMS] = {};
    for (int64_t r = 0; r < nred; ++r) {
      int64_t off = base;
      for (int i = 0; i < nr; ++i) off += idx[i] * t.strides[red[i]];
      const char* p = t.data + off * static_cast<int64_t>(es);
      VisitDtype(t.dtype, [&](auto v) {
        using T = decltype(v);
        T x;
        std::memcpy(&x, p, sizeof(T));
        if constexpr (std::is_same_v<Acc, double>) {
          acc += Convert<double>(x);
        } else {
          acc = static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                     static_cast<uint64_t>(Convert<int64_t>(x)));
        }
      });
      for (int i = nr - 1; i >= 0; --i) {
        if (++idx[i] < t.shape[red[i]]) break;
        idx[i] = 0;
      }
    }
    VisitDtype(out->dtype, [&](auto v) {
      using T = decltype(v);
      const T r = Convert<T>(acc);
      std::memcpy(out->data + o * static_cast<int64_t>(sizeof(T)), &r, sizeof(T));
    });
  };
  struct Task {
    decltype(sum_one)* f;
    int64_t nout, per_chunk;
  };
  const int threads = nout > 1 && nout * nred >= 65536 ? NumThreads(ctx) : 1;
  const size_t nchunks = std::min<size_t>(ChunkCount(threads), static_cast<size_t>(nout));
  Task task{&sum_one, nout, (nout + static_cast<int64_t>(nchunks) - 1) / static_cast<int64_t>(nchunks)};
  ParallelChunks(ctx, threads, nchunks, [](void* p, size_t i) {
    const Task& t = *static_cast<const Task*>(p);
    const int64_t begin = static_cast<int64_t>(i) * t.per_chunk;
    const int64_t end = std::min(t.nout, begin + t.per_chunk);
    for (int64_t o = begin; o < end; ++o) (*t.f)(o);
  }, &task);
}

}  // namespace

bc_tensor* SumToShape(const bc_ctx& ctx, const bc_tensor& t, const Shape& target) {
  bool ok = target.ndim <= t.ndim;
  Shape aligned;
  aligned.ndim = t.ndim;
  for (int d = 0; d < t.ndim && ok; ++d) {
    const int j = d - (t.ndim - target.ndim);
    aligned.d[d] = j < 0 ? 1 : target.d[j];
    ok = aligned.d[d] == 1 || aligned.d[d] == t.shape[d];
  }
  if (!ok) {
    Fail(BC_ERR_SHAPE_MISMATCH, "size {" + FormatShape(target) + "} is not expandable to size {" +
                                    FormatShape(ShapeOf(t)) + "}.");
  }
  // PyTorch's sum_to: with nothing reduced the tensor comes back as it is
  // (its dtype kept); a reduction (any leading dim, any size-1 target dim
  // over a larger one, or the empty target: a full sum) sums integers and
  // bool into int64.
  bool reduces = target.ndim == 0 || target.ndim < t.ndim;
  for (int d = 0; d < t.ndim; ++d) reduces |= aligned.d[d] == 1 && t.shape[d] != 1;
  const bc_dtype rd = IsFloating(t.dtype) || !reduces ? t.dtype : BC_INT64;
  bc_tensor* out = NewTensor(rd, target);
  if (!reduces) {
    CopyElements(ctx, *out, t);
    return out;
  }
  if (IsFloating(t.dtype)) SumTo<double>(ctx, t, aligned, out);
  else SumTo<int64_t>(ctx, t, aligned, out);
  return out;
}

}  // namespace bcast
