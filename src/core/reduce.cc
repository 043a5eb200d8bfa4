// The reduction executor: any dims of any layout, every op through the same
// plan. It never knows the op: reduce_rules.cc gives the dtypes, the passes
// and what the accumulators become; the kernels (kernels_reduce.cc) add up
// contiguous runs or rows.
//
// The plan sorts the input's dims by stride (memory order) and merges
// neighbours of the same kind (kept or reduced). When the innermost dim is
// reduced, each output adds up runs of it; when it is kept, its elements are
// columns of rows and each row is added into a tile of outputs at once.
//
// The order of the additions depends only on the layout, never on the
// thread count: runs (rows) are cut into segments of a fixed size, each
// added into a fresh accumulator; a fixed number of segments make a group,
// merged in order; an output merges its groups in order. Threads take
// outputs (tiles of outputs) or, when there are too few, groups.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/overlap.h"
#include "core/parallel.h"
#include "core/reduce.h"
#include "core/shape.h"

namespace bcast {

namespace {

constexpr int64_t kSegment = 16 * kReduceBlock;  // elements of a run per segment
constexpr int64_t kRowBlock = kReduceRowBlock;    // rows per kernel call
constexpr int64_t kRowSegment = 32 * kRowBlock;  // rows per segment
static_assert(kRowSegment % kReduceRowBlockExact == 0, "calls do not cross a segment");
constexpr int64_t kGroup = 16;                   // segments per group
constexpr int64_t kColChunk = 4096;              // columns per work item, at most (whole rows)
constexpr int64_t kMinColChunk = 64;             // ... and at least, where there are more
constexpr int64_t kGrain = 32768;                // elements worth a thread

// The dtype a pass's kernel reads: the compute dtype where a kernel takes it
// (the halves only for sums), else float32.
bc_dtype KernelDtype(ReduceKind kind, bc_dtype c) {
  return IsHalf(c) && FindReduceKernel(kind, c).run == nullptr ? BC_FLOAT32 : c;
}

ReduceAcc Fresh(ReduceKind k) {
  ReduceAcc a;
  if (k == kRProd) a.s = 1, a.i = 1;
  if (k == kRMax) a.i = std::numeric_limits<int64_t>::min();
  if (k == kRMin) a.i = std::numeric_limits<int64_t>::max();
  return a;
}

// into += from, `from` being the accumulator of what follows `into`'s
// elements in the sequence.
void Merge(ReduceKind k, ReduceAcc* into, const ReduceAcc& from) {
  switch (k) {
    case kRSum: case kRNanSum: case kRSumSqDev: case kRSumExp: {
      const double t = into->s + from.s;
      double err = 0;
      if (std::isfinite(t)) {
        const double bp = t - into->s;
        err = (into->s - (t - bp)) + (from.s - bp);
      }
      into->s = t;
      into->c = (into->c + from.c) + err;
      into->i = static_cast<int64_t>(static_cast<uint64_t>(into->i) + static_cast<uint64_t>(from.i));
      break;
    }
    case kRProd:
      into->s *= from.s;
      into->i = static_cast<int64_t>(static_cast<uint64_t>(into->i) * static_cast<uint64_t>(from.i));
      break;
    case kRMax: into->i = std::max(into->i, from.i); break;
    case kRMin: into->i = std::min(into->i, from.i); break;
    case kRArgMax: case kRArgMin:
      if (from.j >= 0 && (into->j < 0 || (k == kRArgMax ? from.i > into->i : from.i < into->i))) *into = from;
      break;
    case kRCountNonzero: case kRCountNotNan: into->i += from.i; break;
    case kRNumKinds: break;
  }
}

struct Dim {
  int64_t size, stride, ostride, ostride2;
};

// The input's dims in memory order (outermost first), size-1 dims dropped,
// neighbours of one kind merged.
struct Plan {
  Dim k[BC_MAX_DIMS], r[BC_MAX_DIMS];  // kept, reduced
  int nk = 0, nr = 0;
  bool inner = false;  // the innermost dim is reduced
  int64_t nout = 1, nred = 1;
};

// `ostride` (and `ostride2`, a second output's, or nullptr): the output's
// element strides per input dim (reduced dims: ignored).
Plan MakePlan(const bc_tensor& x, uint64_t mask, const int64_t* ostride, const int64_t* ostride2 = nullptr) {
  struct D {
    Dim dim;
    bool red;
  } d[BC_MAX_DIMS];
  int n = 0;
  for (int i = 0; i < x.ndim; ++i) {
    if (x.shape[i] == 1) continue;
    const bool red = mask >> i & 1;
    d[n++] = {{x.shape[i], x.strides[i], red ? 0 : ostride[i], red || !ostride2 ? 0 : ostride2[i]}, red};
  }
  // A stable insertion sort: std::stable_sort may allocate (and would hide
  // a failed allocation by sorting another way).
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0 && std::abs(d[j - 1].dim.stride) < std::abs(d[j].dim.stride); --j) std::swap(d[j - 1], d[j]);
  }
  Plan p;
  for (int i = 0; i < n; ++i) {
    Dim* list = d[i].red ? p.r : p.k;
    int& cnt = d[i].red ? p.nr : p.nk;
    const Dim& c = d[i].dim;
    bool merge = i > 0 && d[i - 1].red == d[i].red && cnt > 0;
    int64_t s0 = 0, s1 = 0, s2 = 0, size = 0;  // an empty tensor's sizes and strides may overflow
    if (merge) {
      const Dim& prev = list[cnt - 1];
      merge = !__builtin_mul_overflow(c.stride, c.size, &s0) && !__builtin_mul_overflow(c.ostride, c.size, &s1) &&
              !__builtin_mul_overflow(c.ostride2, c.size, &s2) && !__builtin_mul_overflow(prev.size, c.size, &size) &&
              prev.stride == s0 && prev.ostride == s1 && prev.ostride2 == s2;
    }
    if (merge) {
      Dim& prev = list[cnt - 1];
      prev = {size, c.stride, c.ostride, c.ostride2};
    } else {
      list[cnt++] = c;
    }
  }
  p.inner = n > 0 && d[n - 1].red;
  if (!p.inner && p.nk == 0) p.k[p.nk++] = {1, 0, 0, 0};  // one output of one element
  // A size 0 anywhere makes the product 0 (the other sizes may be huge).
  auto product = [](const Dim* dims, int n) {
    int64_t r = 1;
    for (int i = 0; i < n; ++i) r = dims[i].size == 0 ? 0 : r;
    for (int i = 0; i < n && r != 0; ++i) r *= dims[i].size;
    return r;
  };
  // The output's count fits (it was allocated); the reduced dims' may not
  // when there is no output element (x of shape (25, 2^62, 0) summed over
  // its first two dims), and then nothing is reduced.
  p.nout = product(p.k, p.nk);
  p.nred = p.nout == 0 ? 0 : product(p.r, p.nr);
  return p;
}

