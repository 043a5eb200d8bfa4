#include "core/dtype.h"

#include "kernels/kernels.h"

namespace bcast {

namespace {

struct Names {
  const char* torch;
  const char* cpp;
  const char* checked;
  const char* tensor;
};
constexpr Names kNames[] = {
#define BCAST_DTYPE(Id, CType, kind, torch, cpp, checked, tensor, dlpack) {torch, cpp, checked, tensor},
#include "core/dtype_table.def"
};

}  // namespace

const char* DtypeName(bc_dtype d) { return ValidDtype(d) ? kNames[d].torch : "Unknown"; }
const char* DtypeTensorName(bc_dtype d) { return ValidDtype(d) ? kNames[d].tensor : "torch.Tensor"; }
const char* CppTypeName(bc_dtype d) { return ValidDtype(d) ? kNames[d].cpp : "unknown"; }
const char* CheckedTypeName(bc_dtype d) { return ValidDtype(d) ? kNames[d].checked : "unknown"; }

// c10::promoteTypes on the table's kinds and widths.
bc_dtype PromoteTypes(bc_dtype a, bc_dtype b) {
  if (a == b) return a;
  if (KindOf(a) == kBoolKind) return b;
  if (KindOf(b) == kBoolKind) return a;
  if (IsFloating(a) != IsFloating(b)) return IsFloating(a) ? a : b;
  if (IsFloating(a)) {
    if (IsHalf(a) && IsHalf(b)) return BC_FLOAT32;  // float16 with bfloat16
    return DtypeSize(a) > DtypeSize(b) ? a : b;
  }
  // Both integral. An unsigned type with a signed one needs a signed type
  // wider than the unsigned (uint8 with int8: int16).
  if (KindOf(a) != KindOf(b)) {
    const bc_dtype u = KindOf(a) == kUnsignedKind ? a : b, s = u == a ? b : a;
    if (DtypeSize(s) > DtypeSize(u)) return s;
    for (int d = 0; d < kNumDtypes; ++d) {
      const bc_dtype w = static_cast<bc_dtype>(d);
      if (KindOf(w) == kSignedKind && DtypeSize(w) == 2 * DtypeSize(u)) return w;
    }
    return BC_INT64;
  }
  return DtypeSize(a) > DtypeSize(b) ? a : b;
}

bool CanCast(bc_dtype from, bc_dtype to) {
  if (IsFloating(from) && !IsFloating(to)) return false;
  if (from != BC_BOOL && to == BC_BOOL) return false;
  return true;
}

float F16ToF32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t man = h & 0x3FF;
  uint32_t u;
  if (exp == 0x1F) {
    u = sign | 0x7F800000 | (man << 13);
  } else if (exp != 0) {
    u = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    u = sign;
  } else {  // subnormal: normalise
    int e = -1;
    do {
      man <<= 1;
      ++e;
    } while ((man & 0x400) == 0);
    u = sign | (static_cast<uint32_t>(112 - e) << 23) | ((man & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void ConvertStrided(bc_dtype to, void* dst, int64_t dst_stride, bc_dtype from, const void* src,
                    int64_t src_stride, int64_t n) {
  // float32 <-> bfloat16, the conversions of every bfloat16 op, run as SIMD kernels.
  if (dst_stride == 1 && src_stride == 1 && RunConvertKernel(to, dst, from, src, n, false)) return;
  VisitDtype(to, [&](auto t) {
    using To = decltype(t);
    VisitDtype(from, [&](auto f) {
      using From = decltype(f);
      To* d = static_cast<To*>(dst);
      const From* s = static_cast<const From*>(src);
      if (dst_stride == 1 && src_stride == 1) {  // lets the compiler vectorise
        // The executor converts a tile of each operand in turn, which hardware
        // prefetchers follow poorly: fetch 4 KiB ahead, a line at a time.
        constexpr int64_t kLine = 64 / sizeof(From) > 0 ? 64 / sizeof(From) : 1;
        constexpr int64_t kAhead = 4096 / sizeof(From);
        for (int64_t i = 0; i < n; i += kLine) {
          __builtin_prefetch(s + i + kAhead);  // never faults, even past the end
          const int64_t end = i + kLine < n ? i + kLine : n;
          for (int64_t j = i; j < end; ++j) d[j] = Convert<To>(s[j]);
        }
      } else {
        for (int64_t i = 0; i < n; ++i) d[i * dst_stride] = Convert<To>(s[i * src_stride]);
      }
    });
  });
}

void ConvertStridedVia(bc_dtype to, void* dst, int64_t dst_stride, bc_dtype via, bc_dtype from,
                       const void* src, int64_t src_stride, int64_t n) {
  if (via == to || via == from || !IsHalf(via)) {
    ConvertStrided(to, dst, dst_stride, from, src, src_stride, n);
    return;
  }
  VisitDtype(to, [&](auto t) {
    using To = decltype(t);
    VisitDtype(from, [&](auto f) {
      using From = decltype(f);
      To* d = static_cast<To*>(dst);
      const From* s = static_cast<const From*>(src);
      for (int64_t i = 0; i < n; ++i) {
        d[i * dst_stride] = via == BC_FLOAT16 ? Convert<To>(Convert<f16>(s[i * src_stride]))
                                              : Convert<To>(Convert<bf16>(s[i * src_stride]));
      }
    });
  });
}

}  // namespace bcast
