// Runs a plan: OpenMP threads over chunks of the iteration space, 2-D blocks
// of rows, and every layout the row kernels do not take. A row kernel sees
// only contiguous operands (binary ones also a repeated value); here, for
// every op and dtype alike:
// - inputs strided along a row (a slice) are gathered a chunk at a time, a
//   strided output is computed into a chunk and scattered;
// - a row whose inputs are all repeated values is computed once and filled;
// - short rows are laid out as one long row through a tile;
// - operands strided within rows (a transposed input) are gathered tile by
//   tile, the next tile prefetched while the current one runs;
// - operands whose dtype differs from the kernel's are converted a tile at a
//   time through scratch rows.
// Nothing here knows the op: it moves elements by their size.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "core/dtype.h"
#include "core/plan.h"
#include "core/context.h"
#include "core/parallel.h"
#include "hwy/cache_control.h"

namespace bcast {

namespace {

// Threads: as many as ThreadsForTime (parallel.h) gives an op's estimated
// time (timed on its first elements, see ChooseThreads), with at least
// kMinPerThread elements each; from kNoProbe elements an op takes one
// thread per kGrain elements (PyTorch's grain size) untimed.
constexpr int64_t kGrain = 32768;
constexpr int64_t kMinPerThread = 8192;
constexpr int64_t kNoProbe = int64_t{1} << 20;
// Elements converted per step when an operand's dtype differs from the kernel's
// (4 scratch rows of this many 8-byte values live on the stack: about 33 KiB).
constexpr int64_t kTile = 1024;
// Bytes of each operand gathered per step from a strided row: 512 8-byte
// values, 4096 1-byte ones.
constexpr int64_t kChunkBytes = 4096;
// Rows shorter than kShortRowBytes (in the widest operand: one AVX-512
// vector, two AVX2 ones) are laid out as rows of up to kRunTile elements
// (see ShortRows); longer ones go to the kernel a block of rows a call.
// Measured on the Intel Xeon (bench/small_latency.c, float32, 1 thread):
// at 64-byte rows a block of rows a call beat laying them out in every
// pattern (row, column, outer, 3-D middle: 0-40% less time).
constexpr int64_t kShortRowBytes = 64;
constexpr int64_t kRunTile = 1024;
// Columns per band where a converted input is transposed (RunConverted).
// Intel Xeon VM, float16 isnan of a transposed (1024,4096), ms: 64 -> 6.7-7.4,
// 128 -> 6.5-6.8, 256 -> 7.9, 512 -> 8.2-8.5 (bfloat16: 4.0 at each). 128
// lines (8 KiB) in flight: in every x86-64 L1d (32 KiB and up).
constexpr int64_t kConvertBand = 128;
constexpr int64_t kLaySlack = 16;
// Stack for gathered tiles: 48 KiB, one 32 KiB tile or up to three of 16 KiB
// (64 x 64 4-byte or 32 x 32 8-byte values).
constexpr int64_t kTileBytes = 16384;
constexpr int64_t kOneTileBytes = 32768;

// 2-D rows of a plan: n1 rows of n0 elements; strides in elements.
struct Block {
  int64_t n0 = 0, n1 = 0;
  char* ptr[4] = {};
  int64_t s0[4] = {}, s1[4] = {};
};

// Whether operand k is strided along the rows (neither contiguous nor one
// value repeated there): a tile walk gathers such an input into a buffer.
bool StridedAlongRow(const Block& b, int k) { return b.s0[k] != 0 && b.s0[k] != 1; }

// ---- moving elements by size ----

template <typename U>
void GatherAs(void* dst, const char* src, int64_t s, int64_t n) {
  U* d = static_cast<U*>(dst);
  const U* p = reinterpret_cast<const U*>(src);
  if (s == 2) {  // every other element: a constant stride the compiler vectorises
    for (int64_t i = 0; i < n; ++i) d[i] = p[2 * i];
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = p[i * s];
  }
}
template <typename U>
void ScatterAs(char* dst, int64_t s, const void* src, int64_t n) {
  U* d = reinterpret_cast<U*>(dst);
  const U* p = static_cast<const U*>(src);
  for (int64_t i = 0; i < n; ++i) d[i * s] = p[i];
}
template <typename U>
void FillAs(char* dst, int64_t s, const void* value, int64_t n) {
  U v;
  std::memcpy(&v, value, sizeof(U));
  U* d = reinterpret_cast<U*>(dst);
  if (s == 1) {  // the usual case: a loop the compiler vectorises
    for (int64_t i = 0; i < n; ++i) d[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) d[i * s] = v;
  }
}

// Calls f(U{}) with the unsigned type of `size` bytes.
template <class F>
void BySize(size_t size, F&& f) {
  switch (size) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

// n elements `s` apart from src into contiguous dst.
void Gather(void* dst, const char* src, int64_t s, int64_t n, size_t size) {
  BySize(size, [&](auto u) { GatherAs<decltype(u)>(dst, src, s, n); });
}
void Scatter(char* dst, int64_t s, const void* src, int64_t n, size_t size) {
  BySize(size, [&](auto u) { ScatterAs<decltype(u)>(dst, s, src, n); });
}
// n copies of one value, `s` apart.
void Fill(char* dst, int64_t s, const void* value, int64_t n, size_t size) {
  BySize(size, [&](auto u) { FillAs<decltype(u)>(dst, s, value, n); });
}

size_t Size(const Plan& p, int k) { return DtypeSize(p.ktype[k]); }

// A host's loop on what a row kernel would get: inner byte strides from the
// kernel dtypes (0 for a one-value input), outer ones from `step`. Once the
// loop has failed, later blocks are skipped. Where the kernel would stream
// its stores (`stores`), the loop writes rows of up to kStreamTileBytes into
// a tile in L1 with its own stores, and the executor streams the tile out:
// the output is never read for ownership, as with bcast's own kernels.
constexpr int64_t kStreamTileBytes = 8192;
constexpr int64_t kStreamMinRowBytes = 256;

}  // namespace

// A buffer handed to a host's loop as its output rows: zero-filled as far as
// it is handed out, once per range, so the loop always finds initialised
// bytes (zeros, or what it wrote there for an earlier block of the range):
// a Rust loop gets its rows as `&mut [T]`, which must not point at
// uninitialised memory, and zeroing each block instead cost the loop a
// third of its time (float32 add, 64K elements: 10.6 -> 6.7 us, Intel Xeon
// VM). Left uninitialised past `ready`.
template <int64_t N>
struct HostBuffer {
  int64_t ready = 0;
  alignas(64) char bytes[N];
  char* Take(int64_t n) {
    if (n > ready) {
      std::memset(bytes + ready, 0, static_cast<size_t>(n - ready));
      ready = n;
    }
    return bytes;
  }
};

// Every buffer the executor can hand a host's loop in place of the output
// (bcast's own kernels use stack buffers instead); one set per range, on
// the stack of the thread that runs it.
struct HostBuffers {
  HostBuffer<kStreamTileBytes> tile;  // a streamed row (CallHost)
  HostBuffer<kChunkBytes> scatter;    // a strided output's chunk (RunRowChunked)
  HostBuffer<8> one;                  // a row of one value (RunRow)
  HostBuffer<kTile * 8> converted;    // a converted output's tile (RunConverted)
};

namespace {

// Whether a host's loop has failed: its output tiles are then not written
// back (they may hold anything).
inline bool HostStopped(const Plan& p) {
  return p.host != nullptr && p.host->code->load(std::memory_order_relaxed) != 0;
}

bool HostFailed(const HostLoop& h, int rc) {
  if (rc != 0) {
    int none = 0;
    h.code->compare_exchange_strong(none, rc, std::memory_order_relaxed);
  }
  return rc != 0;
}

__attribute__((noinline)) void CallHost(const Plan& p, int64_t n, int64_t rows, char* const* ptr,
                                        const int64_t* step, unsigned bcast, StoreMode stores) {
  if (HostStopped(p)) return;
  const HostLoop& h = *p.host;
  int64_t strides[8] = {};
  for (int k = 0; k < p.nops; ++k) {
    const bool one = k > 0 && ((bcast >> (k - 1)) & 1u) != 0;
    strides[k] = one ? 0 : static_cast<int64_t>(Size(p, k));
    strides[p.nops + k] = rows > 1 ? step[k] : 0;
  }
  const int64_t es0 = strides[0];
  if (stores == kPlainStores || n * es0 < kStreamMinRowBytes) {
    HostFailed(h, h.fn(h.user, ptr, strides, n, rows));
    return;
  }
  const int64_t per = kStreamTileBytes / es0;
  // Streaming stores come only from RunRange, which sets host_out.
  char* tile = p.host_out->tile.Take(std::min(per, n) * es0);
  for (int k = 0; k < p.nops; ++k) strides[p.nops + k] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t off = 0; off < n; off += per) {
      const int64_t len = std::min(per, n - off);
      char* q[4];
      q[0] = tile;
      for (int k = 1; k < p.nops; ++k) q[k] = ptr[k] + (r > 0 ? r * step[k] : 0) + off * strides[k];
      if (HostFailed(h, h.fn(h.user, q, strides, len, 1))) return;
      char* o = ptr[0] + (r > 0 ? r * step[0] : 0) + off * es0;
      RunConvertKernel(p.ktype[0], o, p.ktype[0], tile, len, true);
    }
  }
}

// The plan's row kernel, or its host's loop.
inline void CallKernel(const Plan& p, int64_t n, int64_t rows, char* const* ptr, const int64_t* step,
                       unsigned bcast, StoreMode stores) {
  if (p.host != nullptr) return CallHost(p, n, rows, ptr, step, bcast, stores);
  p.kernel(n, rows, ptr, step, bcast, p.scalar, stores);
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// How a row whose output is contiguous (`contiguous`) is stored.
StoreMode Stores(const Plan& p, bool contiguous = true) {
  if (!p.stream || !contiguous) return kPlainStores;
  return p.prefetch ? kStreamAndPrefetch : kStreamStores;
}

// ---- rows ----

// Whether rows with element strides s0 (one per operand) go to the kernel as
// they are: a contiguous output, every input contiguous or one value along
// the row, not all one value (RunRow fills those). *bcast gets the
// kernel's mask of one-value inputs.
bool KernelTakesRows(const Plan& p, const int64_t* s0, unsigned* bcast) {
  unsigned m = 0;
  bool ok = s0[0] == 1;
  for (int k = 1; k < p.nops; ++k) {
    if (s0[k] == 0) m |= 1u << (k - 1);
    else ok &= s0[k] == 1;
  }
  *bcast = m;
  return ok && m != (1u << (p.nops - 1)) - 1;
}

// A row with a strided output or strided inputs: a chunk at a time through
// stack buffers.
__attribute__((noinline)) void RunRowChunked(const Plan& p, int64_t n, char* const* ptr,
                                             const int64_t* s, StoreMode stores) {
  alignas(64) char buf[4][kChunkBytes];
  size_t widest = 1;
  for (int k = 0; k < p.nops; ++k) widest = std::max(widest, Size(p, k));
  const int64_t kChunk = kChunkBytes / static_cast<int64_t>(widest);
  unsigned bcast = 0;
  for (int k = 1; k < p.nops; ++k)
    if (s[k] == 0) bcast |= 1u << (k - 1);
  for (int64_t off = 0; off < n; off += kChunk) {
    const int64_t m = std::min(kChunk, n - off);
    char* q[4];
    for (int k = 0; k < p.nops; ++k) {
      const size_t size = Size(p, k);
      char* at = ptr[k] + off * s[k] * static_cast<int64_t>(size);
      if (s[k] == 1) {
        q[k] = at;
      } else if (k == 0) {
        q[k] = p.host != nullptr ? p.host_out->scatter.Take(m * static_cast<int64_t>(size)) : buf[0];
      } else if (s[k] == 0) {
        q[k] = ptr[k];
      } else {
        Gather(buf[k], at, s[k], m, size);
        q[k] = buf[k];
      }
    }
    CallKernel(p, m, 1, q, nullptr, bcast, s[0] == 1 ? stores : kPlainStores);
    if (HostStopped(p)) return;
    if (s[0] != 1) Scatter(ptr[0] + off * s[0] * static_cast<int64_t>(Size(p, 0)), s[0], q[0], m, Size(p, 0));
  }
}

// One row of n elements of every operand, strides s (elements).
void RunRow(const Plan& p, int64_t n, char* const* ptr, const int64_t* s, StoreMode stores) {
  unsigned bcast = 0;
  if (KernelTakesRows(p, s, &bcast)) return CallKernel(p, n, 1, ptr, nullptr, bcast, stores);
  if (bcast == (1u << (p.nops - 1)) - 1) {  // one value for the whole row
    alignas(8) char own[8];
    char* one = p.host != nullptr ? p.host_out->one.Take(static_cast<int64_t>(Size(p, 0))) : own;
    char* q[4] = {one};
    for (int k = 1; k < p.nops; ++k) q[k] = ptr[k];
    CallKernel(p, 1, 1, q, nullptr, 0, kPlainStores);
    if (HostStopped(p)) return;
    Fill(ptr[0], s[0], one, n, Size(p, 0));
    return;
  }
  RunRowChunked(p, n, ptr, s, stores);
}

// ---- short rows ----

// Short rows of an output contiguous over dims 0..depth-1 are laid out as
// long ones: a tile of whole rows, across as many dims as it spans, becomes
// one row of up to kRunTile elements. Each input is read in place when it
// runs through the tile as the output does; passed as one value when it is
// one value for a whole block of rows; laid out once when its rows repeat
// with a period that divides the tile's rows (a (C,) row under (R,C), a
// (1,B,C) plane under (A,B,C)), later tiles reusing it; else laid out row by
// row for each tile.
enum class RowInput { kInPlace, kOneValue, kOnce, kEachTile };

struct ShortRows {
  int depth = 0;  // dims 0..depth-1 over which the output is contiguous
  int64_t block_rows = 1;  // rows over dims 1..depth-1
  int64_t tile_rows = 0;
  RowInput kind[4];
  int64_t period[4];  // kOnce: rows after which the input's rows repeat
};

int64_t Gcd(int64_t a, int64_t b) {
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Whether the plan's rows are laid out as long ones, and how (else false).
// Inputs strided along the rows are left to the square tiles.
bool PlanShortRows(const Plan& p, ShortRows* s) {
  const int64_t n0 = p.shape[0];
  if (p.ndim < 2 || p.stride[0][0] != 1) return false;
  size_t widest = 1;
  for (int k = 0; k < p.nops; ++k) widest = std::max(widest, Size(p, k));
  if (n0 * static_cast<int64_t>(widest) >= kShortRowBytes) return false;
  for (int k = 1; k < p.nops; ++k)
    if (p.stride[k][0] != 0 && p.stride[k][0] != 1) return false;
  int depth = 1;
  int64_t run = n0;
  while (depth < p.ndim && p.stride[0][depth] == run) {
    run *= p.shape[depth];
    s->block_rows *= p.shape[depth];
    ++depth;
  }
  if (depth < 2 || s->block_rows < 4) return false;
  s->depth = depth;
  const int64_t max_rows = kRunTile / n0;
  for (int k = 1; k < p.nops; ++k) {
    bool same = true;
    for (int d = 0; d < depth; ++d) same &= p.stride[k][d] == p.stride[0][d];
    int m = depth;  // the input is the same for every index of dims m..depth-1
    while (m > 1 && p.stride[k][m - 1] == 0) --m;
    s->period[k] = 1;
    for (int d = 1; d < m; ++d) s->period[k] *= p.shape[d];
    s->kind[k] = same                                       ? RowInput::kInPlace
                 : s->period[k] == 1 && p.stride[k][0] == 0 ? RowInput::kOneValue
                 : s->period[k] <= max_rows                 ? RowInput::kOnce
                                                            : RowInput::kEachTile;
  }
  // An input laid out row by row for every tile (a column under rows of 7:
  // two 16-byte stores a row) can cost more than the kernel's own masked
  // vector a row, where it has one (ShortRowBytes) and some input is read
  // along the rows. AMD EPYC Zen 4 VM, 1 thread, against laying out:
  // - float32 (585,1) + (1,7) 0.91 -> 0.72 us, (10000,1) + (1,7) 11.5 ->
  //   9.6 us (no input read in place: taken);
  // - float32 (10000,7) * (10000,1) 13.1 -> 14.6-16.6 us (one input in
  //   place, whose long rows the kernel runs fast: left to the layout);
  // - float64 (100000,5) * (100000,1) 215 -> 122 us (40-byte rows, three
  //   stores each: taken);
  // - float32 (100000,3) * (100000,1) 72 -> 98 us (one store a row: left).
  const int64_t row_bytes = n0 * static_cast<int64_t>(Size(p, 0));
  if (row_bytes > 16 && row_bytes <= p.short_row_bytes) {
    bool each_tile = false, along = false, in_place = false;
    for (int k = 1; k < p.nops; ++k) {
      each_tile |= s->kind[k] == RowInput::kEachTile;
      in_place |= s->kind[k] == RowInput::kInPlace;
      along |= p.stride[k][0] != 0;
    }
    if (each_tile && along && (!in_place || row_bytes > 32)) return false;
  }
  // Rows per tile: a multiple of every laid-once input's period (the
  // longest periods are laid out per tile instead until they fit).
  int64_t lcm;
  for (;;) {
    lcm = 1;
    int longest = 0;
    for (int k = 1; k < p.nops; ++k) {
      if (s->kind[k] != RowInput::kOnce) continue;
      lcm = std::min(max_rows + 1, lcm / Gcd(lcm, s->period[k]) * s->period[k]);
      if (longest == 0 || s->period[k] > s->period[longest]) longest = k;
    }
    if (lcm <= max_rows) break;
    s->kind[longest] = RowInput::kEachTile;
  }
  s->tile_rows = max_rows / lcm * lcm;
  return true;
}

// Where row j of the plan starts: its index over dims 1..ndim-1 and each
// operand's pointer.
struct RowCursor {
  int64_t idx[BC_MAX_DIMS];
  char* ptr[4];
  void Seek(const Plan& p, int64_t j) {
    for (int d = 1; d < p.ndim; ++d) {
      idx[d] = j == 0 ? 0 : j % p.shape[d];
      j = j == 0 ? 0 : j / p.shape[d];
    }
    Point(p);
  }
  // Moves on by `rows` rows.
  void Advance(const Plan& p, int64_t rows) {
    idx[1] += rows;
    for (int d = 1; d + 1 < p.ndim && idx[d] >= p.shape[d]; ++d) {
      idx[d + 1] += idx[d] / p.shape[d];
      idx[d] %= p.shape[d];
    }
    Point(p);
  }
  void Point(const Plan& p) {
    for (int k = 0; k < p.nops; ++k) {
      int64_t off = 0;
      for (int d = 1; d < p.ndim; ++d) off += idx[d] * p.stride[k][d];
      ptr[k] = p.base[k] + off * static_cast<int64_t>(DtypeSize(p.dtype[k]));
    }
  }
};

// Copies `bytes` bytes: whole 16-byte blocks, the last overlapping the one
// before (compiled to vector moves even for the baseline target); short
// runs through 8- or 4-byte words likewise, or bytes.
inline void CopyRun(char* __restrict o, const char* __restrict in, int64_t bytes) {
  auto words = [&](auto w) {
    constexpr int64_t kW = sizeof(w);
    for (int64_t i = 0; i + kW < bytes; i += kW) std::memcpy(o + i, in + i, kW);
    std::memcpy(o + bytes - kW, in + bytes - kW, kW);
  };
  if (bytes >= 16) {
    struct Block16 {
      char b[16];
    };
    words(Block16{});
  } else if (bytes >= 8) {
    words(uint64_t{});
  } else if (bytes >= 4) {
    words(uint32_t{});
  } else {
    for (int64_t i = 0; i < bytes; ++i) o[i] = in[i];
  }
}

// `rows` rows of n0 elements of operand k into contiguous dst, from the row
// at `from` whose index over dims 1..ndim-1 is `start` (nullptr: all 0). A
// row of one value (s0 == 0) is written 16 bytes at a time, up to 15 bytes
// past its end, which the next row overwrites: dst needs kLaySlack bytes
// beyond the rows.
template <typename U>
void LayRowsAs(char* dst, const Plan& p, int k, const char* from, const int64_t* start,
               int64_t rows) {
  const int64_t n0 = p.shape[0], bytes = n0 * static_cast<int64_t>(sizeof(U));
  int64_t idx[BC_MAX_DIMS];
  for (int d = 1; d < p.ndim; ++d) idx[d] = start != nullptr ? start[d] : 0;
  const char* in = from;
  const int64_t* st = p.stride[k];
  const int64_t step = st[1] * static_cast<int64_t>(sizeof(U));
  // Rows along dim 1 at a time, then the carry into the outer dims.
  auto each_row = [&](auto row) {
    for (int64_t r = 0; r < rows;) {
      const int64_t run = std::min(rows - r, p.shape[1] - idx[1]);
      for (int64_t i = 0; i < run; ++i, dst += bytes, in += step) row(dst, in);
      r += run;
      idx[1] += run;
      for (int d = 1; idx[d] == p.shape[d] && d + 1 < p.ndim; ++d) {
        in += (st[d + 1] - p.shape[d] * st[d]) * static_cast<int64_t>(sizeof(U));
        idx[d] = 0;
        ++idx[d + 1];
      }
    }
  };
  if (st[0] == 0) {
    // 16 bytes of the row's value; one or two stores for rows of up to 32
    // bytes (a column under a short row: 7 floats), chosen outside the loop.
    struct Pattern {
      U e[16 / sizeof(U)];
    };
    auto pattern = [](const char* x) {
      U v;
      std::memcpy(&v, x, sizeof(U));
      Pattern p;
      for (U& e : p.e) e = v;
      return p;
    };
    if (bytes <= 16) {
      each_row([&](char* o, const char* x) {
        const Pattern p = pattern(x);
        std::memcpy(o, &p, 16);
      });
    } else if (bytes <= 32) {
      each_row([&](char* o, const char* x) {
        const Pattern p = pattern(x);
        std::memcpy(o, &p, 16);
        std::memcpy(o + 16, &p, 16);
      });
    } else {
      each_row([&](char* o, const char* x) {
        const Pattern p = pattern(x);
        for (int64_t i = 0; i < bytes; i += 16) std::memcpy(o + i, &p, 16);
      });
    }
  } else {
    each_row([bytes](char* o, const char* x) { CopyRun(o, x, bytes); });
  }
}

void LayRows(char* dst, const Plan& p, int k, const char* from, const int64_t* start, int64_t rows) {
  BySize(Size(p, k), [&](auto u) { LayRowsAs<decltype(u)>(dst, p, k, from, start, rows); });
}

// Whole rows [j0, j1) of a plan with short rows.
__attribute__((noinline)) void RunShortRows(const Plan& p, const ShortRows& sr, int64_t j0,
                                            int64_t j1) {
  const int64_t n0 = p.shape[0];
  alignas(64) char tile[3][kRunTile * 8 + kLaySlack];
  const char* laid_for[4] = {};  // the block whose rows an input's tile holds
  const StoreMode stores = Stores(p);
  RowCursor at;
  at.Seek(p, j0);
  int64_t rb = j0 % sr.block_rows;  // row within the block
  int64_t phase = rb % sr.tile_rows;  // row within the tile
  for (int64_t j = j0; j < j1;) {
    const int64_t rows = std::min({sr.tile_rows - phase, sr.block_rows - rb, j1 - j});
    char* q[4] = {at.ptr[0]};
    int64_t s[4] = {1, 1, 1, 1};
    for (int k = 1; k < p.nops; ++k) {
      const int64_t es = static_cast<int64_t>(Size(p, k));
      char* buf = tile[k - 1];
      switch (sr.kind[k]) {
        case RowInput::kInPlace: q[k] = at.ptr[k]; break;
        case RowInput::kOneValue:
          q[k] = at.ptr[k];
          s[k] = 0;
          break;
        case RowInput::kOnce: {
          int64_t off = 0;  // from the block's first row
          for (int d = 1; d < sr.depth; ++d) off += at.idx[d] * p.stride[k][d];
          const char* first = at.ptr[k] - off * es;
          if (laid_for[k] != first) {
            // One period, then copies of it.
            const int64_t want = std::min(sr.tile_rows, sr.block_rows);
            LayRows(buf, p, k, first, nullptr, sr.period[k]);
            const int64_t row_bytes = n0 * es, want_bytes = want * row_bytes;
            for (int64_t have = sr.period[k] * row_bytes; have < want_bytes; have *= 2)
              std::memcpy(buf + have, buf, std::min(have, want_bytes - have));
            laid_for[k] = first;
          }
          q[k] = buf + phase * n0 * es;
          break;
        }
        case RowInput::kEachTile:
          LayRows(buf, p, k, at.ptr[k], at.idx, rows);
          q[k] = buf;
          break;
      }
    }
    RunRow(p, rows * n0, q, s, stores);
    j += rows;
    rb += rows;
    phase += rows;
    if (rb == sr.block_rows) rb = 0;
    if (phase == sr.tile_rows || rb == 0) phase = 0;
    if (j < j1) at.Advance(p, rows);
  }
}

// ---- square tiles for operands strided within rows ----

// Square tiles for operands strided within rows (a transposed input): such
// an input's tile is first gathered into a contiguous buffer, walking along
// its own shortest stride; the op then runs row by row. Hardware prefetchers
// do not follow short runs 16 KiB apart, so the next tile's lines are
// prefetched, one run per run gathered or row computed: spread out so, the
// prefetches overlap the work instead of stalling it all at the start of a
// tile (on a full line-fill queue), ~15% faster than one burst per tile.
bool WantsTiles(const Plan& p, const Block& b) {
  if (b.n1 < 2 || b.n0 < 2) return false;
  for (int k = 0; k < p.nops; ++k)
    if (StridedAlongRow(b, k) && b.s1[k] != b.s0[k] * b.n0) return true;
  return false;
}

// Prefetches the lines of `bytes` contiguous bytes from `p`.
void PrefetchRun(const char* p, int64_t bytes) {
  for (int64_t i = 0; i < bytes; i += 64) hwy::Prefetch(p + i);
}

// The next tile of one input, to prefetch: `runs` of `bytes` contiguous
// bytes `step` bytes apart; none if there is no next tile or the input runs
// contiguously neither way.
struct NextTile {
  const char* p = nullptr;
  int64_t step = 0, runs = 0, bytes = 0;
  void Run(int64_t k) const {
    if (p != nullptr && k < runs) PrefetchRun(p + k * step, bytes);
  }
};

template <typename U>
void GatherTileAs(char* dst, const char* src_bytes, int64_t cols, int64_t full_rows, int64_t s0,
                  int64_t s1, int64_t rows, int64_t len, const NextTile& next) {
  U* t = reinterpret_cast<U*>(dst);
  const U* src = reinterpret_cast<const U*>(src_bytes);
  if (s1 == 1 && rows == full_rows) {  // a transposed input's full tile: fixed-length runs
    for (int64_t i = 0; i < len; ++i) {
      next.Run(i);
      const U* run = src + i * s0;
      for (int64_t r = 0; r < full_rows; ++r) t[r * cols + i] = run[r];
    }
  } else if ((s1 < 0 ? -s1 : s1) < (s0 < 0 ? -s0 : s0)) {
    for (int64_t i = 0; i < len; ++i) {
      next.Run(i);
      for (int64_t r = 0; r < rows; ++r) t[r * cols + i] = src[i * s0 + r * s1];
    }
  } else {
    for (int64_t r = 0; r < rows; ++r) {
      next.Run(r);
      for (int64_t i = 0; i < len; ++i) t[r * cols + i] = src[r * s1 + i * s0];
    }
  }
}

// Tile dimensions: rows x cols elements.
struct TileShape {
  int64_t rows, cols;
};

// A tile of `rows` x `len` at (r0, c0), and the next one to prefetch: along
// the band, else the first of the next band (nrows == 0 when there is none).
struct TileSpot {
  int64_t r0, c0, rows, len, nr0, nc0, nrows, nlen;
};

template <class Fn>
void ForEachTile(const Block& b, TileShape ts, const Fn& fn) {
  for (int64_t r0 = 0; r0 < b.n1; r0 += ts.rows) {
    for (int64_t c0 = 0; c0 < b.n0; c0 += ts.cols) {
      TileSpot t;
      t.r0 = r0;
      t.c0 = c0;
      t.rows = std::min(ts.rows, b.n1 - r0);
      t.len = std::min(ts.cols, b.n0 - c0);
      t.nr0 = c0 + ts.cols < b.n0 ? r0 : r0 + ts.rows;
      t.nc0 = c0 + ts.cols < b.n0 ? c0 + ts.cols : 0;
      t.nrows = t.nr0 >= b.n1 ? 0 : std::min(ts.rows, b.n1 - t.nr0);
      t.nlen = std::min(ts.cols, b.n0 - t.nc0);
      fn(t);
    }
  }
}

// One input of a tile walk: read in place when it runs along the output's
// rows (stride 0 or 1), else gathered into `buf`; `next` plans the prefetch of
// its next tile for the row loop (a gathered input prefetches while gathered).
struct TileInput {
  char* buf;
  char* in;
  int64_t s0, s1;  // strides of `in`, elements
  NextTile next;
};

void PrepareTile(TileInput& in, const Block& b, int k, size_t size, TileShape ts,
                 const TileSpot& t) {
  const int64_t s0 = b.s0[k], s1 = b.s1[k], es = static_cast<int64_t>(size);
  NextTile nt;
  if (t.nrows > 0) {
    const char* p = b.ptr[k] + (t.nr0 * s1 + t.nc0 * s0) * es;
    if (s0 == 1) {  // rows contiguous
      nt = {p, s1 * es, t.nrows, t.nlen * es};
    } else if (s1 == 1) {  // columns contiguous (one, if repeated along rows)
      nt = {p, s0 * es, s0 == 0 ? 1 : t.nlen, t.nrows * es};
    } else if (s0 == 0) {  // one element per row
      nt = {p, s1 * es, s1 == 0 ? 1 : t.nrows, es};
    }  // else strided both ways: left to the hardware
  }
  char* base = b.ptr[k] + (t.r0 * s1 + t.c0 * s0) * es;
  if (!StridedAlongRow(b, k)) {
    in.in = base;
    in.s0 = s0;
    in.s1 = s1;
    in.next = nt;
  } else {
    BySize(size, [&](auto u) {
      GatherTileAs<decltype(u)>(in.buf, base, ts.cols, ts.rows, s0, s1, t.rows, t.len, nt);
    });
    in.in = in.buf;
    in.s0 = 1;
    in.s1 = ts.cols;
    in.next = NextTile();
  }
}

// The tile shape. One gathered input: 32 KiB of it, its runs (columns of
// the tile) 256 bytes long where they can be (64 rows of 4- or 8-byte
// values, 128 of narrower ones), the rows as long as the rest allows: 64 x
// 128 float32, 64 x 64 float64, 128 x 128 bfloat16. Several gathered
// inputs: 16 KiB each, 64 x 64 where every operand is at most 4 bytes and
// at most three of them (the output included) change along both dims, else
// 32 x 32. Operands repeated along one dim (where's (n,1) condition, a
// (1,n) row) take a row or a column of a tile and do not count. Measured
// on (4096,4096) + (4096,4096).T and where((4096,1), (4096,4096).T,
// (1,4096)), 1 thread: against 64 x 64 (32 x 32 for f64, and for where,
// which has four operands) float32 add 11.5-12.1 -> 10.4-11.0 ms, where
// 14-15 -> 9.3 ms; float64 add 21.6 -> 17.5 ms; bfloat16 add 10.4 -> 8.9
// ms. 64 KiB tiles were 4x slower.
TileShape ChooseTiles(const Plan& p, const Block& b) {
  size_t widest = 0, gathered_size = 0;
  int full = 0, gathered = 0;
  for (int k = 0; k < p.nops; ++k) {
    widest = std::max(widest, Size(p, k));
    full += b.s0[k] != 0 && b.s1[k] != 0;
    if (k > 0 && StridedAlongRow(b, k)) {
      ++gathered;
      gathered_size = Size(p, k);
    }
  }
  if (gathered == 1 && b.s0[0] == 1) {
    const int64_t es = static_cast<int64_t>(gathered_size);
    const int64_t rows = es <= 2 ? 128 : 64;
    return {rows, std::min<int64_t>(128, kOneTileBytes / (rows * es))};
  }
  const int64_t side = full <= 3 && widest <= 4 ? 64 : 32;
  return {side, side};
}

__attribute__((noinline)) void RunSquareTiles(const Plan& p, const Block& b) {
  const TileShape ts = ChooseTiles(p, b);
  alignas(64) char bufs[3 * kTileBytes];
  static_assert(kOneTileBytes <= 3 * kTileBytes, "one tile fits the stack buffer");
  // The gathered inputs' buffers, in order: one takes up to 32 KiB, several
  // 16 KiB each.
  TileInput in[3];
  char* next_buf = bufs;
  for (int k = 1; k < p.nops; ++k) {
    if (StridedAlongRow(b, k)) {
      in[k - 1].buf = next_buf;
      next_buf += kTileBytes;
    }
  }
  const StoreMode stores = Stores(p, b.s0[0] == 1);
  const int64_t es0 = static_cast<int64_t>(Size(p, 0));
  ForEachTile(b, ts, [&](const TileSpot& t) {
    for (int k = 1; k < p.nops; ++k) PrepareTile(in[k - 1], b, k, Size(p, k), ts, t);
    for (int64_t r = 0; r < t.rows; ++r) {
      char* q[4];
      int64_t s[4];
      q[0] = b.ptr[0] + ((t.r0 + r) * b.s1[0] + t.c0 * b.s0[0]) * es0;
      s[0] = b.s0[0];
      for (int k = 1; k < p.nops; ++k) {
        TileInput& x = in[k - 1];
        x.next.Run(r);
        q[k] = x.in + r * x.s1 * static_cast<int64_t>(Size(p, k));
        s[k] = x.s0;
      }
      RunRow(p, t.len, q, s, stores);
    }
  });
}

// A block whose operands are all in the kernel's dtypes and whose rows the
// kernel does not take as they are (RunBlocks gives it those).
void RunBlock(const Plan& p, const Block& b) {
  if (WantsTiles(p, b)) return RunSquareTiles(p, b);
  for (int64_t r = 0; r < b.n1; ++r) {
    char* q[4];
    for (int k = 0; k < p.nops; ++k)
      q[k] = b.ptr[k] + r * b.s1[k] * static_cast<int64_t>(Size(p, k));
    RunRow(p, b.n0, q, b.s0, Stores(p));
  }
}

// ---- dtype conversion ----

bool Converted(const Plan& p, int k) {
  return p.dtype[k] != p.ktype[k] || p.via[k] != p.ktype[k];
}

bool NeedsConversion(const Plan& p) {
  for (int k = 0; k < p.nops; ++k)
    if (Converted(p, k)) return true;
  return false;
}

// A block whose operands need dtype conversion, a tile at a time, through
// stack buffers in the kernel's types.
void RunConverted(const Plan& p, const Block& b) {
  // Rows staggered by 192 bytes: buffers exactly 4 KiB apart make loads wait
  // on unrelated stores (4K aliasing).
  alignas(64) char scratch[4][kTile * 8 + 192];
  // An input that repeats one row (stride 0 between rows, a row broadcast)
  // is converted once per tile column rather than once per row: then the
  // tile columns are the outer loop.
  bool repeats[4] = {};
  bool any_repeats = false;
  // A converted input strided within rows but close along them (a
  // transposed one) is read in bands of kConvertBand columns, row after
  // row: each column's run then moves on line by line, where whole rows of
  // kTile would touch a page per element (float16 isnan of a transposed
  // (1024,4096): 30 ms a row at a time).
  bool bands = false;
  for (int k = 1; k < p.nops; ++k) {
    repeats[k] = b.n1 > 1 && b.s1[k] == 0 && b.s0[k] != 0 && Converted(p, k);
    any_repeats |= repeats[k];
    const int64_t a0 = std::llabs(b.s0[k]), a1 = std::llabs(b.s1[k]);
    bands |= b.n1 > 1 && Converted(p, k) && a0 > 1 && a1 < a0;
  }
  const int64_t width = bands ? kConvertBand : kTile;
  auto tile = [&](int64_t r, int64_t off, bool first_row) {
    const int64_t len = std::min(width, b.n0 - off);
    char* q[4];
    int64_t s[4];
    char* out = nullptr;
    for (int k = 0; k < p.nops; ++k) {
      const size_t es = DtypeSize(p.dtype[k]);
      char* ptr = b.ptr[k] + (r * b.s1[k] + off * b.s0[k]) * static_cast<int64_t>(es);
      s[k] = b.s0[k];
      if (!Converted(p, k)) {
        q[k] = ptr;
        continue;
      }
      q[k] = scratch[k];
      if (k == 0) {
        if (p.host != nullptr) q[0] = p.host_out->converted.Take(len * static_cast<int64_t>(Size(p, 0)));
        out = ptr;
        s[0] = 1;
      } else if (b.s0[k] == 0) {
        ConvertStridedVia(p.ktype[k], scratch[k], 1, p.via[k], p.dtype[k], ptr, 0, 1);
      } else {
        if (first_row || !repeats[k])
          ConvertStridedVia(p.ktype[k], scratch[k], 1, p.via[k], p.dtype[k], ptr, b.s0[k], len);
        s[k] = 1;
      }
    }
    // A converted output's tile is read back at once: keep it in L1.
    RunRow(p, len, q, s, Stores(p, out == nullptr));
    if (out == nullptr || HostStopped(p)) return;
    // A host may write any byte into a bool tile: 0 or 1 before converting.
    if (p.host != nullptr && p.ktype[0] == BC_BOOL)
      for (int64_t i = 0; i < len; ++i) q[0][i] = q[0][i] != 0;
    const bool direct = p.via[0] == p.dtype[0] || p.via[0] == p.ktype[0];
    if (!(direct && b.s0[0] == 1 &&
          RunConvertKernel(p.dtype[0], out, p.ktype[0], q[0], len, p.stream)))
      ConvertStridedVia(p.dtype[0], out, b.s0[0], p.via[0], p.ktype[0], q[0], 1, len);
  };
  if (any_repeats || bands) {
    for (int64_t off = 0; off < b.n0; off += width)
      for (int64_t r = 0; r < b.n1; ++r) tile(r, off, r == 0);
  } else {
    for (int64_t r = 0; r < b.n1; ++r)
      for (int64_t off = 0; off < b.n0; off += kTile) tile(r, off, true);
  }
}

// ---- the iteration space ----

// Linear elements [begin, end) of the plan's iteration space, block by block:
// whole rows along dim 1 at a time, a partial row on its own. Pointers move
// on from block to block (no offsets recomputed over every dim).
void RunBlocks(const Plan& p, bool convert, int64_t begin, int64_t end) {
  if (begin >= end) return;
  int64_t idx[BC_MAX_DIMS];
  int64_t rest = begin;
  for (int d = 0; d < p.ndim; ++d) {
    idx[d] = rest == 0 ? 0 : rest % p.shape[d];
    rest = rest == 0 ? 0 : rest / p.shape[d];
  }
  Block b;
  int64_t es[4];
  for (int k = 0; k < p.nops; ++k) {
    es[k] = static_cast<int64_t>(DtypeSize(p.dtype[k]));
    int64_t off = 0;
    for (int d = 0; d < p.ndim; ++d) off += idx[d] * p.stride[k][d];
    b.ptr[k] = p.base[k] + off * es[k];
    b.s0[k] = p.stride[k][0];
    b.s1[k] = p.ndim > 1 ? p.stride[k][1] : 0;
  }
  const int64_t n0 = p.shape[0];
  // Rows the kernel takes as they are (every operand contiguous or one value
  // along them, not all one value): one call a block, decided once here.
  unsigned bcast = 0;
  const bool direct = KernelTakesRows(p, b.s0, &bcast) && !convert;
  int64_t step[4];
  for (int k = 0; k < p.nops; ++k) step[k] = b.s1[k] * es[k];
  const StoreMode stores = Stores(p);
  for (int64_t pos = begin;;) {
    const int64_t left = end - pos;
    int dim;  // the dim the block moves along
    int64_t moved;
    if (idx[0] == 0 && left >= n0 && p.ndim > 1) {
      const int64_t rows_left = p.shape[1] - idx[1];
      const int64_t rows = left >= rows_left * n0 ? rows_left : left / n0;
      b.n0 = n0;
      b.n1 = rows;
      pos += rows * n0;
      dim = 1;
      moved = rows;
    } else {
      const int64_t len = std::min(n0 - idx[0], left);
      b.n0 = len;
      b.n1 = 1;
      pos += len;
      dim = 0;
      moved = len;
    }
    if (direct && b.n0 > 1) CallKernel(p, b.n0, b.n1, b.ptr, step, bcast, stores);
    else if (convert) RunConverted(p, b);
    else RunBlock(p, b);
    if (pos >= end) return;
    idx[dim] += moved;
    for (int k = 0; k < p.nops; ++k) b.ptr[k] += moved * p.stride[k][dim] * es[k];
    // Carry into the outer dims.
    for (int d = dim; d + 1 < p.ndim && idx[d] >= p.shape[d]; ++d) {
      idx[d] = 0;
      ++idx[d + 1];
      for (int k = 0; k < p.nops; ++k)
        b.ptr[k] += (p.stride[k][d + 1] - p.shape[d] * p.stride[k][d]) * es[k];
    }
  }
}

void RunHostRange(const Plan& p, bool convert, int64_t begin, int64_t end);

// Runs linear elements [begin, end) of the plan's iteration space: short
// rows as long ones (a range's partial first and last rows on their own).
void RunRange(const Plan& p, bool convert, int64_t begin, int64_t end) {
  if (p.host != nullptr && p.host_out == nullptr) return RunHostRange(p, convert, begin, end);
  ShortRows sr;
  if (!convert && PlanShortRows(p, &sr)) {
    const int64_t n0 = p.shape[0];
    const int64_t head = std::min(end, (begin + n0 - 1) / n0 * n0);
    const int64_t tail = std::max(head, end / n0 * n0);
    RunBlocks(p, false, begin, head);
    if (head < tail) RunShortRows(p, sr, head / n0, tail / n0);
    RunBlocks(p, false, tail, end);
  } else {
    RunBlocks(p, convert, begin, end);
  }
  if (p.stream) hwy::FlushStream();
}

// A range of a host's plan, with output buffers of its own (HostBuffers).
__attribute__((noinline)) void RunHostRange(const Plan& p, bool convert, int64_t begin, int64_t end) {
  HostBuffers buffers;
  Plan with = p;
  with.host_out = &buffers;
  RunRange(with, convert, begin, end);
}

template <typename U>
void CopyRow(int64_t n, int64_t rows, char* const* ptr, const int64_t* step, unsigned bcast,
             const double*, StoreMode) {
  for (int64_t r = 0; r < rows; ++r) {
    U* o = reinterpret_cast<U*>(ptr[0] + (r == 0 ? 0 : r * step[0]));
    const U* a = reinterpret_cast<const U*>(ptr[1] + (r == 0 ? 0 : r * step[1]));
    if (bcast & 1) {
      const U v = a[0];
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    } else {
      std::memmove(o, a, static_cast<size_t>(n) * sizeof(U));
    }
  }
}

}  // namespace

RowKernel CopyKernel(size_t size) {
  switch (size) {
    case 1: return &CopyRow<uint8_t>;
    case 2: return &CopyRow<uint16_t>;
    case 4: return &CopyRow<uint32_t>;
    default: return &CopyRow<uint64_t>;
  }
}

namespace {

struct RangeTask {
  const Plan* plan;
  bool convert;
  int64_t first, numel, chunk;
};

void RunChunk(void* task, size_t i) {
  const RangeTask& t = *static_cast<const RangeTask*>(task);
  const int64_t begin = t.first + static_cast<int64_t>(i) * t.chunk;
  const int64_t end = std::min(t.numel, begin + t.chunk);
  if (begin < end) RunRange(*t.plan, t.convert, begin, end);
}


// How many threads an op of `numel` elements runs on, from what it costs:
// its first elements (up to the returned `done`) run on the caller, timed,
// and each thread must get at least ThreadNs() (learned, parallel.cc) of the whole op's estimated
// time, so that a second thread (woken, then joined) never costs more than it
// brings, whatever the op moves and computes. Ops too small for a second
// thread by size alone skip the probe; large ones take kGrain elements per
// thread, as before.
int64_t ChooseThreads(const Plan& p, const bc_ctx& ctx, bool convert, int64_t numel,
                      int64_t* done, double* alone_ns) {
  *done = 0;
  *alone_ns = 0;
  int64_t most = std::min<int64_t>(NumThreads(ctx), numel / kMinPerThread);
  if (p.max_threads > 0) most = std::min<int64_t>(most, p.max_threads);
  if (most < 2) return 1;
  if (numel >= kNoProbe) return std::min<int64_t>(most, numel / kGrain);
  // A sixteenth of the op, on a 64-element multiple (the chunks after it
  // stay on cache-line boundaries). It runs before any other thread starts:
  // in whole blocks of 64 rows, as it was, it took a fifth of (300,300) -
  // (300,1) float64, and two threads were slower than one (Intel Xeon).
  const int64_t probe = std::max<int64_t>(64, numel / 16 / 64 * 64);
  const int64_t start = NowNs();
  RunRange(p, convert, 0, probe);
  const int64_t spent = std::max<int64_t>(1, NowNs() - start);
  *done = probe;
  const double whole = static_cast<double>(spent) * static_cast<double>(numel) / static_cast<double>(probe);
  *alone_ns = whole;
  return ThreadsForTime(whole, static_cast<int>(most));
}

// A plan of fewer than kMinPerThread elements (one thread, plain stores)
// that is one block the kernel takes as it is: at most two dims, every
// operand in the kernel's dtype, contiguous or one value along rows of
// kShortRowBytes or more (shorter ones are laid out). Runs it in one kernel
// call and returns true; else false, having done nothing.
bool RunOneBlock(const Plan& p) {
  if (p.ndim > 2) return false;
  const int64_t n0 = p.shape[0], n1 = p.ndim == 2 ? p.shape[1] : 1;
  if (n0 * n1 == 0 || n0 > kMinPerThread || n0 * n1 >= kMinPerThread) return false;
  unsigned bcast = 0;
  int64_t s0[4] = {}, step[4] = {};
  int64_t widest = 1;
  for (int k = 0; k < p.nops; ++k) {
    if (Converted(p, k)) return false;
    const int64_t es = static_cast<int64_t>(Size(p, k));
    widest = std::max(widest, es);
    s0[k] = p.stride[k][0];
    step[k] = p.ndim == 2 ? p.stride[k][1] * es : 0;
  }
  if (!KernelTakesRows(p, s0, &bcast)) return false;
  if (n1 > 1 && n0 * widest < kShortRowBytes) return false;
  CallKernel(p, n0, n1, p.base, step, bcast, kPlainStores);
  return true;
}

}  // namespace

void ExecuteRange(const Plan& p, int64_t begin, int64_t end) {
  RunRange(p, NeedsConversion(p), begin, end);
}

void Execute(Plan& p, const bc_ctx& ctx) {
  if (RunOneBlock(p)) return;
  int64_t numel = 1;
  for (int d = 0; d < p.ndim; ++d) numel *= p.shape[d];
  if (numel == 0) return;
  // Below the streaming size for the most threads the op may take the
  // output stays in the cache: plain stores. A little above it the inputs
  // are still in the cache: streaming with the inputs fetched ahead.
  const int64_t most = std::min<int64_t>(NumThreads(ctx), std::max<int64_t>(1, numel / kMinPerThread));
  if (p.stream) {
    const int64_t grain_threads = numel / kGrain < 2 ? 1 : std::min<int64_t>(most, numel / kGrain);
    const bool in_cache = p.moved < StreamingBytes(grain_threads);
    const bool prefetch = !in_cache && p.moved < PrefetchBytes();
    if (in_cache || prefetch) {
      p.stream = !in_cache;
      p.prefetch = prefetch;
    }
  }
  const bool convert = NeedsConversion(p);
  int64_t begin = 0;
  double alone_ns = 0;  // the op's estimated time on one thread (0: not timed)
  const int64_t threads = ChooseThreads(p, ctx, convert, numel, &begin, &alone_ns);
  if (threads <= 1) {
    RunRange(p, convert, begin, numel);
    return;
  }
  // The rest in chunks on 64-element multiples (threads stay off each
  // other's cache lines), several per thread, none smaller than half of
  // kMinPerThread.
  const int64_t rest = numel - begin;
  const int64_t nchunks = std::max<int64_t>(
      1, std::min<int64_t>(static_cast<int64_t>(ChunkCount(static_cast<int>(threads))),
                           rest / (kMinPerThread / 2)));
  int64_t chunk = (rest + nchunks - 1) / nchunks;
  chunk = (chunk + 63) / 64 * 64;
  RangeTask task{&p, convert, begin, numel, chunk};
  const int64_t start = NowNs();
  const int ran = ParallelChunks(ctx, static_cast<int>(threads),
                                 static_cast<size_t>((rest + chunk - 1) / chunk), RunChunk, &task);
  if (ran > 1 && alone_ns > 0) {  // the probe's time (on the caller) and the threads'
    const double probe_ns = alone_ns * static_cast<double>(begin) / static_cast<double>(numel);
    NoteThreadedTime(alone_ns, probe_ns + static_cast<double>(NowNs() - start), ran);
  }
}

}  // namespace bcast