// Offsets (in elements) of index `idx` over dims[0..n) in row-major order:
// the input's, and the output's (`out`, `out2`: may be nullptr).
// idx < the product of the sizes: the outermost dim takes what is left
// without a division (with one dim, none at all: OuterGroup's rows).
// Summed modulo 2^64: an input with no element to reduce may have any
// strides (its offsets, never used, need not fit); every offset that is
// used fits and comes out exact.
void OffsetOf(const Dim* dims, int n, int64_t idx, int64_t* in, int64_t* out, int64_t* out2 = nullptr) {
  uint64_t a = 0, b = 0, c = 0;
  for (int i = n - 1; i >= 0; --i) {
    const int64_t q = i == 0 ? idx : idx % dims[i].size;
    if (i > 0) idx /= dims[i].size;
    const uint64_t uq = static_cast<uint64_t>(q);
    a += uq * static_cast<uint64_t>(dims[i].stride);
    b += uq * static_cast<uint64_t>(dims[i].ostride);
    c += uq * static_cast<uint64_t>(dims[i].ostride2);
  }
  *in = static_cast<int64_t>(a);
  if (out) *out = static_cast<int64_t>(b);
  if (out2) *out2 = static_cast<int64_t>(c);
}

// One pass of one accumulation kind over the plan.
struct Pass {
  const bc_ctx* ctx;
  const Plan* p;
  const bc_tensor* x;
  bc_dtype via, kdtype;  // x converts to `via`, then to the kernel's dtype
  ReduceKind kind;
  ReduceKernel kern;
  const double* centers;  // per output, or nullptr
  bool direct;            // runs/rows are the kernel's already (no conversion, stride 1)
  int64_t call_rows;      // rows per kernel call where they are read in place
  size_t es, kes;         // element sizes of x and of the kernel dtype
};

// A pass of `kind` over x converted to `compute` (its kernel dtype: the
// halves as float32 for the kinds without a half kernel).
Pass MakePass(const bc_ctx& ctx, const Plan& plan, const bc_tensor& x, bc_dtype compute, ReduceKind kind) {
  Pass ps;
  ps.ctx = &ctx;
  ps.p = &plan;
  ps.x = &x;
  ps.via = compute;
  ps.kdtype = KernelDtype(kind, compute);
  ps.kind = kind;
  ps.kern = FindReduceKernel(kind, ps.kdtype);
  if (ps.kern.run == nullptr) Fail(BC_ERR_INTERNAL, "no reduction kernel");
  ps.centers = nullptr;
  ps.direct = x.dtype == compute && compute == ps.kdtype;
  // A floating sum's calls fix its order (a call's total goes into the
  // accumulator); the other kinds give the same result however rows are
  // split into calls. Those of 1- and 2-byte elements, which the kernel
  // reads row by row, take more rows a call: their accumulators (32 bytes
  // a column) are then read and written a quarter as often; for 1-byte
  // elements they were as many bytes as the rows'. uint8 amax and
  // count_nonzero over dim 0 of (1024,4096), 1 thread, Intel Xeon VM:
  // 10-12% less time. Wider elements, read a block of columns at a time
  // down the rows, were 20-40% slower with 128 rows a call (more rows to
  // prefetch the next block of than the core keeps in flight).
  const bool float_sum = (kind == kRSum || kind == kRNanSum || kind == kRSumSqDev || kind == kRSumExp) &&
                         IsFloating(ps.kdtype);
  ps.call_rows = float_sum || DtypeSize(ps.kdtype) > 2 ? kRowBlock : kReduceRowBlockExact;
  ps.es = DtypeSize(x.dtype);
  ps.kes = DtypeSize(ps.kdtype);
  return ps;
}

