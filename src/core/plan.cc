#include "core/plan.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "core/dtype.h"
#include "core/settings.h"

namespace bcast {

namespace {

// Below this many elements an op runs on the calling thread only.
constexpr int64_t kGrain = 65536;
// Elements converted per step when an operand's dtype differs from the kernel's
// (4 scratch rows of this many 8-byte values live on the stack: about 33 KiB).
constexpr int64_t kTile = 1024;

}  // namespace

void BuildPlan(const Shape& shape, int nops, bc_tensor* const* tensors,
               const int64_t (*strides)[BC_MAX_DIMS], Plan* p) {
  p->nops = nops;
  for (int k = 0; k < nops; ++k) {
    p->base[k] = tensors[k]->data;
    p->dtype[k] = tensors[k]->dtype;
  }
  // Fastest dim first, size-1 dims dropped.
  int n = 0;
  for (int i = shape.ndim - 1; i >= 0; --i) {
    if (shape.d[i] == 1) continue;
    p->shape[n] = shape.d[i];
    for (int k = 0; k < nops; ++k) p->stride[k][n] = strides[k][i];
    ++n;
  }
  // Sort by the output's stride (insertion sort: stable, n is small), so that
  // a transposed output is still written in memory order.
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0; --j) {
      int64_t a = std::llabs(p->stride[0][j - 1]), b = std::llabs(p->stride[0][j]);
      if (a <= b) break;
      std::swap(p->shape[j - 1], p->shape[j]);
      for (int k = 0; k < nops; ++k) std::swap(p->stride[k][j - 1], p->stride[k][j]);
    }
  }
  // Coalesce neighbours that every operand walks as one run.
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0) {
      bool merge = true;
      for (int k = 0; k < nops && merge; ++k) {
        int64_t run;
        merge = !__builtin_mul_overflow(p->stride[k][m - 1], p->shape[m - 1], &run) &&
                p->stride[k][i] == run;
      }
      if (merge) {
        p->shape[m - 1] *= p->shape[i];
        continue;
      }
    }
    p->shape[m] = p->shape[i];
    for (int k = 0; k < nops; ++k) p->stride[k][m] = p->stride[k][i];
    ++m;
  }
  if (m == 0) {  // a single element
    p->shape[0] = 1;
    for (int k = 0; k < nops; ++k) p->stride[k][0] = 0;
    m = 1;
  }
  p->ndim = m;
}

