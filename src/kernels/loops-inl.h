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
  for (; i < n; ++i) o[i] = f(a[At<SA>(i, sa)], b[At<SB>(i, sb)]);
}

// One row of a two-input op; `so` is the output's element stride. Not forced
// inline: the tiled and plain row walks share one copy per op and type.
template <typename TO, typename TI, class F>
HWY_NOINLINE void Row2(int64_t n, TO* o, int64_t so, const TI* a, int64_t sa, const TI* b,
                     int64_t sb, const F& f, bool stream) {
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

template <typename TO, typename TI, class F>
HWY_INLINE void Rows2(const Block& b, const F& f) {
  TO* o = reinterpret_cast<TO*>(b.ptr[0]);
  const TI* x = reinterpret_cast<const TI*>(b.ptr[1]);
  const TI* y = reinterpret_cast<const TI*>(b.ptr[2]);
  if (WantsRunTile(b, 3)) return RunTiled2<TO, TI>(b, f);
  if (WantsTiles(b, 3)) {
    for (int64_t r0 = 0; r0 < b.n1; r0 += kTileSide) {
      const int64_t r1 = r0 + kTileSide < b.n1 ? r0 + kTileSide : b.n1;
      for (int64_t c0 = 0; c0 < b.n0; c0 += kTileSide) {
        const int64_t len = c0 + kTileSide < b.n0 ? kTileSide : b.n0 - c0;
        for (int64_t r = r0; r < r1; ++r) {
          Row2(len, o + r * b.s1[0] + c0 * b.s0[0], b.s0[0], x + r * b.s1[1] + c0 * b.s0[1],
               b.s0[1], y + r * b.s1[2] + c0 * b.s0[2], b.s0[2], f, false);
        }
      }
    }
    return;
  }
  for (int64_t r = 0; r < b.n1; ++r) {
    Row2(b.n0, o + r * b.s1[0], b.s0[0], x + r * b.s1[1], b.s0[1], y + r * b.s1[2], b.s0[2], f,
         b.stream);
  }
  if (b.stream) hwy::FlushStream();
}

template <int SA, int SB, int SC, typename TO, typename TC, typename TI, class F>
HWY_INLINE void Loop3(int64_t n, TO* o, const TC* a, int64_t sa, const TI* b, int64_t sb,
                      const TI* c, int64_t sc, const F& f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[At<SA>(i, sa)], b[At<SB>(i, sb)], c[At<SC>(i, sc)]);
}

// One row of a three-input op. The first input may have its own type (where's condition).
template <typename TO, typename TC, typename TI, class F>
HWY_NOINLINE void Row3(int64_t n, TO* o, int64_t so, const TC* a, int64_t sa, const TI* b,
                     int64_t sb, const TI* c, int64_t sc, const F& f) {
  if (so == 1 && (sa | 1) == 1 && (sb | 1) == 1 && (sc | 1) == 1) {
    switch ((sa << 2) | (sb << 1) | sc) {
      case 0: {
        const TO v = f(a[0], b[0], c[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
        return;
      }
      case 1: return Loop3<0, 0, 1>(n, o, a, sa, b, sb, c, sc, f);
      case 2: return Loop3<0, 1, 0>(n, o, a, sa, b, sb, c, sc, f);
      case 3: return Loop3<0, 1, 1>(n, o, a, sa, b, sb, c, sc, f);
      case 4: return Loop3<1, 0, 0>(n, o, a, sa, b, sb, c, sc, f);
      case 5: return Loop3<1, 0, 1>(n, o, a, sa, b, sb, c, sc, f);
      case 6: return Loop3<1, 1, 0>(n, o, a, sa, b, sb, c, sc, f);
      default: return Loop3<1, 1, 1>(n, o, a, sa, b, sb, c, sc, f);
    }
  }
  for (int64_t i = 0; i < n; ++i) o[i * so] = f(a[i * sa], b[i * sb], c[i * sc]);
}

template <typename TO, typename TC, typename TI, class F>
HWY_INLINE void Rows3(const Block& b, const F& f) {
  if (WantsTiles(b, 4)) {
    for (int64_t r0 = 0; r0 < b.n1; r0 += kTileSide) {
      const int64_t r1 = r0 + kTileSide < b.n1 ? r0 + kTileSide : b.n1;
      for (int64_t c0 = 0; c0 < b.n0; c0 += kTileSide) {
        const int64_t len = c0 + kTileSide < b.n0 ? kTileSide : b.n0 - c0;
        for (int64_t r = r0; r < r1; ++r) {
          Row3(len, reinterpret_cast<TO*>(b.ptr[0]) + r * b.s1[0] + c0 * b.s0[0], b.s0[0],
               reinterpret_cast<const TC*>(b.ptr[1]) + r * b.s1[1] + c0 * b.s0[1], b.s0[1],
               reinterpret_cast<const TI*>(b.ptr[2]) + r * b.s1[2] + c0 * b.s0[2], b.s0[2],
               reinterpret_cast<const TI*>(b.ptr[3]) + r * b.s1[3] + c0 * b.s0[3], b.s0[3], f);
        }
      }
    }
    return;
  }
  for (int64_t r = 0; r < b.n1; ++r) {
    Row3(b.n0, reinterpret_cast<TO*>(b.ptr[0]) + r * b.s1[0], b.s0[0],
         reinterpret_cast<const TC*>(b.ptr[1]) + r * b.s1[1], b.s0[1],
         reinterpret_cast<const TI*>(b.ptr[2]) + r * b.s1[2], b.s0[2],
         reinterpret_cast<const TI*>(b.ptr[3]) + r * b.s1[3], b.s0[3], f);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_LOOPS_INL_H_