// A run segment (inner plans) as the kernel wants it: x's elements, or
// converted/gathered into `scratch`.
const void* Source(const Pass& ps, int64_t off, int64_t stride, int64_t n, void* scratch) {
  const char* src = ps.x->data + off * static_cast<int64_t>(ps.es);
  if (ps.direct && stride == 1) return src;
  ConvertStridedVia(ps.kdtype, scratch, 1, ps.via, ps.x->dtype, src, stride, n);
  return scratch;
}

// ---- inner plans: one output adds runs of the innermost (reduced) dim ----

struct Inner {
  const Pass* ps;
  int64_t runs, n0, s0, segs_per_run, units, groups;
};

// Unit (run segment) u of output o (in-offset base), into a fresh accumulator.
ReduceAcc InnerUnit(const Inner& in, int64_t o, int64_t base, int64_t u, char* scratch) {
  const Pass& ps = *in.ps;
  const Plan& p = *ps.p;
  const int64_t q = u / in.segs_per_run, sg = u % in.segs_per_run;
  int64_t roff;
  OffsetOf(p.r, p.nr - 1, q, &roff, nullptr);
  const int64_t first = sg * kSegment, len = std::min(kSegment, in.n0 - first);
  const int64_t off = base + roff + first * in.s0;
  ReduceAcc a = Fresh(ps.kind);
  ps.kern.run(Source(ps, off, in.s0, len, scratch), len, q * in.n0 + first, ps.centers ? ps.centers[o] : 0.0, &a);
  return a;
}

// Units [u0, u1) of output o into a fresh group accumulator.
ReduceAcc InnerGroup(const Inner& in, int64_t o, int64_t base, int64_t u0, int64_t u1, char* scratch) {
  ReduceAcc g = Fresh(in.ps->kind);
  for (int64_t u = u0; u < u1; ++u) Merge(in.ps->kind, &g, InnerUnit(in, o, base, u, scratch));
  return g;
}

// ---- outer plans: rows of the innermost (kept) dim's columns ------------

struct Outer {
  const Pass* ps;
  int64_t nko, m, sm, chunks, rows, segs, groups;
};

// Row segments [s0, s1) of item (ko, chunk) into fresh accumulators `g`
// (ncols of them); `seg`: room for ncols more (a segment's own, merged into
// g after it; a lone segment adds into g directly, which is the same: a
// merge into a fresh accumulator is exact).
void OuterGroup(const Outer& ou, int64_t base, int64_t col0, int64_t ncols, const double* centers,
                int64_t s0, int64_t s1, ReduceAcc* g, ReduceAcc* seg, char* scratch) {
  const Pass& ps = *ou.ps;
  const Plan& p = *ps.p;
  const ReduceAcc fresh = Fresh(ps.kind);
  for (int64_t c = 0; c < ncols; ++c) g[c] = fresh;
  ReduceAcc* a = s1 - s0 == 1 ? g : seg;
  const char* rowp[kReduceRowBlockExact];
  const bool in_place = ps.direct && ou.sm == 1;
  const int64_t call_rows = in_place ? ps.call_rows : kRowBlock;  // scratch holds kRowBlock rows
  for (int64_t sg = s0; sg < s1; ++sg) {
    if (a != g) {
      for (int64_t c = 0; c < ncols; ++c) a[c] = fresh;
    }
    const int64_t r0 = sg * kRowSegment, r1 = std::min(ou.rows, r0 + kRowSegment);
    for (int64_t b = r0; b < r1; b += call_rows) {
      const int64_t nb = std::min(call_rows, r1 - b);
      for (int64_t r = 0; r < nb; ++r) {
        int64_t roff;
        OffsetOf(p.r, p.nr, b + r, &roff, nullptr);
        const int64_t off = base + roff + col0 * ou.sm;
        if (in_place) {
          rowp[r] = ps.x->data + off * static_cast<int64_t>(ps.es);
        } else {
          char* dst = scratch + r * ncols * static_cast<int64_t>(ps.kes);
          ConvertStridedVia(ps.kdtype, dst, 1, ps.via, ps.x->dtype,
                            ps.x->data + off * static_cast<int64_t>(ps.es), ou.sm, ncols);
          rowp[r] = dst;
        }
      }
      ps.kern.cols(rowp, nb, ncols, b, centers, a);
    }
    if (a != g) {
      for (int64_t c = 0; c < ncols; ++c) Merge(ps.kind, &g[c], a[c]);
    }
  }
}

int ThreadsFor(const bc_ctx& ctx, int64_t work) {
  const int64_t want = std::max<int64_t>(1, work / kGrain);
  return static_cast<int>(std::min<int64_t>(NumThreads(ctx), want));
}

