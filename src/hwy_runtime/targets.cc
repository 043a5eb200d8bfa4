// The three Highway run-time functions bcast's dispatch calls
// (hwy::SupportedTargets, hwy::GetChosenTarget, hwy::DisableTargets), written
// for bcast so that libbcast.a needs no libhwy at link or run time: Highway
// stays a build-time, header-only dependency of the static library. The
// shared library keeps linking the system's libhwy.
//
// CPU detection is deliberately conservative: a target is reported only when
// CPUID says every extension its Highway target uses is present and the OS
// saves the registers (XCR0); anything not recognised runs the compiled
// baseline, which is always safe. The archive is partially linked and these
// symbols made local (CMakeLists.txt), so a program that also links Highway
// itself gets no clash.
#include <atomic>
#include <cstdint>

#include "hwy/targets.h"

#if HWY_ARCH_X86_64 && HWY_HAVE_RUNTIME_DISPATCH && (HWY_COMPILER_GCC || HWY_COMPILER_CLANG)
#include <cpuid.h>
#define BCAST_DETECT_X86 1
#else
#define BCAST_DETECT_X86 0
#endif

namespace hwy {
namespace {

std::atomic<int64_t> g_disabled{0};

#if BCAST_DETECT_X86
bool Bit(uint32_t reg, int i) { return (reg >> i) & 1u; }

// Register bits (Intel SDM vol. 2A, CPUID) each Highway x86 target uses.
int64_t DetectX86() {
  unsigned a, b, c, d;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
  const unsigned max_leaf = a;
  const bool amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u;  // "AuthenticAMD"
  __cpuid(1, a, b, c, d);
  const uint32_t c1 = c, d1 = d;
  uint32_t b7 = 0, c7 = 0;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    b7 = b;
    c7 = c;
  }
  uint32_t c81 = 0;
  __cpuid(0x80000000u, a, b, c, d);
  if (a >= 0x80000001u) {
    __cpuid(0x80000001u, a, b, c, d);
    c81 = c;
  }

  const bool sse2 = Bit(d1, 25) && Bit(d1, 26);
  const bool ssse3 = sse2 && Bit(c1, 0) && Bit(c1, 9);
  const bool sse4 = ssse3 && Bit(c1, 19) && Bit(c1, 20) && Bit(c1, 1) /*CLMUL*/ &&
                    Bit(c1, 25) /*AES*/;
  bool avx2 = sse4 && Bit(c1, 28) /*AVX*/ && Bit(b7, 5) /*AVX2*/ && Bit(c81, 5) /*LZCNT*/ &&
              Bit(b7, 3) /*BMI*/ && Bit(b7, 8) /*BMI2*/ && Bit(c1, 12) /*FMA*/ &&
              Bit(c1, 29) /*F16C*/;
  bool avx3 = avx2 && Bit(b7, 16) /*F*/ && Bit(b7, 17) /*DQ*/ && Bit(b7, 28) /*CD*/ &&
              Bit(b7, 30) /*BW*/ && Bit(b7, 31) /*VL*/;
  bool avx3_dl = avx3 && Bit(c7, 1) /*VBMI*/ && Bit(c7, 6) /*VBMI2*/ && Bit(c7, 8) /*GFNI*/ &&
                 Bit(c7, 9) /*VAES*/ && Bit(c7, 10) /*VPCLMULQDQ*/ && Bit(c7, 11) /*VNNI*/ &&
                 Bit(c7, 12) /*BITALG*/ && Bit(c7, 14) /*VPOPCNTDQ*/;

  // The OS must save YMM (XCR0 bits 1, 2) and opmask/ZMM state (5, 6, 7).
  if (Bit(c1, 27) /*OSXSAVE*/) {
    uint32_t xcr0, xcr0_high;
    __asm__ volatile(".byte 0x0F, 0x01, 0xD0" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
    if (!Bit(xcr0, 1) || !Bit(xcr0, 2)) avx2 = avx3 = avx3_dl = false;
    if (!Bit(xcr0, 5) || !Bit(xcr0, 6) || !Bit(xcr0, 7)) avx3 = avx3_dl = false;
  } else {
    avx2 = avx3 = avx3_dl = false;
  }

  int64_t bits = 0;
#ifdef HWY_SSE2  // Highway 1.1 and later
  bits |= HWY_SSE2;  // every x86-64 CPU
#endif
  if (ssse3) bits |= HWY_SSSE3;
  if (sse4) bits |= HWY_SSE4;
  if (avx2) bits |= HWY_AVX2;
  if (avx3) bits |= HWY_AVX3;
  if (avx3_dl) bits |= HWY_AVX3_DL;
#ifdef HWY_AVX3_ZEN4
  if (avx3_dl && amd) bits |= HWY_AVX3_ZEN4;
#else
  (void)amd;
#endif
  return bits;
}
#endif  // BCAST_DETECT_X86

int64_t Detect() {
  int64_t bits = HWY_SCALAR | HWY_EMU128 | HWY_ENABLED_BASELINE;
#if BCAST_DETECT_X86
  bits |= DetectX86();
#endif
  return bits;
}

}  // namespace

int64_t SupportedTargets() {
  static const int64_t detected = Detect();
  int64_t bits = detected & ~g_disabled.load(std::memory_order_relaxed);
  // Never leave dispatch without a target: the static one always runs here.
  if ((bits & HWY_TARGETS) == 0) bits = HWY_STATIC_TARGET;
  return bits;
}

void DisableTargets(int64_t disabled_targets) {
  g_disabled.store(disabled_targets, std::memory_order_relaxed);
  GetChosenTarget().DeInit();
}

ChosenTarget& GetChosenTarget() {
  static ChosenTarget chosen;
  return chosen;
}

}  // namespace hwy
