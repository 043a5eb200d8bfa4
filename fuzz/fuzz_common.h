// Shared pieces of the libFuzzer targets: value pickers that favour the
// interesting sizes (0, 1, small, huge, negative), a failure macro that
// aborts with the reason (libFuzzer then saves the input), and the checks
// every failed call must pass.
#ifndef BCAST_FUZZ_FUZZ_COMMON_H_
#define BCAST_FUZZ_FUZZ_COMMON_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bcast/bcast.h"

#define FUZZ_CHECK(cond, ...)                                                     \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "\nFUZZ_CHECK failed at %s:%d: %s\n  ", __FILE__,      \
                   __LINE__, #cond);                                              \
      std::fprintf(stderr, __VA_ARGS__);                                          \
      std::fprintf(stderr, "\n  last error: %s \"%s\"\n",                         \
                   bc_status_string(bcfuzz::LastCode()), bc_last_error());        \
      std::abort();                                                               \
    }                                                                             \
  } while (0)

extern "C" {
// fuzz_shim.c: the same functions with ints where the header has enums.
bc_status fuzz_tensor_wrap(int dtype, const int64_t* shape, const int64_t* strides, size_t ndim,
                           void* data, size_t nbytes, bc_deleter deleter, void* ctx,
                           bc_tensor** out);
bc_status fuzz_binary(int op, const bc_tensor* a, const bc_tensor* b, bc_tensor** out);
bc_status fuzz_binary_out(int op, const bc_tensor* a, const bc_tensor* b, bc_tensor* out);
bc_status fuzz_binary_(int op, bc_tensor* self, const bc_tensor* other);
bc_status fuzz_binary_alpha(int op, const bc_tensor* a, const bc_tensor* b, double alpha,
                            bc_tensor** out);
bc_status fuzz_binary_alpha_out(int op, const bc_tensor* a, const bc_tensor* b, double alpha,
                                bc_tensor* out);
bc_status fuzz_binary_alpha_(int op, bc_tensor* self, const bc_tensor* other, double alpha);
bc_status fuzz_unary(int op, const bc_tensor* x, bc_tensor** out);
bc_status fuzz_unary_out(int op, const bc_tensor* x, bc_tensor* out);
bc_status fuzz_unary_(int op, bc_tensor* self);
bc_status fuzz_unary_ex(int op, const bc_tensor* x, const bc_unary_params* params,
                        bc_tensor** out);
bc_status fuzz_unary_ex_out(int op, const bc_tensor* x, const bc_unary_params* params,
                            bc_tensor* out);
bc_status fuzz_unary_ex_(int op, bc_tensor* self, const bc_unary_params* params);
bc_status fuzz_to(const bc_tensor* x, int dtype, bc_tensor** out);
bc_status fuzz_reduce_ex(int op, const bc_tensor* x, const int64_t* dims, size_t ndims, int keepdim,
                         const bc_reduce_params* params, bc_tensor** out);
bc_status fuzz_reduce_ex_out(int op, const bc_tensor* x, const int64_t* dims, size_t ndims,
                             int keepdim, const bc_reduce_params* params, bc_tensor* out);
}

namespace bcfuzz {

// BCAST_FUZZ_AVOID_KNOWN_BUGS=1 steers the targets around engine bugs that
// are reported but not fixed yet, so that a long run can look for new ones
// (see docs/reliability.md). The test command runs without it.
inline bool AvoidKnownBugs() {
  static const bool avoid = std::getenv("BCAST_FUZZ_AVOID_KNOWN_BUGS") != nullptr;
  return avoid;
}

// The product of max(size, 1) overflows int64: the contiguous strides and
// the running element count of such a (0-element) shape overflow (known
// bugs: NewTensor, bc_tensor_wrap's NULL strides, Numel).
inline bool StridesOverflow(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s)
    if (d > 1 && __builtin_mul_overflow(n, d, &n)) return true;
  return false;
}

inline bc_status LastCode() {
  bc_error_detail d;
  return bc_last_error_detail(&d);
}