template <class F>
void ForChunks(const bc_ctx& ctx, int threads, int64_t n, F&& f) {
  if (n <= 0) return;
  if (threads <= 1 || n == 1) {
    f(int64_t{0}, n);
    return;
  }
  struct Task {
    F* f;
    int64_t n, per;
  };
  const size_t nchunks = std::min<size_t>(ChunkCount(threads), static_cast<size_t>(n));
  Task t{&f, n, (n + static_cast<int64_t>(nchunks) - 1) / static_cast<int64_t>(nchunks)};
  ParallelChunks(ctx, threads, nchunks, [](void* v, size_t i) {
    const Task& t = *static_cast<const Task*>(v);
    const int64_t b = static_cast<int64_t>(i) * t.per;
    if (b < t.n) (*t.f)(b, std::min(t.n, b + t.per));
  }, &t);
}

// Runs one pass; sink(o, count, in_offset, acc) gets the accumulators of
// `count` outputs o, o + 1, ... (o being an index in the plan's kept
// order): consecutive along the innermost kept dim, the first at input
// offset in_offset, the next ones a step of that dim's stride further.
template <class Sink>
void RunPass(const Pass& ps, Sink&& sink) {
  const Plan& p = *ps.p;
  const bc_ctx& ctx = *ps.ctx;
  const int64_t total = p.nout * p.nred;
  if (p.nout == 0) return;
  if (p.nred == 0) {  // nothing to add: every output is its empty accumulator
    const ReduceAcc fresh = Fresh(ps.kind);
    for (int64_t o = 0; o < p.nout; ++o) {
      int64_t in;
      OffsetOf(p.k, p.nk, o, &in, nullptr);
      sink(o, int64_t{1}, in, &fresh);
    }
    return;
  }
  const int threads = ThreadsFor(ctx, total);
  // Work items wanted: enough for ParallelChunks to balance the threads.
  const int64_t want = threads > 1 ? static_cast<int64_t>(ChunkCount(threads)) : 1;
  if (p.inner) {
    Inner in{&ps, 1, p.r[p.nr - 1].size, p.r[p.nr - 1].stride, 0, 0, 0};
    for (int i = 0; i + 1 < p.nr; ++i) in.runs *= p.r[i].size;
    in.segs_per_run = (in.n0 + kSegment - 1) / kSegment;
    in.units = in.runs * in.segs_per_run;
    in.groups = (in.units + kGroup - 1) / kGroup;
    const size_t scratch_bytes = static_cast<size_t>(std::min(kSegment, in.n0)) * ps.kes;
    if (p.nout >= want || in.units == 1) {
      ForChunks(ctx, threads, p.nout, [&](int64_t o0, int64_t o1) {
        std::unique_ptr<char[]> scratch(new char[scratch_bytes + 64]);
        for (int64_t o = o0; o < o1; ++o) {
          int64_t base;
          OffsetOf(p.k, p.nk, o, &base, nullptr);
          ReduceAcc acc = Fresh(ps.kind);
          for (int64_t g = 0; g < in.groups; ++g) {
            Merge(ps.kind, &acc, InnerGroup(in, o, base, g * kGroup, std::min(in.units, (g + 1) * kGroup),
                                            scratch.get()));
          }
          sink(o, int64_t{1}, base, &acc);
        }
      });
    } else {  // few outputs: threads take units (run segments), merged group by group as InnerGroup would
      std::vector<ReduceAcc> uacc(static_cast<size_t>(p.nout * in.units));
      ForChunks(ctx, threads, p.nout * in.units, [&](int64_t w0, int64_t w1) {
        std::unique_ptr<char[]> scratch(new char[scratch_bytes + 64]);
        for (int64_t w = w0; w < w1; ++w) {
          const int64_t o = w / in.units;
          int64_t base;
          OffsetOf(p.k, p.nk, o, &base, nullptr);
          uacc[static_cast<size_t>(w)] = InnerUnit(in, o, base, w % in.units, scratch.get());
        }
      });
      for (int64_t o = 0; o < p.nout; ++o) {
        int64_t base;
        OffsetOf(p.k, p.nk, o, &base, nullptr);
        ReduceAcc acc = Fresh(ps.kind);
        for (int64_t g = 0; g < in.groups; ++g) {
          ReduceAcc ga = Fresh(ps.kind);
          for (int64_t u = g * kGroup; u < std::min(in.units, (g + 1) * kGroup); ++u)
            Merge(ps.kind, &ga, uacc[static_cast<size_t>(o * in.units + u)]);
          Merge(ps.kind, &acc, ga);
        }
        sink(o, int64_t{1}, base, &acc);
      }
    }
    return;
  }
  // Outer: the innermost kept dim's elements are columns.
  Outer ou{&ps, 1, p.k[p.nk - 1].size, p.k[p.nk - 1].stride, 0, p.nred, 0, 0};
  for (int i = 0; i + 1 < p.nk; ++i) ou.nko *= p.k[i].size;
  ou.segs = (ou.rows + kRowSegment - 1) / kRowSegment;
  // Columns per item: all (up to kColChunk), halved down to kMinColChunk
  // while there are fewer (item, segment) pairs than chunks wanted (a
  // column's sum does not depend on which columns share its item). Rows are
  // split first: narrower items read shorter runs of each row, which was
  // slower (float32 (4096,1024) over dim 0 on 2 threads: 0.55 -> 0.80 ms at
  // 128 columns; float32 (1024,4096) over dim 0 on 1 thread, Intel Xeon VM:
  // 0.90 -> 0.72 ms from 512 to 4096 columns).
  int64_t cw = std::min(kColChunk, ou.m);
  while (cw > kMinColChunk && ou.nko * ((ou.m + cw - 1) / cw) * ou.segs < want) cw /= 2;
  ou.chunks = (ou.m + cw - 1) / cw;
  ou.groups = (ou.segs + kGroup - 1) / kGroup;
  const int64_t items = ou.nko * ou.chunks;
  // (rows read in place need no scratch)
  const size_t scratch_bytes =
      ps.direct && ou.sm == 1 ? 0 : static_cast<size_t>(kRowBlock * cw) * ps.kes;  // cw <= m
  auto item_geometry = [&](int64_t it, int64_t* base, int64_t* col0, int64_t* ncols, int64_t* o0) {
    const int64_t ko = it / ou.chunks, ch = it % ou.chunks;
    OffsetOf(p.k, p.nk - 1, ko, base, nullptr);
    *col0 = ch * cw;
    *ncols = std::min(cw, ou.m - *col0);
    *o0 = ko * ou.m + *col0;  // the plan's output index of the first column
  };
  const ReduceAcc fresh = Fresh(ps.kind);
  if (items >= want || ou.segs == 1) {
    ForChunks(ctx, threads, items, [&](int64_t i0, int64_t i1) {
      std::unique_ptr<char[]> scratch(new char[scratch_bytes + 64]);
      std::vector<ReduceAcc> acc(static_cast<size_t>(3 * cw));
      ReduceAcc* g = acc.data() + cw;
      ReduceAcc* seg = g + cw;
      for (int64_t it = i0; it < i1; ++it) {
        int64_t base, col0, ncols, o0;
        item_geometry(it, &base, &col0, &ncols, &o0);
        const double* centers = ps.centers ? ps.centers + o0 : nullptr;
        if (ou.groups == 1) {  // (a merge into a fresh accumulator is exact)
          OuterGroup(ou, base, col0, ncols, centers, 0, ou.segs, acc.data(), seg, scratch.get());
        } else {
          for (int64_t c = 0; c < ncols; ++c) acc[static_cast<size_t>(c)] = fresh;
          for (int64_t gi = 0; gi < ou.groups; ++gi) {
            OuterGroup(ou, base, col0, ncols, centers, gi * kGroup, std::min(ou.segs, (gi + 1) * kGroup), g, seg,
                       scratch.get());
            for (int64_t c = 0; c < ncols; ++c) Merge(ps.kind, &acc[static_cast<size_t>(c)], g[c]);
          }
        }
        sink(o0, ncols, base + col0 * ou.sm, acc.data());
      }
    });
    return;
  }
  // Few items: threads take (item, group) pairs, or where those are fewer
  // than the chunks wanted, (item, segment) pairs, whose accumulators are
  // then merged into groups as OuterGroup does (a lone segment is its group).
  const bool by_seg = items * ou.groups < want;
  const int64_t per = by_seg ? ou.segs : ou.groups, work = items * per;
  std::vector<ReduceAcc> gacc(static_cast<size_t>(work * cw));
  ForChunks(ctx, threads, work, [&](int64_t w0, int64_t w1) {
    std::unique_ptr<char[]> scratch(new char[scratch_bytes + 64]);
    std::vector<ReduceAcc> seg(static_cast<size_t>(cw));
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t it = w / per, u = w % per;
      int64_t base, col0, ncols, o0;
      item_geometry(it, &base, &col0, &ncols, &o0);
      const double* centers = ps.centers ? ps.centers + o0 : nullptr;
      const int64_t s0 = by_seg ? u : u * kGroup, s1 = by_seg ? u + 1 : std::min(ou.segs, (u + 1) * kGroup);
      OuterGroup(ou, base, col0, ncols, centers, s0, s1, gacc.data() + w * cw, seg.data(), scratch.get());
    }
  });
  std::vector<ReduceAcc> acc(static_cast<size_t>(2 * cw));
  ReduceAcc* g = acc.data() + cw;
  for (int64_t it = 0; it < items; ++it) {
    int64_t base, col0, ncols, o0;
    item_geometry(it, &base, &col0, &ncols, &o0);
    for (int64_t c = 0; c < ncols; ++c) acc[static_cast<size_t>(c)] = fresh;
    for (int64_t gi = 0; gi < ou.groups; ++gi) {
      const int64_t s0 = gi * kGroup, s1 = std::min(ou.segs, (gi + 1) * kGroup);
      const ReduceAcc* from = gacc.data() + (it * per + (by_seg ? s0 : gi)) * cw;
      if (by_seg && s1 - s0 > 1) {  // the group's segments, merged in order
        for (int64_t c = 0; c < ncols; ++c) g[c] = fresh;
        for (int64_t sg = 0; sg < s1 - s0; ++sg)
          for (int64_t c = 0; c < ncols; ++c) Merge(ps.kind, &g[c], from[sg * cw + c]);
        from = g;
      }
      for (int64_t c = 0; c < ncols; ++c) Merge(ps.kind, &acc[static_cast<size_t>(c)], from[c]);
    }
    sink(o0, ncols, base + col0 * ou.sm, acc.data());
  }
}

