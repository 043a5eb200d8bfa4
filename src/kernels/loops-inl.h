// Row loops shared by the kernel families: a row of n elements per operand,
// specialised at compile time for contiguous (1) and broadcast (0) strides so
// that the compiler vectorises the scalar form for each target, and Highway
// vectors where an op provides them.

// Per-target include guard, as Highway's foreach_target requires.
#if defined(BCAST_KERNELS_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_LOOPS_INL_H_
#undef BCAST_KERNELS_LOOPS_INL_H_
#else
#define BCAST_KERNELS_LOOPS_INL_H_
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/kernels.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Index of element i for a compile-time stride class: 0, 1, or -1 (runtime s).
template <int S>
HWY_INLINE int64_t At(int64_t i, int64_t s) {
  if constexpr (S == 0) return 0;
  else if constexpr (S == 1) return i;
  else return i * s;
}

// Ops that set kPrefetch (those doing much work per byte loaded, which keeps
// the core from running far ahead) fetch their streaming inputs ahead.
template <class F, class = void>
struct WantsPrefetch : std::false_type {};
template <class F>
struct WantsPrefetch<F, std::void_t<decltype(F::kPrefetch)>> : std::bool_constant<F::kPrefetch> {};

constexpr int64_t kPrefetchBytes = 4096;
template <typename T>
HWY_INLINE void PrefetchAhead(const T* p) {
  hwy::Prefetch(reinterpret_cast<const char*>(p) + kPrefetchBytes);  // never faults
}

template <int SA, int SB, typename TO, typename TI, class F>
HWY_INLINE void Loop2(int64_t n, TO* o, const TI* a, int64_t sa, const TI* b, int64_t sb,
                      const F& f, bool stream) {
  int64_t i = 0;
  if constexpr (F::kVec && std::is_same_v<TO, TI> && SA >= 0 && SB >= 0) {
    const hn::ScalableTag<TI> d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto a0 = hn::Set(d, a[0]);
    const auto b0 = hn::Set(d, b[0]);
    if (stream) {
      // Non-temporal stores need aligned addresses: peel up to one vector.
      const uintptr_t align = static_cast<uintptr_t>(N) * sizeof(TO);
      for (; i < n && reinterpret_cast<uintptr_t>(o + i) % align != 0; ++i)
        o[i] = f(a[At<SA>(i, sa)], b[At<SB>(i, sb)]);
      for (; i + N <= n; i += N) {
        if constexpr (WantsPrefetch<F>::value) {
          if (SA == 1) PrefetchAhead(a + i);
          if (SB == 1) PrefetchAhead(b + i);
        }
        const auto va = SA == 0 ? a0 : hn::LoadU(d, a + i);
        const auto vb = SB == 0 ? b0 : hn::LoadU(d, b + i);
        hn::Stream(f.Vec(d, va, vb), d, o + i);
      }
    }
    for (; i + N <= n; i += N) {
      const auto va = SA == 0 ? a0 : hn::LoadU(d, a + i);
      const auto vb = SB == 0 ? b0 : hn::LoadU(d, b + i);
      hn::StoreU(f.Vec(d, va, vb), d, o + i);
    }
  }
  if constexpr (F::kVec && std::is_same_v<TO, bool> && sizeof(TI) == 4 && SA >= 0 && SB >= 0) {
    // Comparisons of 4-byte lanes: each mask lane becomes a 0/1 byte.
    const hn::ScalableTag<TI> d;
    const hn::RebindToSigned<decltype(d)> di;
    const hn::Rebind<uint8_t, decltype(d)> d8;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto a0 = hn::Set(d, a[0]);
    const auto b0 = hn::Set(d, b[0]);
    const auto one = hn::Set(di, 1);
    auto bytes = [&](int64_t j) {
      if constexpr (WantsPrefetch<F>::value) {
        if (SA == 1) PrefetchAhead(a + j);
        if (SB == 1) PrefetchAhead(b + j);
      }
      const auto m = f.Vec(d, SA == 0 ? a0 : hn::LoadU(d, a + j), SB == 0 ? b0 : hn::LoadU(d, b + j));
      return hn::DemoteTo(d8, hn::And(hn::BitCast(di, hn::VecFromMask(d, m)), one));
    };
    uint8_t* o8 = reinterpret_cast<uint8_t*>(o);
    // Stream writes a whole register: only where the bytes fill one.
    if constexpr (hn::MaxLanes(d8) >= 16) {
      if (stream) {
        for (; i < n && reinterpret_cast<uintptr_t>(o + i) % 16 != 0; ++i)
          o[i] = f(a[At<SA>(i, sa)], b[At<SB>(i, sb)]);
        for (; i + N <= n; i += N) hn::Stream(bytes(i), d8, o8 + i);
      }
    }
    for (; i + N <= n; i += N) hn::StoreU(bytes(i), d8, o8 + i);
  }
  for (; i < n; ++i) o[i] = f(a[At<SA>(i, sa)], b[At<SB>(i, sb)]);
}