// A dimension size: mostly small, sometimes 0, huge or negative.
inline int64_t PickSize(FuzzedDataProvider& p, int64_t small_max = 5) {
  const uint8_t k = p.ConsumeIntegral<uint8_t>();
  if (k < 200) return k % (small_max + 1);
  switch (k % 8) {
    case 0: return -1;
    case 1: return std::numeric_limits<int64_t>::max();
    case 2: return int64_t{1} << 32;
    case 3: return std::numeric_limits<int64_t>::min();
    case 4: return -2;
    case 5: return int64_t{1} << 62;
    case 6: return p.ConsumeIntegral<int64_t>();
    default: return p.ConsumeIntegralInRange<int64_t>(0, 70);
  }
}

// A stride in elements: mostly small, sometimes 0, huge or negative.
inline int64_t PickStride(FuzzedDataProvider& p) {
  const uint8_t k = p.ConsumeIntegral<uint8_t>();
  if (k < 220) return k % 9;
  switch (k % 4) {
    case 0: return -1;
    case 1: return std::numeric_limits<int64_t>::max() / 3;
    case 2: return p.ConsumeIntegral<int64_t>();
    default: return int64_t{1} << 40;
  }
}

// A dtype as an int: with allow_invalid, sometimes one no enumerator has
// (only the C shims in fuzz_shim.c may pass it on).
inline int PickDtype(FuzzedDataProvider& p, bool allow_invalid) {
  const uint8_t k = p.ConsumeIntegral<uint8_t>();
  // Known bug: out-of-range enum values are UB inside the library.
  if (AvoidKnownBugs()) allow_invalid = false;
  if (allow_invalid && k >= 250) return k >= 254 ? -1 - (k - 254) : static_cast<int>(k) - 240;
  return k % 10;
}

inline bool ValidDtype(int d) { return d >= 0 && d <= 9; }

inline size_t ElemSize(int d) {
  switch (d) {
    case BC_BOOL: case BC_UINT8: case BC_INT8: return 1;
    case BC_INT16: case BC_FLOAT16: case BC_BFLOAT16: return 2;
    case BC_INT32: case BC_FLOAT32: return 4;
    case BC_INT64: case BC_FLOAT64: return 8;
  }
  return 0;
}

inline bool IsKnownStatus(bc_status s) {
  return s >= BC_OK && s <= BC_ERR_CALLBACK && s != BC_ERR_INTERNAL;
}

// What every failed call owes its caller: a known status that is also the
// detail's code, and a message.
inline void CheckFailure(bc_status s, const char* what) {
  FUZZ_CHECK(IsKnownStatus(s), "%s returned status %d", what, static_cast<int>(s));
  if (s == BC_OK) return;
  bc_error_detail d;
  FUZZ_CHECK(bc_last_error_detail(&d) == s && d.code == s, "%s: detail code %d for status %s",
             what, static_cast<int>(d.code), bc_status_string(s));
  FUZZ_CHECK(bc_last_error()[0] != '\0', "%s: empty message for %s", what, bc_status_string(s));
}

// Reference broadcast of two shapes: 1 = ok, 0 = not broadcastable.
inline bool RefBroadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                         std::vector<int64_t>* out) {
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  std::vector<int64_t> r(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (sa == sb || sb == 1) r[i] = sa;
    else if (sa == 1) r[i] = sb;
    else return false;
  }
  *out = r;
  return true;
}

// Product of sizes, or -1 when it overflows int64 (0 if any size is 0).
inline int64_t NumelOrMinus1(const std::vector<int64_t>& s) {
  for (int64_t d : s)
    if (d == 0) return 0;
  int64_t n = 1;
  for (int64_t d : s)
    if (__builtin_mul_overflow(n, d, &n)) return -1;
  return n;
}

inline bool ValidShape(const std::vector<int64_t>& s) {
  if (s.size() > BC_MAX_DIMS) return false;
  for (int64_t d : s)
    if (d < 0) return false;
  return true;
}

}  // namespace bcfuzz

#endif  // BCAST_FUZZ_FUZZ_COMMON_H_