// float64 to float32 rounded to odd: a second rounding to a half type is
// then the correct rounding of the float64 value.
float ToOddF32(double v) {
  float f = static_cast<float>(v);
  if (std::isfinite(f) && static_cast<double>(f) != v) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    if ((b & 1) == 0) {
      b += std::fabs(static_cast<double>(f)) < std::fabs(v) ? 1 : -1;
      std::memcpy(&f, &b, sizeof b);
    }
  }
  return f;
}

// StoreValues' loop for one dtype, with its arguments its own (StoreEach).
template <typename T>
void StoreMixed(char* q, int64_t step, const char* is_float, const double* f, const int64_t* i, int64_t n) {
  for (int64_t k = 0; k < n; ++k, q += step) {
    const T v = is_float[k] ? Convert<T>(f[k]) : Convert<T>(i[k]);
    std::memcpy(q, &v, sizeof v);
  }
}

// Outputs k < n at p + k * step (bytes): f[k] where is_float[k], else i[k].
void StoreValues(bc_dtype d, char* p, int64_t step, const char* is_float, const double* f, const int64_t* i,
                 int64_t n) {
  switch (d) {
    case BC_FLOAT16:
    case BC_BFLOAT16:
      for (int64_t k = 0; k < n; ++k) {
        uint16_t h;
        if (d == BC_FLOAT16) h = is_float[k] ? F32ToF16(ToOddF32(f[k])) : Convert<f16>(i[k]).bits;
        else h = is_float[k] ? F32ToBF16(ToOddF32(f[k])) : Convert<bf16>(i[k]).bits;
        std::memcpy(p + k * step, &h, 2);
      }
      return;
    default:
      VisitDtype(d, [&](auto t) { StoreMixed<decltype(t)>(p, step, is_float, f, i, n); });
  }
}

