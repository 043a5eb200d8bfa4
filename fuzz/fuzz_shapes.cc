// Fuzzes the shape entry points with arbitrary dimension counts and sizes:
// bc_broadcast_shapes, bc_broadcast_shapes_n, bc_expand, bc_broadcast_tensors
// and bc_sum_to_shape, each checked against a naive reference (the result
// shape, the view's strides and elements, the sums).
#include <map>

#include "fuzz_common.h"

using bcfuzz::PickSize;

namespace {

using Shape = std::vector<int64_t>;

Shape PickShape(FuzzedDataProvider& p, size_t max_ndim = 36) {
  const uint8_t k = p.ConsumeIntegral<uint8_t>();
  size_t nd = k < 240 ? k % 6 : p.ConsumeIntegralInRange<size_t>(0, max_ndim);
  Shape s(nd);
  for (int64_t& d : s) d = PickSize(p);
  return s;
}

// A small contiguous int32 tensor of shape s holding 0, 1, 2, ...
bc_tensor* Iota(const Shape& s) {
  const int64_t n = bcfuzz::NumelOrMinus1(s);
  if (n < 0 || n > 4096 || !bcfuzz::ValidShape(s)) return nullptr;
  if (bcfuzz::AvoidKnownBugs() && bcfuzz::StridesOverflow(s)) return nullptr;
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(i * 7 - 100);
  bc_tensor* t = nullptr;
  FUZZ_CHECK(bc_tensor_from_data(BC_INT32, s.data(), s.size(), v.data(), &t) == BC_OK, "iota");
  return t;
}

void CheckBinaryShapes(const Shape& a, const Shape& b) {
  int64_t out[BC_MAX_DIMS];
  size_t nout = 12345;
  const bc_status s = bc_broadcast_shapes(a.data(), a.size(), b.data(), b.size(), out, sizeof out / sizeof out[0], &nout);
  bcfuzz::CheckFailure(s, "bc_broadcast_shapes");
  const bool valid = bcfuzz::ValidShape(a) && bcfuzz::ValidShape(b);
  Shape r;
  if (!valid) {
    FUZZ_CHECK(s != BC_OK, "invalid shapes accepted");
    return;
  }
  if (!bcfuzz::RefBroadcast(a, b, &r)) {
    FUZZ_CHECK(s == BC_ERR_NOT_BROADCASTABLE || s == BC_ERR_OVERFLOW, "status %s",
               bc_status_string(s));
    if (s == BC_ERR_NOT_BROADCASTABLE) {
      bc_error_detail d;
      bc_last_error_detail(&d);
      const size_t n = r.empty() ? (a.size() > b.size() ? a.size() : b.size()) : r.size();
      FUZZ_CHECK(d.dim >= 0 && static_cast<size_t>(d.dim) < n, "detail dim %d", d.dim);
      const size_t i = static_cast<size_t>(d.dim);
      const int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
      const int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
      FUZZ_CHECK(d.size_a == sa && d.size_b == sb && sa != sb && sa != 1 && sb != 1,
                 "detail (%d, %lld, %lld)", d.dim, static_cast<long long>(d.size_a),
                 static_cast<long long>(d.size_b));
    }
    return;
  }
  if (s == BC_ERR_OVERFLOW) return;  // an input's element count overflows
  FUZZ_CHECK(s == BC_OK, "broadcastable shapes refused: %s", bc_status_string(s));
  FUZZ_CHECK(nout == r.size(), "nout %zu, want %zu", nout, r.size());
  for (size_t i = 0; i < r.size(); ++i) FUZZ_CHECK(out[i] == r[i], "dim %zu", i);
}

void CheckNaryShapes(const std::vector<Shape>& shapes) {
  std::vector<const int64_t*> ptrs;
  std::vector<size_t> nd;
  bool valid = true, ok = true;
  Shape r;
  for (const Shape& s : shapes) {
    ptrs.push_back(s.empty() ? nullptr : s.data());
    nd.push_back(s.size());
    valid &= bcfuzz::ValidShape(s);
    if (ok) ok = bcfuzz::RefBroadcast(r, s, &r);
  }
  int64_t out[BC_MAX_DIMS];
  size_t nout = 0;
  const bc_status s = bc_broadcast_shapes_n(ptrs.data(), nd.data(), shapes.size(), out, sizeof out / sizeof out[0], &nout);
  bcfuzz::CheckFailure(s, "bc_broadcast_shapes_n");
  if (!valid) {
    FUZZ_CHECK(s != BC_OK, "invalid shapes accepted");
    return;
  }
  if (!ok) {
    FUZZ_CHECK(s == BC_ERR_NOT_BROADCASTABLE || s == BC_ERR_OVERFLOW, "status %s",
               bc_status_string(s));
    if (s == BC_ERR_NOT_BROADCASTABLE)
      FUZZ_CHECK(std::string(bc_last_error()).rfind("Attempting to broadcast a dimension of length ", 0) == 0,
                 "message (torch.broadcast_shapes' 2.x text)");
    return;
  }
  if (s == BC_ERR_OVERFLOW) return;
  FUZZ_CHECK(s == BC_OK, "status %s", bc_status_string(s));
  FUZZ_CHECK(nout == r.size(), "nout");
  for (size_t i = 0; i < r.size(); ++i) FUZZ_CHECK(out[i] == r[i], "dim %zu", i);
}

// Element of a row-major shape `from` seen at multi-index `idx` of `to`.
int64_t Source(const Shape& from, const Shape& to, const Shape& idx) {
  int64_t off = 0;
  const size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) off = off * from[d] + (from[d] == 1 ? 0 : idx[lead + d]);
  return off;
}