// Inputs strided within a row (a slice such as x[:, ::2]) are copied a chunk
// at a time into contiguous buffers, so that the vector loops (and streaming
// stores) run on them rather than a scalar strided loop.
constexpr int64_t kGatherChunk = 512;

// Copies n elements `s` apart from `src` into `buf` unless they are already
// contiguous or broadcast (s 0 or 1); returns where the run now is, its stride in *s.
template <typename T>
HWY_INLINE const T* GatherRun(T* buf, const T* src, int64_t* s, int64_t n) {
  if ((*s | 1) == 1) return src;
  if (*s == 2) {  // every other element: a constant stride the compiler vectorises
    for (int64_t i = 0; i < n; ++i) buf[i] = src[2 * i];
  } else {
    for (int64_t i = 0; i < n; ++i) buf[i] = src[i * *s];
  }
  *s = 1;
  return buf;
}

template <typename TO, typename TI, class F>
HWY_NOINLINE void Row2(int64_t n, TO* o, int64_t so, const TI* a, int64_t sa, const TI* b,
                       int64_t sb, const F& f, bool stream);

template <typename TO, typename TI, class F>
HWY_NOINLINE void Row2Gathered(int64_t n, TO* o, const TI* a, int64_t sa, const TI* b,
                               int64_t sb, const F& f, bool stream) {
  alignas(64) TI buf[2][kGatherChunk];
  for (int64_t i = 0; i < n; i += kGatherChunk) {
    const int64_t m = i + kGatherChunk < n ? kGatherChunk : n - i;
    int64_t ea = sa, eb = sb;
    const TI* pa = GatherRun(buf[0], a + i * sa, &ea, m);
    const TI* pb = GatherRun(buf[1], b + i * sb, &eb, m);
    Row2(m, o + i, 1, pa, ea, pb, eb, f, stream);
  }
}