// Outputs k < n at q + k * step (bytes): value(acc[k].i). The arguments
// are the loop's own, so that the byte stores do not make the compiler
// reload them (as it must for a lambda's captures) every element.
template <typename T, class Value>
void StoreEach(char* q, int64_t step, const ReduceAcc* acc, int64_t n, Value value) {
  for (int64_t k = 0; k < n; ++k, q += step) {
    const T v = value(acc[k].i);
    std::memcpy(q, &v, sizeof v);
  }
}

// Outputs k < n at p + k * step (bytes): the values of the max/min keys
// acc[k].i of compute dtype c (amax, amin), converted as FinishKey and
// StoreValues convert them; not for the halves' outputs. float32 and
// float64 keys are decoded with their dtype known.
void StoreKeys(bc_dtype d, bc_dtype c, char* p, int64_t step, const ReduceAcc* acc, int64_t n) {
  VisitDtype(d, [&](auto t) {
    using T = decltype(t);
    switch (c) {
      case BC_FLOAT32:
        return StoreEach<T>(p, step, acc, n, [](int64_t i) { return Convert<T>(KeyToDouble(i, BC_FLOAT32)); });
      case BC_FLOAT64:
        return StoreEach<T>(p, step, acc, n, [](int64_t i) { return Convert<T>(KeyToDouble(i, BC_FLOAT64)); });
      default:
        if (IsFloating(c)) return StoreEach<T>(p, step, acc, n, [c](int64_t i) { return Convert<T>(KeyToDouble(i, c)); });
        return StoreEach<T>(p, step, acc, n, [](int64_t i) { return Convert<T>(i); });
    }
  });
}

// Output strides (elements) per input dim for an out tensor that keeps the
// reduced dims (keepdim) or drops them; reduced dims get 0.
void OutStrides(const bc_tensor& x, uint64_t mask, bool keepdim, const bc_tensor& out, int64_t* os) {
  int j = 0;
  for (int d = 0; d < x.ndim; ++d) {
    const bool red = mask >> d & 1;
    if (keepdim) {
      os[d] = red ? 0 : out.strides[d];
    } else {
      os[d] = red ? 0 : out.strides[j];
      j += red ? 0 : 1;
    }
  }
}

Shape ResultShape(const bc_tensor& x, uint64_t mask, bool keepdim) {
  Shape s;
  s.ndim = 0;
  for (int d = 0; d < x.ndim; ++d) {
    if (!(mask >> d & 1)) s.d[s.ndim++] = x.shape[d];
    else if (keepdim) s.d[s.ndim++] = 1;
  }
  return s;
}

void CheckOut(const bc_tensor& out, const Shape& want, const bc_tensor& x) {
  if (!SameShape(ShapeOf(out), want))
    Fail(BC_ERR_SHAPE_MISMATCH, "output with shape " + FormatShape(ShapeOf(out)) +
                                    " doesn't match the broadcast shape " + FormatShape(want));
  if (Numel(out) > 1 && HasInternalOverlap(out)) FailInternalOverlap();
  uintptr_t a0, a1, b0, b1;
  ByteRange(out, &a0, &a1);
  ByteRange(x, &b0, &b1);
  if (Numel(out) > 0 && Numel(x) > 0 && a0 < b1 && b0 < a1)
    Fail(BC_ERR_OVERLAP,
         "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
         "single memory location. Please clone() the tensor before performing the operation.");
}