template <typename Fn>
void ForEach(const Shape& s, Fn fn) {
  const int64_t n = bcfuzz::NumelOrMinus1(s);
  Shape idx(s.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    fn(k, idx);
    for (size_t d = s.size(); d-- > 0;) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
}

// The view's elements, read through bc_tensor_copy_to, against a gather.
void CheckViewValues(const bc_tensor* view, const Shape& from, const Shape& to) {
  const int64_t n = bcfuzz::NumelOrMinus1(to);
  if (n < 0 || n > (1 << 16)) return;
  std::vector<int32_t> got(static_cast<size_t>(n) + 1);
  FUZZ_CHECK(bc_tensor_copy_to(view, got.data(), got.size() * 4) == BC_OK, "copy_to");
  ForEach(to, [&](int64_t k, const Shape& idx) {
    const int32_t want = static_cast<int32_t>(Source(from, to, idx) * 7 - 100);
    FUZZ_CHECK(got[k] == want, "element %lld: %d, want %d", static_cast<long long>(k), got[k], want);
  });
}

void CheckExpand(const Shape& from, const Shape& target) {
  if (bcfuzz::AvoidKnownBugs() && bcfuzz::StridesOverflow(target)) return;
  bc_tensor* t = Iota(from);
  if (t == nullptr) return;
  bc_tensor* view = reinterpret_cast<bc_tensor*>(0x10);
  const bc_status s = bc_expand(t, target.empty() ? nullptr : target.data(), target.size(), &view);
  bcfuzz::CheckFailure(s, "bc_expand");
  // Reference: -1 keeps a size (not in new leading dims), other sizes must
  // equal the existing one or replace a 1.
  bool ok = target.size() <= BC_MAX_DIMS && target.size() >= from.size();
  Shape r(target.size());
  const size_t lead = ok ? target.size() - from.size() : 0;
  for (size_t i = 0; ok && i < target.size(); ++i) {
    int64_t want = target[i];
    if (i < lead) {
      ok = want >= 0;
      r[i] = want;
      continue;
    }
    const int64_t have = from[i - lead];
    if (want == -1) want = have;
    ok = want >= 0 && (want == have || have == 1);
    r[i] = want;
  }
  if (ok && bcfuzz::NumelOrMinus1(r) < 0) ok = false;  // overflow
  if (!ok) {
    FUZZ_CHECK(s != BC_OK, "bad expand accepted");
    FUZZ_CHECK(view == nullptr, "view not NULL on failure");
  } else if (s == BC_ERR_OVERFLOW) {
    // PyTorch's stride of a new leading dim (a product of sizes) can
    // overflow int64 where the element count does not (a size-0 dim).
    FUZZ_CHECK(view == nullptr, "view not NULL on failure");
  } else {
    FUZZ_CHECK(s == BC_OK, "expand refused: %s", bc_status_string(s));
    FUZZ_CHECK(bc_tensor_ndim(view) == r.size(), "ndim");
    const int64_t* vs = bc_tensor_shape(view);
    const int64_t* st = bc_tensor_strides(view);
    for (size_t i = 0; i < r.size(); ++i) {
      FUZZ_CHECK(vs[i] == r[i], "size %zu", i);
      // A dim of size 1 keeps PyTorch's stride (cause 22 of issue 13); one
      // broadcast to another size has stride 0.
      const bool broadcast = (i < lead || from[i - lead] == 1) && r[i] != 1;
      if (broadcast) FUZZ_CHECK(st[i] == 0, "stride %zu of a broadcast dim is %lld", i, static_cast<long long>(st[i]));
    }
    CheckViewValues(view, from, r);
    bc_tensor_free(view);
  }
  bc_tensor_free(t);
}

void CheckBroadcastTensors(const std::vector<Shape>& shapes) {
  std::vector<bc_tensor*> ts;
  for (const Shape& s : shapes) {
    bc_tensor* t = Iota(s);
    if (t == nullptr) {
      for (bc_tensor* x : ts) bc_tensor_free(x);
      return;
    }
    ts.push_back(t);
  }
  if (bcfuzz::AvoidKnownBugs()) {  // known bug: overflowing results are accepted
    Shape r;
    bool ok = true;
    for (const Shape& sh : shapes)
      if (ok) ok = bcfuzz::RefBroadcast(r, sh, &r);
    if (ok && (bcfuzz::NumelOrMinus1(r) < 0 || bcfuzz::StridesOverflow(r))) {
      for (bc_tensor* x : ts) bc_tensor_free(x);
      return;
    }
  }
  std::vector<bc_tensor*> views(ts.size(), reinterpret_cast<bc_tensor*>(0x10));
  const bc_status s = bc_broadcast_tensors(const_cast<const bc_tensor* const*>(ts.data()), ts.size(),
                                           views.data(), ts.size());
  bcfuzz::CheckFailure(s, "bc_broadcast_tensors");
  Shape r;
  bool ok = true;
  for (const Shape& sh : shapes)
    if (ok) ok = bcfuzz::RefBroadcast(r, sh, &r);
  if (ok && !ts.empty() && bcfuzz::NumelOrMinus1(r) < 0) ok = false;
  if (!ok) {
    FUZZ_CHECK(s != BC_OK, "not broadcastable, accepted");
    for (bc_tensor* v : views) FUZZ_CHECK(v == nullptr, "view not NULL on failure");
  } else if (s == BC_ERR_OVERFLOW) {
    // PyTorch's strides for new leading dims (products of sizes) can
    // overflow int64 where the element count does not (a size-0 dim).
    for (bc_tensor* v : views) FUZZ_CHECK(v == nullptr, "view not NULL on failure");
  } else {
    FUZZ_CHECK(s == BC_OK, "refused: %s", bc_status_string(s));
    for (size_t i = 0; i < ts.size(); ++i) {
      FUZZ_CHECK(bc_tensor_ndim(views[i]) == r.size(), "ndim");
      CheckViewValues(views[i], shapes[i], r);
      bc_tensor_free(views[i]);
    }
  }
  for (bc_tensor* x : ts) bc_tensor_free(x);
}

void CheckSumToShape(const Shape& from, const Shape& target) {
  bc_tensor* t = Iota(from);
  if (t == nullptr) return;
  bc_tensor* out = reinterpret_cast<bc_tensor*>(0x10);
  const bc_status s = bc_sum_to_shape(t, target.empty() ? nullptr : target.data(), target.size(), &out);
  bcfuzz::CheckFailure(s, "bc_sum_to_shape");
  // `target` must broadcast to `from` (expand semantics without -1).
  bool ok = bcfuzz::ValidShape(target) && target.size() <= from.size();
  const size_t lead = ok ? from.size() - target.size() : 0;
  for (size_t i = 0; ok && i < target.size(); ++i)
    ok = target[i] == from[lead + i] || target[i] == 1;
  if (!ok) {
    FUZZ_CHECK(s != BC_OK, "bad target accepted");
    FUZZ_CHECK(out == nullptr, "out not NULL on failure");
    bc_tensor_free(t);
    return;
  }
  const int64_t n = bcfuzz::NumelOrMinus1(target);
  // An empty input may still ask for a huge result (of zeros), even one whose
  // element count overflows int64 (n == -1).
  if ((n < 0 || n > (1 << 16)) && (s == BC_ERR_OUT_OF_MEMORY || s == BC_ERR_OVERFLOW)) {
    FUZZ_CHECK(out == nullptr, "out not NULL on failure");
    bc_tensor_free(t);
    return;
  }
  FUZZ_CHECK(s == BC_OK, "refused: %s", bc_status_string(s));
  // PyTorch 2.x: int32 sums to int64, and keeps int32 where nothing is reduced.
  FUZZ_CHECK(bc_tensor_dtype(out) == BC_INT64 || bc_tensor_dtype(out) == BC_INT32,
             "int32 sums to int64 (or stays int32)");
  FUZZ_CHECK(bc_tensor_ndim(out) == target.size(), "ndim");
  if (n < 0 || n > (1 << 16)) {
    bc_tensor_free(out);
    bc_tensor_free(t);
    return;
  }
  std::vector<int64_t> want(static_cast<size_t>(n), 0), got(static_cast<size_t>(n) + 1);
  ForEach(from, [&](int64_t k, const Shape& idx) {
    int64_t o = 0;
    for (size_t d = 0; d < target.size(); ++d) o = o * target[d] + (target[d] == 1 ? 0 : idx[lead + d]);
    want[o] += k * 7 - 100;
  });
  if (bc_tensor_dtype(out) == BC_INT32) {  // nothing reduced: the values as they were
    std::vector<int32_t> got32(got.size());
    FUZZ_CHECK(bc_tensor_copy_to(out, got32.data(), got32.size() * 4) == BC_OK, "copy_to");
    for (size_t i = 0; i < got.size(); ++i) got[i] = got32[i];
  } else {
    FUZZ_CHECK(bc_tensor_copy_to(out, got.data(), got.size() * 8) == BC_OK, "copy_to");
  }
  for (int64_t i = 0; i < n; ++i) FUZZ_CHECK(got[i] == want[i], "sum %lld", static_cast<long long>(i));
  bc_tensor_free(out);
  bc_tensor_free(t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider p(data, size);
  const int mode = p.ConsumeIntegralInRange<int>(0, 4);
  std::vector<Shape> shapes(p.ConsumeIntegralInRange<size_t>(0, 5));
  for (Shape& s : shapes) s = PickShape(p);
  while (shapes.size() < 2) shapes.push_back(Shape{});
  switch (mode) {
    case 0: CheckBinaryShapes(shapes[0], shapes[1]); break;
    case 1: CheckNaryShapes(shapes); break;
    case 2: {
      // Targets with -1 entries too.
      Shape target = shapes[1];
      for (int64_t& d : target)
        if (p.ConsumeBool() && p.ConsumeBool()) d = -1;
      CheckExpand(shapes[0], target);
      break;
    }
    case 3: CheckBroadcastTensors(shapes); break;
    default: CheckSumToShape(shapes[0], shapes[1]); break;
  }
  return 0;
}
