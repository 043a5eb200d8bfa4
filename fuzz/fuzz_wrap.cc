// Fuzzes bc_tensor_wrap over an exactly-sized heap buffer with arbitrary
// dtypes, shapes, strides, offsets and sizes. A wrap must succeed exactly
// when every element lies inside the buffer (and the rest is valid); what it
// accepts is then read (copy_to, clone, an op) and written (in place), and
// AddressSanitizer reports any access outside the buffer. Values are checked
// against a gather by the strides.
#include <algorithm>

#include "fuzz_common.h"

namespace {

struct Spec {
  int dtype;  // may be no bc_dtype at all
  std::vector<int64_t> shape, strides;
  bool null_strides;
  size_t alloc, offset, claimed;
};

// Offsets (in elements) of every element, row-major; false if the wrap is
// invalid or too large to enumerate.
bool Offsets(const Spec& s, std::vector<int64_t>* offs) {
  const int64_t n = bcfuzz::NumelOrMinus1(s.shape);
  if (n < 0 || n > (1 << 15)) return false;
  offs->assign(static_cast<size_t>(n), 0);
  std::vector<int64_t> idx(s.shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t o = 0;
    for (size_t d = 0; d < s.shape.size(); ++d) o += idx[d] * s.strides[d];
    (*offs)[k] = o;
    for (size_t d = s.shape.size(); d-- > 0;) {
      if (++idx[d] < s.shape[d]) break;
      idx[d] = 0;
    }
  }
  return true;
}

// 1 valid, 0 invalid, -1 cannot tell cheaply (huge but maybe valid).
int RefValid(const Spec& s, const void* data) {
  if (!bcfuzz::ValidDtype(s.dtype) || !bcfuzz::ValidShape(s.shape)) return 0;
  for (int64_t st : s.strides)
    if (st < 0) return 0;
  const int64_t numel = bcfuzz::NumelOrMinus1(s.shape);
  if (numel < 0) return 0;  // overflow
  if (numel == 0) return 1;
  const size_t es = bcfuzz::ElemSize(s.dtype);
  if (reinterpret_cast<uintptr_t>(data) % es != 0) return 0;
  // Highest offset, with overflow treated as out of bounds.
  // Each term is below 2^126 and the buffer below 2^12: stop once past 2^80.
  __int128 last = 0;
  for (size_t d = 0; d < s.shape.size(); ++d) {
    last += static_cast<__int128>(s.shape[d] - 1) * s.strides[d];
    if (last > (static_cast<__int128>(1) << 80)) return 0;
  }
  const __int128 need = (last + 1) * static_cast<__int128>(es);
  return need <= static_cast<__int128>(s.claimed) ? 1 : 0;
}

void CheckReads(bc_tensor* t, const Spec& s, const unsigned char* data) {
  std::vector<int64_t> offs;
  if (!Offsets(s, &offs)) return;
  const size_t es = bcfuzz::ElemSize(s.dtype);
  std::vector<unsigned char> got(offs.size() * es + 1);
  FUZZ_CHECK(bc_tensor_copy_to(t, got.data(), got.size()) == BC_OK, "copy_to");
  for (size_t k = 0; k < offs.size(); ++k)
    FUZZ_CHECK(std::memcmp(&got[k * es], data + offs[k] * es, es) == 0, "element %zu", k);
  // Too small a destination is refused, and nothing is written past it.
  if (!offs.empty()) {
    std::vector<unsigned char> small(offs.size() * es - 1);
    FUZZ_CHECK(bc_tensor_copy_to(t, small.data(), small.size()) == BC_ERR_OUT_OF_BOUNDS,
               "short copy_to");
  }
  bc_tensor* c = nullptr;
  FUZZ_CHECK(bc_tensor_clone(t, &c) == BC_OK, "clone");
  std::vector<unsigned char> again(got.size());
  FUZZ_CHECK(bc_tensor_copy_to(c, again.data(), again.size()) == BC_OK, "copy_to clone");
  FUZZ_CHECK(std::memcmp(again.data(), got.data(), offs.size() * es) == 0, "clone differs");
  FUZZ_CHECK(bc_tensor_is_contiguous(c) == 1, "clone not contiguous");
  // An op reading the wrapped view through its strides.
  bc_tensor* r = nullptr;
  const bc_op op = s.dtype == BC_BOOL ? BC_LOGICAL_OR : BC_MAXIMUM;  // valid dtype here
  const bc_status st = bc_binary(op, t, c, &r);
  bcfuzz::CheckFailure(st, "bc_binary over a wrapped view");
  FUZZ_CHECK(st == BC_OK, "op over a valid view: %s", bc_status_string(st));
  bc_tensor_free(r);
  bc_tensor_free(c);
}

// In place: t = maximum(t, t) writes every element with its own value, so
// the buffer's bytes must not change (NaN payloads aside: bytes of a NaN may
// be any NaN, so floats are compared as "both NaN or equal bits"). Refused
// when elements share memory.
void CheckWrite(bc_tensor* t, const Spec& s, unsigned char* data, size_t alloc) {
  std::vector<int64_t> offs;
  if (!Offsets(s, &offs)) return;
  std::vector<int64_t> sorted = offs;
  std::sort(sorted.begin(), sorted.end());
  const bool dup = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  std::vector<unsigned char> before(data, data + alloc);
  const bc_op op = s.dtype == BC_BOOL ? BC_LOGICAL_OR : BC_MINIMUM;
  const bc_status st = bc_binary_(op, t, t);
  bcfuzz::CheckFailure(st, "bc_binary_ in place");
  if (dup) FUZZ_CHECK(st == BC_ERR_OVERLAP, "self-overlapping tensor written: %s", bc_status_string(st));
  FUZZ_CHECK(st == BC_OK || st == BC_ERR_OVERLAP, "status %s", bc_status_string(st));
  if (st != BC_OK) {
    FUZZ_CHECK(alloc == 0 || std::memcmp(before.data(), data, alloc) == 0,
               "failed write changed the buffer");
    return;
  }
  const bool is_float = s.dtype >= BC_FLOAT16;
  const size_t es = bcfuzz::ElemSize(s.dtype);
  for (size_t i = 0; i < alloc; i += es) {
    if (i + es > alloc) break;
    if (std::memcmp(&before[i], data + i, es) == 0) continue;
    FUZZ_CHECK(is_float || s.dtype == BC_BOOL, "byte %zu changed", i);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  FuzzedDataProvider p(bytes, size);
  Spec s;
  s.dtype = bcfuzz::PickDtype(p, true);
  const uint8_t k = p.ConsumeIntegral<uint8_t>();
  const size_t nd = k < 240 ? k % 5 : p.ConsumeIntegralInRange<size_t>(0, 36);
  s.null_strides = p.ConsumeIntegralInRange<int>(0, 3) == 0;
  s.shape.resize(nd);
  s.strides.resize(nd);
  for (size_t i = 0; i < nd; ++i) {
    s.shape[i] = bcfuzz::PickSize(p, 6);
    s.strides[i] = bcfuzz::PickStride(p);
  }
  if (s.null_strides) {
    int64_t expected = 1;
    for (size_t i = nd; i-- > 0;) {
      s.strides[i] = expected;
      if (s.shape[i] > 1 && !__builtin_mul_overflow(expected, s.shape[i], &expected)) continue;
      if (s.shape[i] > 1) expected = INT64_MAX;  // nonsense either way: the wrap must fail
    }
  }
  if (bcfuzz::AvoidKnownBugs() && bcfuzz::StridesOverflow(s.shape)) return 0;
  // Known bug: a plan over a 0-element view with huge strides overflows.
  if (bcfuzz::AvoidKnownBugs() && bcfuzz::NumelOrMinus1(s.shape) == 0) {
    __int128 reach = 0;
    for (size_t i = 0; i < nd; ++i) reach += static_cast<__int128>(s.shape[i]) * (s.strides[i] < 0 ? 0 : s.strides[i]);
    if (reach > (static_cast<__int128>(1) << 60)) return 0;
  }
  s.alloc = p.ConsumeIntegralInRange<size_t>(0, 2048);
  s.offset = std::min(s.alloc, p.ConsumeIntegralInRange<size_t>(0, 24));
  s.claimed = s.alloc - s.offset;
  if (p.ConsumeBool()) s.claimed = std::min(s.claimed, p.ConsumeIntegralInRange<size_t>(0, 2048));
  // Exactly `alloc` bytes: one byte past it is an ASan report.
  unsigned char* base = static_cast<unsigned char*>(std::malloc(s.alloc == 0 ? 1 : s.alloc));
  std::vector<uint8_t> fill = p.ConsumeRemainingBytes<uint8_t>();
  for (size_t i = 0; i < s.alloc; ++i) base[i] = fill.empty() ? static_cast<uint8_t>(i) : fill[i % fill.size()];
  if (s.dtype == BC_BOOL)
    for (size_t i = 0; i < s.alloc; ++i) base[i] &= 1;
  unsigned char* data = base + s.offset;
  const bool data_null = s.alloc == 0;

  int deleted = 0;
  bc_tensor* t = reinterpret_cast<bc_tensor*>(0x10);
  const bc_status st = fuzz_tensor_wrap(
      s.dtype, nd ? s.shape.data() : nullptr, s.null_strides ? nullptr : s.strides.data(), nd,
      data_null ? nullptr : data, s.claimed, [](void*, void* ctx) { ++*static_cast<int*>(ctx); },
      &deleted, &t);
  bcfuzz::CheckFailure(st, "bc_tensor_wrap");
  int ref = RefValid(s, data);
  if (data_null && ref == 1 && bcfuzz::NumelOrMinus1(s.shape) > 0) ref = 0;
  if (ref == 1) FUZZ_CHECK(st == BC_OK, "valid wrap refused: %s", bc_status_string(st));
  if (ref == 0) FUZZ_CHECK(st != BC_OK, "invalid wrap accepted");
  if (st != BC_OK) {
    FUZZ_CHECK(t == nullptr, "out not NULL on failure");
    FUZZ_CHECK(deleted == 0, "deleter called on failure");
  } else {
    FUZZ_CHECK(bc_tensor_ndim(t) == nd, "ndim");
    for (size_t i = 0; i < nd; ++i) {
      FUZZ_CHECK(bc_tensor_shape(t)[i] == s.shape[i], "shape");
      if (s.shape[i] > 1 && bcfuzz::NumelOrMinus1(s.shape) > 0)
        FUZZ_CHECK(bc_tensor_strides(t)[i] == s.strides[i], "stride");
    }
    CheckReads(t, s, data);
    CheckWrite(t, s, data, s.alloc - s.offset);
    bc_tensor* v = nullptr;
    FUZZ_CHECK(bc_tensor_view(t, &v) == BC_OK, "view");
    bc_tensor_free(t);
    FUZZ_CHECK(deleted == 0, "deleter ran while a view lives");
    bc_tensor_free(v);
    FUZZ_CHECK(deleted == 1, "deleter ran %d times", deleted);
  }
  std::free(base);
  return 0;
}