// One row of a two-input op; `so` is the output's element stride. Not forced
// inline: the tiled and plain row walks share one copy per op and type.
template <typename TO, typename TI, class F>
HWY_NOINLINE void Row2(int64_t n, TO* o, int64_t so, const TI* a, int64_t sa, const TI* b,
                     int64_t sb, const F& f, bool stream) {
  if (so == 1 && n >= 64 && ((sa | 1) != 1 || (sb | 1) != 1))
    return Row2Gathered(n, o, a, sa, b, sb, f, stream);
  if (so == 1) {
    if (sa == 1 && sb == 1) return Loop2<1, 1>(n, o, a, sa, b, sb, f, stream);
    if (sa == 1 && sb == 0) return Loop2<1, 0>(n, o, a, sa, b, sb, f, stream);
    if (sa == 0 && sb == 1) return Loop2<0, 1>(n, o, a, sa, b, sb, f, stream);
    if (sa == 0 && sb == 0) {
      const TO v = f(a[0], b[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
      return;
    }
    return Loop2<-1, -1>(n, o, a, sa, b, sb, f, false);
  }
  for (int64_t i = 0; i < n; ++i) o[i * so] = f(a[i * sa], b[i * sb]);
}

// Square tiles for operands that are strided within rows (a transposed
// input): each tile's cache lines are reused before they are evicted.
constexpr int64_t kTileSide = 64;

HWY_INLINE bool WantsTiles(const Block& b, int nops) {
  if (b.n1 < 2 || b.n0 < 2) return false;
  for (int k = 0; k < nops; ++k)
    if (b.s0[k] != 0 && b.s0[k] != 1 && b.s1[k] != b.s0[k] * b.n0) return true;
  return false;
}

// Short rows (a few elements): a tile of many rows is laid out contiguously
// for every operand that does not already run on across rows, so that one
// long row replaces many short ones. An operand that repeats the same row
// (stride 0 between rows) is laid out once; one that is constant along the
// row (a column) is refilled for each tile.
constexpr int64_t kShortRow = 64;
constexpr int64_t kRunTile = 1024;

HWY_INLINE bool WantsRunTile(const Block& b, int nops) {
  if (b.n0 >= kShortRow || b.n1 < 4 || b.s0[0] != 1 || b.s1[0] != b.n0) return false;
  for (int k = 1; k < nops; ++k)
    if (b.s0[k] != 0 && b.s0[k] != 1) return false;
  return true;
}

template <typename TO, typename TI, class F>
HWY_NOINLINE void RunTiled2(const Block& b, const F& f) {
  const int64_t per = kRunTile / b.n0;  // rows per tile
  alignas(64) TI tile[2][kRunTile];
  const TI* x[2];
  bool refill[2];
  for (int k = 0; k < 2; ++k) {
    const int64_t s0 = b.s0[k + 1], s1 = b.s1[k + 1];
    x[k] = reinterpret_cast<const TI*>(b.ptr[k + 1]);
    refill[k] = false;
    if (s0 == 1 && s1 == b.n0) continue;  // already contiguous across rows
    if (s1 == 0) {
      const int64_t rows = per < b.n1 ? per : b.n1;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t i = 0; i < b.n0; ++i) tile[k][r * b.n0 + i] = x[k][i * s0];
    } else {
      refill[k] = true;
    }
  }
  TO* o = reinterpret_cast<TO*>(b.ptr[0]);
  for (int64_t r = 0; r < b.n1; r += per) {
    const int64_t rows = r + per <= b.n1 ? per : b.n1 - r;
    const TI* in[2];
    for (int k = 0; k < 2; ++k) {
      const int64_t s0 = b.s0[k + 1], s1 = b.s1[k + 1];
      if (s0 == 1 && s1 == b.n0) {
        in[k] = x[k] + r * b.n0;
        continue;
      }
      if (refill[k]) {
        for (int64_t j = 0; j < rows; ++j)
          for (int64_t i = 0; i < b.n0; ++i) tile[k][j * b.n0 + i] = x[k][(r + j) * s1 + i * s0];
      }
      in[k] = tile[k];
    }
    Row2(rows * b.n0, o + r * b.n0, 1, in[0], 1, in[1], 1, f, false);
  }
}

// Square tiles for inputs strided within rows (a transposed input): such an
// input's tile is first gathered into a contiguous buffer, walking along its
// own shortest stride; the op then runs row by row on the vector loops.
// Hardware prefetchers do not follow short runs 16 KiB apart, so the next
// tile's lines are prefetched, one run per run gathered or row computed:
// spread out so, the prefetches overlap the work instead of stalling it all
// at the start of a tile (on a full line-fill queue), ~15% faster than one
// burst per tile.

// Prefetches the lines of `n` contiguous elements from `p`.
template <typename TI>
HWY_INLINE void PrefetchRun(const TI* p, int64_t n) {
  constexpr int64_t kLine = 64 / sizeof(TI);
  for (int64_t i = 0; i < n; i += kLine) hwy::Prefetch(p + i);
}

// The next tile of one input, to prefetch: runs along stride 1 (`along_rows`:
// its rows are contiguous, else its columns are), `runs` of `n` elements
// `step` apart; none if the input runs along neither or there is no next tile.
template <typename TI>
struct NextTile {
  const TI* p = nullptr;
  int64_t step = 0, runs = 0, n = 0;
  void Run(int64_t k) const {
    if (p != nullptr && k < runs) PrefetchRun(p + k * step, n);
  }
};

template <int64_t kSide, typename TI>
HWY_INLINE void GatherTile(TI* t, const TI* src, int64_t s0, int64_t s1, int64_t rows,
                           int64_t len, const NextTile<TI>& next) {
  if (s1 == 1 && rows == kSide) {  // a transposed input's full tile: fixed-length runs
    for (int64_t i = 0; i < len; ++i) {
      next.Run(i);
      const TI* run = src + i * s0;
      for (int64_t r = 0; r < kSide; ++r) t[r * kSide + i] = run[r];
    }
  } else if ((s1 < 0 ? -s1 : s1) < (s0 < 0 ? -s0 : s0)) {
    for (int64_t i = 0; i < len; ++i) {
      next.Run(i);
      for (int64_t r = 0; r < rows; ++r) t[r * kSide + i] = src[i * s0 + r * s1];
    }
  } else {
    for (int64_t r = 0; r < rows; ++r) {
      next.Run(r);
      for (int64_t i = 0; i < len; ++i) t[r * kSide + i] = src[r * s1 + i * s0];
    }
  }
}

// One input of a tile walk: read in place when it runs along the output's
// rows (stride 0 or 1), else gathered into `buf`; `next` plans the prefetch of
// its next tile for the row loop (a gathered input prefetches while gathered).
template <int64_t kSide, typename TI>
struct TileInput {
  alignas(64) TI buf[kSide * kSide];
  const TI* in;
  int64_t s0, s1;  // strides of `in`
  NextTile<TI> next;
};

// A tile of `rows` x `len` at (r0, c0), and the next one to prefetch: along
// the band, else the first of the next band (nrows == 0 when there is none).
struct TileSpot {
  int64_t r0, c0, rows, len, nr0, nc0, nrows, nlen;
};

template <int64_t kSide, class Fn>
HWY_INLINE void ForEachTile(const Block& b, const Fn& fn) {
  for (int64_t r0 = 0; r0 < b.n1; r0 += kSide) {
    for (int64_t c0 = 0; c0 < b.n0; c0 += kSide) {
      TileSpot t;
      t.r0 = r0;
      t.c0 = c0;
      t.rows = r0 + kSide < b.n1 ? kSide : b.n1 - r0;
      t.len = c0 + kSide < b.n0 ? kSide : b.n0 - c0;
      t.nr0 = c0 + kSide < b.n0 ? r0 : r0 + kSide;
      t.nc0 = c0 + kSide < b.n0 ? c0 + kSide : 0;
      t.nrows = t.nr0 >= b.n1 ? 0 : t.nr0 + kSide < b.n1 ? kSide : b.n1 - t.nr0;
      t.nlen = t.nc0 + kSide < b.n0 ? kSide : b.n0 - t.nc0;
      fn(t);
    }
  }
}

// Readies operand k of `b` for tile `t`.
template <int64_t kSide, typename TI>
HWY_INLINE void PrepareTile(TileInput<kSide, TI>& in, const Block& b, int k, const TileSpot& t) {
  const int64_t s0 = b.s0[k], s1 = b.s1[k];
  const TI* x = reinterpret_cast<const TI*>(b.ptr[k]);
  NextTile<TI> nt;
  if (t.nrows > 0) {
    const TI* p = x + t.nr0 * s1 + t.nc0 * s0;
    if (s0 == 1) {  // rows contiguous
      nt = {p, s1, t.nrows, t.nlen};
    } else if (s1 == 1) {  // columns contiguous (one, if broadcast along rows)
      nt = {p, s0, s0 == 0 ? 1 : t.nlen, t.nrows};
    } else if (s0 == 0) {  // one element per row
      nt = {p, s1, s1 == 0 ? 1 : t.nrows, 1};
    }  // else strided both ways: left to the hardware
  }
  const TI* base = x + t.r0 * s1 + t.c0 * s0;
  if (s0 == 0 || s0 == 1) {
    in.in = base;
    in.s0 = s0;
    in.s1 = s1;
    in.next = nt;
  } else {
    GatherTile<kSide>(in.buf, base, s0, s1, t.rows, t.len, nt);
    in.in = in.buf;
    in.s0 = 1;
    in.s1 = kSide;
    in.next = NextTile<TI>();
  }
}

template <typename TO, typename TI, class F>
HWY_NOINLINE void Tiled2(const Block& b, const F& f) {
  constexpr int64_t T = sizeof(TI) >= 8 ? kTileSide / 2 : kTileSide;
  TileInput<T, TI> x, y;
  TO* o = reinterpret_cast<TO*>(b.ptr[0]);
  const bool stream = b.stream && b.s0[0] == 1;
  ForEachTile<T>(b, [&](const TileSpot& t) {
    PrepareTile(x, b, 1, t);
    PrepareTile(y, b, 2, t);
    for (int64_t r = 0; r < t.rows; ++r) {
      x.next.Run(r);
      y.next.Run(r);
      Row2(t.len, o + (t.r0 + r) * b.s1[0] + t.c0 * b.s0[0], b.s0[0], x.in + r * x.s1, x.s0,
           y.in + r * y.s1, y.s0, f, stream);
    }
  });
  if (stream) hwy::FlushStream();
}

template <typename TO, typename TI, class F>
HWY_INLINE void Rows2(const Block& b, const F& f) {
  TO* o = reinterpret_cast<TO*>(b.ptr[0]);
  const TI* x = reinterpret_cast<const TI*>(b.ptr[1]);
  const TI* y = reinterpret_cast<const TI*>(b.ptr[2]);
  if (WantsRunTile(b, 3)) return RunTiled2<TO, TI>(b, f);
  if (WantsTiles(b, 3)) return Tiled2<TO, TI>(b, f);
  for (int64_t r = 0; r < b.n1; ++r) {
    Row2(b.n0, o + r * b.s1[0], b.s0[0], x + r * b.s1[1], b.s0[1], y + r * b.s1[2], b.s0[2], f,
         b.stream);
  }
  if (b.stream) hwy::FlushStream();
}

// Ternary vector forms: the op gives First(d, p) / FirstSet(d, v) for its
// first input (where's condition becomes a mask) and Vec(d, first, b, c).
template <int SA, int SB, int SC, typename TO, typename TC, typename TI, class F>
HWY_INLINE void Loop3(int64_t n, TO* o, const TC* a, int64_t sa, const TI* b, int64_t sb,
                      const TI* c, int64_t sc, const F& f, bool stream) {
  int64_t i = 0;
  if constexpr (F::kVec && std::is_same_v<TO, TI>) {
    const hn::ScalableTag<TI> d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto a0 = f.FirstSet(d, a[0]);
    const auto b0 = hn::Set(d, b[0]);
    const auto c0 = hn::Set(d, c[0]);
    auto at = [&](int64_t j) {
      if constexpr (WantsPrefetch<F>::value) {
        if (SA == 1) PrefetchAhead(a + j);
        if (SB == 1) PrefetchAhead(b + j);
        if (SC == 1) PrefetchAhead(c + j);
      }
      return f.Vec(d, SA == 0 ? a0 : f.First(d, a + j), SB == 0 ? b0 : hn::LoadU(d, b + j),
                   SC == 0 ? c0 : hn::LoadU(d, c + j));
    };
    if (stream) {
      const uintptr_t align = static_cast<uintptr_t>(N) * sizeof(TO);
      for (; i < n && reinterpret_cast<uintptr_t>(o + i) % align != 0; ++i)
        o[i] = f(a[At<SA>(i, sa)], b[At<SB>(i, sb)], c[At<SC>(i, sc)]);
      for (; i + N <= n; i += N) hn::Stream(at(i), d, o + i);
    }
    for (; i + N <= n; i += N) hn::StoreU(at(i), d, o + i);
  }
  for (; i < n; ++i) o[i] = f(a[At<SA>(i, sa)], b[At<SB>(i, sb)], c[At<SC>(i, sc)]);
}

template <typename TO, typename TC, typename TI, class F>
HWY_NOINLINE void Row3(int64_t n, TO* o, int64_t so, const TC* a, int64_t sa, const TI* b,
                       int64_t sb, const TI* c, int64_t sc, const F& f, bool stream);

template <typename TO, typename TC, typename TI, class F>
HWY_NOINLINE void Row3Gathered(int64_t n, TO* o, const TC* a, int64_t sa, const TI* b,
                               int64_t sb, const TI* c, int64_t sc, const F& f, bool stream) {
  alignas(64) TC buf_a[kGatherChunk];
  alignas(64) TI buf[2][kGatherChunk];
  for (int64_t i = 0; i < n; i += kGatherChunk) {
    const int64_t m = i + kGatherChunk < n ? kGatherChunk : n - i;
    int64_t ea = sa, eb = sb, ec = sc;
    const TC* pa = GatherRun(buf_a, a + i * sa, &ea, m);
    const TI* pb = GatherRun(buf[0], b + i * sb, &eb, m);
    const TI* pc = GatherRun(buf[1], c + i * sc, &ec, m);
    Row3(m, o + i, 1, pa, ea, pb, eb, pc, ec, f, stream);
  }
}

// One row of a three-input op. The first input may have its own type (where's condition).
template <typename TO, typename TC, typename TI, class F>
HWY_NOINLINE void Row3(int64_t n, TO* o, int64_t so, const TC* a, int64_t sa, const TI* b,
                     int64_t sb, const TI* c, int64_t sc, const F& f, bool stream) {
  if (so == 1 && n >= 64 && ((sa | 1) != 1 || (sb | 1) != 1 || (sc | 1) != 1))
    return Row3Gathered(n, o, a, sa, b, sb, c, sc, f, stream);
  if (so == 1 && (sa | 1) == 1 && (sb | 1) == 1 && (sc | 1) == 1) {
    switch ((sa << 2) | (sb << 1) | sc) {
      case 0: {
        const TO v = f(a[0], b[0], c[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
        return;
      }
      case 1: return Loop3<0, 0, 1>(n, o, a, sa, b, sb, c, sc, f, stream);
      case 2: return Loop3<0, 1, 0>(n, o, a, sa, b, sb, c, sc, f, stream);
      case 3: return Loop3<0, 1, 1>(n, o, a, sa, b, sb, c, sc, f, stream);
      case 4: return Loop3<1, 0, 0>(n, o, a, sa, b, sb, c, sc, f, stream);
      case 5: return Loop3<1, 0, 1>(n, o, a, sa, b, sb, c, sc, f, stream);
      case 6: return Loop3<1, 1, 0>(n, o, a, sa, b, sb, c, sc, f, stream);
      default: return Loop3<1, 1, 1>(n, o, a, sa, b, sb, c, sc, f, stream);
    }
  }
  for (int64_t i = 0; i < n; ++i) o[i * so] = f(a[i * sa], b[i * sb], c[i * sc]);
}

// Tiles for three inputs: 32 x 32, so that three gathered inputs fit in
// 24 KiB of stack even for 8-byte elements.
template <typename TO, typename TC, typename TI, class F>
HWY_NOINLINE void Tiled3(const Block& b, const F& f) {
  constexpr int64_t T = kTileSide / 2;
  TileInput<T, TC> x;
  TileInput<T, TI> y, z;
  TO* o = reinterpret_cast<TO*>(b.ptr[0]);
  const bool stream = b.stream && b.s0[0] == 1;
  ForEachTile<T>(b, [&](const TileSpot& t) {
    PrepareTile(x, b, 1, t);
    PrepareTile(y, b, 2, t);
    PrepareTile(z, b, 3, t);
    for (int64_t r = 0; r < t.rows; ++r) {
      x.next.Run(r);
      y.next.Run(r);
      z.next.Run(r);
      Row3(t.len, o + (t.r0 + r) * b.s1[0] + t.c0 * b.s0[0], b.s0[0], x.in + r * x.s1, x.s0,
           y.in + r * y.s1, y.s0, z.in + r * z.s1, z.s0, f, stream);
    }
  });
  if (stream) hwy::FlushStream();
}

template <typename TO, typename TC, typename TI, class F>
HWY_INLINE void Rows3(const Block& b, const F& f) {
  if (WantsTiles(b, 4)) return Tiled3<TO, TC, TI>(b, f);
  for (int64_t r = 0; r < b.n1; ++r) {
    Row3(b.n0, reinterpret_cast<TO*>(b.ptr[0]) + r * b.s1[0], b.s0[0],
         reinterpret_cast<const TC*>(b.ptr[1]) + r * b.s1[1], b.s0[1],
         reinterpret_cast<const TI*>(b.ptr[2]) + r * b.s1[2], b.s0[2],
         reinterpret_cast<const TI*>(b.ptr[3]) + r * b.s1[3], b.s0[3], f, b.stream);
  }
  if (b.stream) hwy::FlushStream();
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_LOOPS_INL_H_