// A contiguous copy of x (arg ops over several dims index the row-major
// flattened tensor, which the plan's memory order may not follow).
bc_tensor* ContiguousCopy(const bc_ctx& ctx, const bc_tensor& x) {
  bc_tensor* c = NewTensor(x.dtype, ShapeOf(x));
  CopyElements(ctx, *c, x);
  return c;
}

// NaN elements of a contiguous floating tensor become +0.
void ZeroNans(bc_tensor* t) {
  const int64_t n = Numel(*t);
  VisitDtype(t->dtype, [&](auto v) {
    using T = decltype(v);
    for (int64_t i = 0; i < n; ++i) {
      T e;
      std::memcpy(&e, t->data + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
      const double d = Convert<double>(e);
      if (d != d) {
        const T z = Convert<T>(0.0);
        std::memcpy(t->data + i * static_cast<int64_t>(sizeof(T)), &z, sizeof(T));
      }
    }
  });
}

// The whole reduction of x over `mask` into out (already checked), the
// kept dims of x at out's element strides `ostride` (per x dim).
void Reduce(const ReduceArgs& a, const bc_tensor& x, uint64_t mask, const ReduceTypes& t,
            const ReduceRecipe& r, bc_tensor& out, const int64_t* ostride) {
  const bc_ctx& ctx = *a.ctx;
  Plan plan = MakePlan(x, mask, ostride);
  Pass ps = MakePass(ctx, plan, x, t.compute, r.first);
  const int64_t n = plan.nred;
  char* od = out.data;
  const int64_t oes = static_cast<int64_t>(DtypeSize(out.dtype));
  // The outputs of one sink call: consecutive along the innermost kept dim.
  const int64_t ostep = plan.nk > 0 ? plan.k[plan.nk - 1].ostride * oes : 0;
  const bool keys = r.key && !IsHalf(out.dtype);
  auto write = [&](int64_t o0, int64_t count, const ReduceAcc* acc, bool second_pass, const double* values) {
    if (keys && !second_pass) {  // the values themselves: no finish, one pass
      int64_t off, dummy;
      OffsetOf(plan.k, plan.nk, o0, &dummy, &off);
      StoreKeys(out.dtype, t.compute, od + off * oes, ostep, acc, count);
      return;
    }
    // finished kStorePiece outputs at a time (stack arrays of a few KiB)
    constexpr int64_t kStorePiece = 256;
    double f[kStorePiece];
    int64_t i[kStorePiece];
    char is_float[kStorePiece];
    for (int64_t p0 = 0; p0 < count; p0 += kStorePiece) {
      const int64_t m = std::min(kStorePiece, count - p0);
      if (second_pass) {
        ReduceAcc first[kStorePiece];
        for (int64_t c = 0; c < m; ++c) first[c].s = values[o0 + p0 + c];
        r.finish(a, first, acc + p0, m, n, t.compute, f, i, is_float);
      } else {
        r.finish(a, acc + p0, nullptr, m, n, t.compute, f, i, is_float);
      }
      int64_t off, dummy;
      OffsetOf(plan.k, plan.nk, o0 + p0, &dummy, &off);
      StoreValues(out.dtype, od + off * oes, ostep, is_float, f, i, m);
    }
  };
  if (r.second == kRNumKinds) {
    RunPass(ps, [&](int64_t o, int64_t count, int64_t, const ReduceAcc* acc) {
      write(o, count, acc, false, nullptr);
    });
    return;
  }
  std::vector<double> values(static_cast<size_t>(plan.nout));
  RunPass(ps, [&](int64_t o, int64_t count, int64_t, const ReduceAcc* acc) {
    for (int64_t c = 0; c < count; ++c) values[static_cast<size_t>(o + c)] = r.center(acc[c], n, t.compute);
  });
  ps = MakePass(ctx, plan, x, t.compute, r.second);
  ps.centers = values.data();
  RunPass(ps, [&](int64_t o, int64_t count, int64_t, const ReduceAcc* acc) {
    write(o, count, acc, true, values.data());
  });
}

}  // namespace

bc_tensor* RunReduce(const ReduceArgs& a, bc_tensor* out) {
  const bc_tensor& x0 = *a.x;
  const char* name = ReduceOpName(a.op);
  ReducePreCheck(a, out);
  const uint64_t mask = ReduceDimMask(name, x0, a.dims, a.ndims);
  const ReduceTypes t = ResolveReduce(a, mask, out);
  const ReduceRecipe r = RecipeOf(a);
  const Shape want = ResultShape(x0, mask, a.keepdim);
  if (out != nullptr) CheckOut(*out, want, x0);
  // PyTorch's reduction factor: input numel / output numel (0 for an
  // empty input, whatever is reduced).
  ReduceWarnings(a, Numel(x0) / std::max<int64_t>(1, ShapeNumel(want)));
  bc_tensor* result = out != nullptr ? out : NewTensor(t.result, want);
  try {
    const bc_tensor* x = &x0;
    bc_tensor* copy = nullptr;
    if ((ReduceIndexesFlat(a) && !IsContiguous(x0)) || ReduceZeroesNans(a, t)) x = copy = ContiguousCopy(*a.ctx, x0);
    if (ReduceZeroesNans(a, t)) ZeroNans(copy);
    struct Free {
      bc_tensor* t;
      ~Free() { FreeTensor(t); }
    } free_copy{copy};
    int64_t os[BC_MAX_DIMS];
    OutStrides(*x, mask, a.keepdim, *result, os);
    Reduce(a, *x, mask, t, r, *result, os);
  } catch (...) {
    if (out == nullptr) FreeTensor(result);
    throw;
  }
  return result;
}