namespace {

bool NeedsConversion(const Plan& p) {
  for (int k = 0; k < p.nops; ++k)
    if (p.dtype[k] != p.ktype[k] || p.via[k] != p.ktype[k]) return true;
  return false;
}

void RunKernel(const Plan& p, const Block& b) {
  if (p.ternary) RunTernaryKernel(b);
  else RunBinaryKernel(b);
}

// Runs a block whose operands need dtype conversion, a tile at a time,
// through stack buffers in the kernel's types.
void RunConverted(const Plan& p, const Block& b) {
  // Rows staggered by 192 bytes: buffers exactly 4 KiB apart make loads wait
  // on unrelated stores (4K aliasing).
  alignas(64) char scratch[4][kTile * 8 + 192];
  for (int64_t r = 0; r < b.n1; ++r) {
    for (int64_t off = 0; off < b.n0; off += kTile) {
      const int64_t len = std::min(kTile, b.n0 - off);
      Block t = b;
      t.n0 = len;
      t.n1 = 1;
      char* out = nullptr;
      for (int k = 0; k < p.nops; ++k) {
        const size_t es = DtypeSize(p.dtype[k]);
        char* ptr = b.ptr[k] + (r * b.s1[k] + off * b.s0[k]) * static_cast<int64_t>(es);
        if (p.dtype[k] == p.ktype[k] && p.via[k] == p.ktype[k]) {
          t.ptr[k] = ptr;
          continue;
        }
        t.ptr[k] = scratch[k];
        if (k == 0) {
          out = ptr;
          t.s0[0] = 1;
          t.stream = false;  // the tile is read back at once: keep it in L1
        } else if (b.s0[k] == 0) {
          ConvertStridedVia(p.ktype[k], scratch[k], 1, p.via[k], p.dtype[k], ptr, 0, 1);
        } else {
          ConvertStridedVia(p.ktype[k], scratch[k], 1, p.via[k], p.dtype[k], ptr, b.s0[k], len);
          t.s0[k] = 1;
        }
      }
      RunKernel(p, t);
      if (out == nullptr) continue;
      const bool direct = p.via[0] == p.dtype[0] || p.via[0] == p.ktype[0];
      if (!(direct && b.s0[0] == 1 &&
            RunConvertKernel(p.dtype[0], out, p.ktype[0], scratch[0], len, p.stream)))
        ConvertStridedVia(p.dtype[0], out, b.s0[0], p.via[0], p.ktype[0], scratch[0], 1, len);
    }
  }
}

// Runs linear elements [begin, end) of the plan's iteration space.
void RunRange(const Plan& p, bool convert, int64_t begin, int64_t end) {
  int64_t idx[BC_MAX_DIMS] = {};
  int64_t rest = begin;
  for (int d = 0; d < p.ndim; ++d) {
    idx[d] = rest % p.shape[d];
    rest /= p.shape[d];
  }
  const int64_t n0 = p.shape[0];
  int64_t pos = begin;
  while (pos < end) {
    Block b;
    b.op = p.op;
    b.dtype = p.kdtype;
    b.scalar = p.scalar;
    b.stream = p.stream;
    for (int k = 0; k < p.nops; ++k) {
      int64_t off = 0;
      for (int d = 0; d < p.ndim; ++d) off += idx[d] * p.stride[k][d];
      b.ptr[k] = p.base[k] + off * static_cast<int64_t>(DtypeSize(p.dtype[k]));
      b.s0[k] = p.stride[k][0];
      b.s1[k] = p.ndim > 1 ? p.stride[k][1] : 0;
    }
    int64_t done;
    if (idx[0] == 0 && end - pos >= n0 && p.ndim > 1) {
      const int64_t rows = std::min(p.shape[1] - idx[1], (end - pos) / n0);
      b.n0 = n0;
      b.n1 = rows;
      done = rows * n0;
      idx[1] += rows;
    } else {
      const int64_t len = std::min(n0 - idx[0], end - pos);
      b.n0 = len;
      b.n1 = 1;
      done = len;
      idx[0] += len;
    }
    if (convert) RunConverted(p, b);
    else RunKernel(p, b);
    pos += done;
    // Carry into the outer dims.
    for (int d = 0; d + 1 < p.ndim; ++d) {
      if (idx[d] >= p.shape[d]) {
        idx[d] = 0;
        ++idx[d + 1];
      }
    }
  }
}

}  // namespace

int64_t StreamingThreshold() {
  // Virtual machines report the host's whole L3 (hundreds of MiB) although a
  // guest gets a slice of it: never wait past 16 MiB.
  static const int64_t bytes = [] {
    const int64_t cap = int64_t{16} << 20;
    const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return llc > 0 && llc < cap ? static_cast<int64_t>(llc) : cap;
  }();
  return bytes;
}

void Execute(const Plan& p) {
  int64_t numel = 1;
  for (int d = 0; d < p.ndim; ++d) numel *= p.shape[d];
  if (numel == 0) return;
  const bool convert = NeedsConversion(p);
  int64_t threads = std::min<int64_t>(NumThreads(), numel / kGrain);
  if (threads <= 1 || omp_in_parallel()) {
    RunRange(p, convert, 0, numel);
    return;
  }
  // Chunk boundaries on 64-element multiples keep threads off each other's cache lines.
  int64_t chunk = (numel + threads - 1) / threads;
  chunk = (chunk + 63) / 64 * 64;
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    const int64_t t = omp_get_thread_num();
    const int64_t begin = std::min(numel, t * chunk);
    const int64_t end = std::min(numel, begin + chunk);
    if (begin < end) RunRange(p, convert, begin, end);
  }
}

}  // namespace bcast