void RunMaxMinDim(const bc_ctx& ctx, const bc_tensor& x, int64_t dim, bool keepdim, bool max,
                  bc_tensor** values, bc_tensor** indices, bc_tensor* values_out, bc_tensor* indices_out) {
  const char* name = max ? "max" : "min";
  const uint64_t mask = ReduceDimMask(name, x, &dim, 1);
  if (Numel(x) == 0) {
    for (int d = 0; d < x.ndim; ++d) {
      if ((mask >> d & 1) && x.shape[d] == 0)
        Fail(BC_ERR_INVALID_ARGUMENT, std::string(name) + "(): Expected reduction dim " + std::to_string(d) +
                                          " to have non-zero size.");
    }
  }
  const Shape want = ResultShape(x, mask, keepdim);
  if (values_out != nullptr) {
    if (values_out->dtype != x.dtype) {
      Fail(BC_ERR_DTYPE, std::string("Expected out tensor to have dtype ") + CppTypeName(x.dtype) + ", but got " +
                             CppTypeName(values_out->dtype) + " instead");
    }
    if (indices_out->dtype != BC_INT64) {
      Fail(BC_ERR_DTYPE, std::string("Expected out tensor to have dtype ") + CppTypeName(BC_INT64) +
                             ", but got " + CppTypeName(indices_out->dtype) + " instead");
    }
    CheckOut(*values_out, want, x);
    CheckOut(*indices_out, want, x);
    CheckOut(*values_out, want, *indices_out);
  }
  bc_tensor* v = values_out != nullptr ? values_out : NewTensor(x.dtype, want);
  bc_tensor* ix = indices_out;
  try {
    if (ix == nullptr) ix = NewTensor(BC_INT64, want);
    ReduceArgs a;
    a.ctx = &ctx;
    a.op = max ? BC_ARGMAX : BC_ARGMIN;
    a.x = &x;
    a.keepdim = keepdim;
    int64_t vs[BC_MAX_DIMS], is[BC_MAX_DIMS];
    OutStrides(x, mask, keepdim, *v, vs);
    OutStrides(x, mask, keepdim, *ix, is);
    Plan plan = MakePlan(x, mask, is, vs);
    Pass ps = MakePass(ctx, plan, x, x.dtype, max ? kRArgMax : kRArgMin);
    // The reduced dim's stride in x (0 for a size-1 dim: index 0).
    int64_t rstride = 0;
    for (int d = 0; d < x.ndim; ++d) rstride = (mask >> d & 1) ? x.strides[d] : rstride;
    const int64_t es = static_cast<int64_t>(ps.es);
    const Dim* inner = plan.nk > 0 ? &plan.k[plan.nk - 1] : nullptr;
    RunPass(ps, [&](int64_t o, int64_t count, int64_t in_off, const ReduceAcc* acc) {
      int64_t dummy, io, vo;
      OffsetOf(plan.k, plan.nk, o, &dummy, &io, &vo);
      for (int64_t c = 0; c < count; ++c) {
        if (c > 0) {  // (count > 1: the plan has kept dims)
          io += inner->ostride;
          vo += inner->ostride2;
          in_off += inner->stride;
        }
        const int64_t j = acc[c].j < 0 ? 0 : acc[c].j;
        std::memcpy(ix->data + io * 8, &j, 8);
        std::memcpy(v->data + vo * es, x.data + (in_off + j * rstride) * es, static_cast<size_t>(es));
      }
    });
  } catch (...) {
    if (values_out == nullptr) FreeTensor(v);
    if (indices_out == nullptr) FreeTensor(ix);
    throw;
  }
  if (values) *values = v;
  if (indices) *indices = ix;
}

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
  try {
    if (!reduces) {
      CopyElements(ctx, *out, t);
      return out;
    }
    // The reduced dims: the leading ones and those the target has as 1.
    uint64_t mask = 0;
    int64_t os[BC_MAX_DIMS];
    const int lead = t.ndim - target.ndim;
    for (int d = 0; d < t.ndim; ++d) {
      const bool red = d < lead || (aligned.d[d] == 1 && t.shape[d] != 1);
      mask |= red ? uint64_t{1} << d : 0;
      os[d] = d < lead ? 0 : out->strides[d - lead];
    }
    ReduceArgs a;
    a.ctx = &ctx;
    a.op = BC_SUM;
    a.x = &t;
    Reduce(a, t, mask, ReduceTypes{rd, rd}, RecipeOf(a), *out, os);
  } catch (...) {
    FreeTensor(out);
    throw;
  }
  return out;
}

}  // namespace bcast
