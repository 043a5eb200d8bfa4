// The bad-input table: every entry point fed what a careless or hostile
// caller could pass (NULL, negative sizes, too many dims, sizes that overflow,
// strides past the buffer, misaligned data, unknown enum values, partial
// aliasing, integer division by zero, a re-entrant warning handler) gives a
// clean status with a message, leaves every output NULL and writes nothing.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "rel_util.h"

namespace rel {
namespace {

bc_tensor* const kPoison = reinterpret_cast<bc_tensor*>(static_cast<uintptr_t>(0x10));

::testing::AssertionResult Is(bc_status got, bc_status want) {
  if (got != want)
    return ::testing::AssertionFailure() << bc_status_string(got) << " != expected "
                                         << bc_status_string(want) << " (\"" << bc_last_error()
                                         << "\")";
  if (bc_last_error()[0] == '\0') return ::testing::AssertionFailure() << "empty message";
  bc_error_detail d;
  if (bc_last_error_detail(&d) != want)
    return ::testing::AssertionFailure() << "detail code " << d.code;
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// NULL handles and pointers

TEST(BadInputNull, TensorConstructors) {
  int64_t shape[] = {2, 3};
  float data[6] = {};
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_empty(BC_FLOAT32, shape, 2, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_tensor_zeros(BC_FLOAT32, shape, 2, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_tensor_empty(BC_FLOAT32, nullptr, 2, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_zeros(BC_FLOAT32, nullptr, 1, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_from_data(BC_FLOAT32, shape, 2, nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_tensor_from_data(BC_FLOAT32, shape, 2, data, nullptr), BC_ERR_INVALID_ARGUMENT));
  out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_from_data(BC_FLOAT32, nullptr, 2, data, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  // NULL data is fine when there are no elements.
  int64_t empty_shape[] = {0, 3};
  ASSERT_EQ(bc_tensor_from_data(BC_FLOAT32, empty_shape, 2, nullptr, &out), BC_OK);
  bc_tensor_free(out);
  // NULL shape is fine for a 0-dim tensor.
  ASSERT_EQ(bc_tensor_empty(BC_INT64, nullptr, 0, &out), BC_OK);
  EXPECT_EQ(bc_tensor_numel(out), 1);
  bc_tensor_free(out);

  out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 2, nullptr, sizeof data, nullptr,
                                nullptr, &out),
                 BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 2, data, sizeof data, nullptr, nullptr,
                                nullptr),
                 BC_ERR_INVALID_ARGUMENT));
  out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_wrap(BC_FLOAT32, nullptr, nullptr, 2, data, sizeof data, nullptr,
                                nullptr, &out),
                 BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
}

TEST(BadInputNull, HandlesAndGetters) {
  bc_tensor_free(nullptr);  // a no-op
  EXPECT_EQ(bc_tensor_ndim(nullptr), 0u);
  EXPECT_EQ(bc_tensor_shape(nullptr), nullptr);
  EXPECT_EQ(bc_tensor_strides(nullptr), nullptr);
  EXPECT_EQ(bc_tensor_numel(nullptr), 0);
  EXPECT_EQ(bc_tensor_data(nullptr), nullptr);
  EXPECT_EQ(bc_tensor_is_contiguous(nullptr), 0);
  EXPECT_EQ(bc_last_error_detail(nullptr), BC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(bc_last_error(), nullptr);

  Tensor t = Floats({2, 3});
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_view(nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_tensor_view(t.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_clone(nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_tensor_clone(t.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  float dst[6];
  EXPECT_TRUE(Is(bc_tensor_copy_to(nullptr, dst, sizeof dst), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_tensor_copy_to(t.get(), nullptr, sizeof dst), BC_ERR_INVALID_ARGUMENT));
  Tensor empty = Floats({0, 4});
  EXPECT_EQ(bc_tensor_copy_to(empty.get(), nullptr, 0), BC_OK);
}

TEST(BadInputNull, Shapes) {
  int64_t a[] = {2, 1}, b[] = {3}, out[BC_MAX_DIMS];
  size_t nout = 99;
  EXPECT_TRUE(Is(bc_broadcast_shapes(nullptr, 2, b, 1, out, &nout), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_shapes(a, 2, nullptr, 1, out, &nout), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_shapes(a, 2, b, 1, nullptr, &nout), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_shapes(a, 2, b, 1, out, nullptr), BC_ERR_INVALID_ARGUMENT));
  // NULL is a valid 0-dim shape.
  ASSERT_EQ(bc_broadcast_shapes(nullptr, 0, b, 1, out, &nout), BC_OK);
  EXPECT_EQ(nout, 1u);

  const int64_t* shapes[] = {a, nullptr, b};
  size_t ndims[] = {2, 0, 1};
  ASSERT_EQ(bc_broadcast_shapes_n(shapes, ndims, 3, out, &nout), BC_OK);
  EXPECT_EQ(nout, 2u);
  EXPECT_TRUE(Is(bc_broadcast_shapes_n(nullptr, ndims, 3, out, &nout), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_shapes_n(shapes, nullptr, 3, out, &nout), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_shapes_n(shapes, ndims, 3, nullptr, &nout), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_shapes_n(shapes, ndims, 3, out, nullptr), BC_ERR_INVALID_ARGUMENT));
  const int64_t* with_null[] = {a, nullptr};
  size_t nd_null[] = {2, 1};  // NULL shape with one dim
  EXPECT_TRUE(Is(bc_broadcast_shapes_n(with_null, nd_null, 2, out, &nout), BC_ERR_INVALID_ARGUMENT));
  // A count far beyond the arrays is not read when the arrays are NULL.
  EXPECT_TRUE(Is(bc_broadcast_shapes_n(nullptr, nullptr, SIZE_MAX, out, &nout),
                 BC_ERR_INVALID_ARGUMENT));
  ASSERT_EQ(bc_broadcast_shapes_n(nullptr, nullptr, 0, out, &nout), BC_OK);
  EXPECT_EQ(nout, 0u);

  Tensor t = Floats({2, 1});
  bc_tensor* view = kPoison;
  int64_t target[] = {2, 5};
  EXPECT_TRUE(Is(bc_expand(nullptr, target, 2, &view), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(view, nullptr);
  view = kPoison;
  EXPECT_TRUE(Is(bc_expand(t.get(), nullptr, 2, &view), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(view, nullptr);
  EXPECT_TRUE(Is(bc_expand(t.get(), target, 2, nullptr), BC_ERR_INVALID_ARGUMENT));

  bc_tensor* views[3] = {kPoison, kPoison, kPoison};
  const bc_tensor* ts[] = {t.get(), nullptr, t.get()};
  EXPECT_TRUE(Is(bc_broadcast_tensors(ts, 3, views), BC_ERR_INVALID_ARGUMENT));
  for (bc_tensor* v : views) EXPECT_EQ(v, nullptr);
  EXPECT_TRUE(Is(bc_broadcast_tensors(nullptr, 2, views), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_tensors(ts, 1, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(bc_broadcast_tensors(nullptr, 0, nullptr), BC_OK);

  bc_tensor* out_t = kPoison;
  int64_t one[] = {1};
  EXPECT_TRUE(Is(bc_sum_to_shape(nullptr, one, 1, &out_t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out_t, nullptr);
  out_t = kPoison;
  EXPECT_TRUE(Is(bc_sum_to_shape(t.get(), nullptr, 1, &out_t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out_t, nullptr);
  EXPECT_TRUE(Is(bc_sum_to_shape(t.get(), one, 1, nullptr), BC_ERR_INVALID_ARGUMENT));
}

TEST(BadInputNull, Ops) {
  Tensor a = Floats({2, 3}), b = Floats({3}), m = Floats({2, 3});
  Tensor cond;
  {
    bool c[6] = {true, false, true, false, true, false};
    bc_tensor* t = nullptr;
    int64_t s[] = {2, 3};
    ASSERT_EQ(bc_tensor_from_data(BC_BOOL, s, 2, c, &t), BC_OK);
    cond.reset(t);
  }
  const std::vector<unsigned char> before = Bytes(m.get());
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Is(bc_binary(BC_ADD, nullptr, b.get(), &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Is(bc_binary(BC_ADD, a.get(), nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_binary(BC_ADD, a.get(), b.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_binary_out(BC_ADD, a.get(), b.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_binary_out(BC_ADD, nullptr, b.get(), m.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_binary_(BC_ADD, nullptr, b.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_binary_(BC_ADD, m.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_binary_alpha(BC_ADD, a.get(), b.get(), 2.0, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_binary_alpha_out(BC_SUB, a.get(), nullptr, 2.0, m.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_binary_alpha_(BC_SUB, nullptr, b.get(), 2.0), BC_ERR_INVALID_ARGUMENT));

  out = kPoison;
  EXPECT_TRUE(Is(bc_where(nullptr, a.get(), b.get(), &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_where(cond.get(), a.get(), b.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_where_out(cond.get(), a.get(), nullptr, m.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_where_(m.get(), nullptr, b.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_where_(nullptr, cond.get(), b.get()), BC_ERR_INVALID_ARGUMENT));
  out = kPoison;
  EXPECT_TRUE(Is(bc_addcmul(a.get(), nullptr, b.get(), 1.0, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_addcmul_out(a.get(), b.get(), b.get(), 1.0, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_addcmul_(nullptr, b.get(), b.get(), 1.0), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_addcdiv(a.get(), b.get(), nullptr, 1.0, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_addcdiv_out(nullptr, b.get(), b.get(), 1.0, m.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_addcdiv_(m.get(), b.get(), nullptr, 1.0), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_lerp(a.get(), b.get(), nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_lerp_out(a.get(), b.get(), b.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_lerp_(nullptr, b.get(), b.get()), BC_ERR_INVALID_ARGUMENT));
  out = kPoison;
  EXPECT_TRUE(Is(bc_clamp(a.get(), nullptr, nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Is(bc_clamp(nullptr, b.get(), nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_clamp(a.get(), b.get(), nullptr, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_clamp_out(a.get(), b.get(), b.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_clamp_(m.get(), nullptr, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_clamp_(nullptr, b.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_copy_(nullptr, b.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_copy_(m.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(Bytes(m.get()), before);
}

// ---------------------------------------------------------------------------
// Negative sizes, too many dimensions, sizes that overflow

TEST(BadInputSizes, NegativeSizes) {
  int64_t neg[] = {2, -1}, out_shape[BC_MAX_DIMS], ok[] = {2, 3};
  size_t nout;
  float data[8] = {};
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_empty(BC_FLOAT32, neg, 2, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_tensor_zeros(BC_FLOAT32, neg, 2, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_tensor_from_data(BC_FLOAT32, neg, 2, data, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_tensor_wrap(BC_FLOAT32, neg, nullptr, 2, data, sizeof data, nullptr, nullptr, &out),
                 BC_ERR_INVALID_ARGUMENT));
  int64_t min_shape[] = {INT64_MIN};
  EXPECT_TRUE(Is(bc_tensor_empty(BC_UINT8, min_shape, 1, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_broadcast_shapes(neg, 2, ok, 2, out_shape, &nout), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_shapes(ok, 2, neg, 2, out_shape, &nout), BC_ERR_INVALID_ARGUMENT));
  const int64_t* shapes[] = {ok, neg};
  size_t ndims[] = {2, 2};
  // torch.broadcast_shapes compares sizes: (2, -1) against (2, 3) is a mismatch.
  EXPECT_TRUE(Is(bc_broadcast_shapes_n(shapes, ndims, 2, out_shape, &nout), BC_ERR_NOT_BROADCASTABLE));
  const int64_t one3[] = {1, 3}, neg3[] = {-2, 3};
  const int64_t* shapes1[] = {one3, neg3};
  EXPECT_TRUE(Is(bc_broadcast_shapes_n(shapes1, ndims, 2, out_shape, &nout), BC_ERR_INVALID_ARGUMENT));

  Tensor t = Floats({2, 1});
  bc_tensor* view = kPoison;
  int64_t exp_neg[] = {2, -2};
  EXPECT_NE(bc_expand(t.get(), exp_neg, 2, &view), BC_OK);
  EXPECT_EQ(view, nullptr);
  int64_t exp_lead[] = {-1, 2, 4};  // -1 is not allowed for a new leading dim
  EXPECT_TRUE(Is(bc_expand(t.get(), exp_lead, 3, &view), BC_ERR_SHAPE_MISMATCH));
  EXPECT_EQ(view, nullptr);
  int64_t exp_min[] = {2, INT64_MIN};
  EXPECT_NE(bc_expand(t.get(), exp_min, 2, &view), BC_OK);
  EXPECT_EQ(view, nullptr);
  EXPECT_TRUE(Is(bc_sum_to_shape(t.get(), neg, 2, &out), BC_ERR_SHAPE_MISMATCH));  // not expandable
  EXPECT_EQ(out, nullptr);
}

TEST(BadInputSizes, TooManyDims) {
  std::vector<int64_t> ones(BC_MAX_DIMS + 1, 1), out_shape(BC_MAX_DIMS + 1);
  size_t nout;
  float data[1] = {};
  bc_tensor* out = kPoison;
  const size_t nd = BC_MAX_DIMS + 1;
  EXPECT_TRUE(Is(bc_tensor_empty(BC_FLOAT32, ones.data(), nd, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_tensor_zeros(BC_FLOAT32, ones.data(), nd, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_tensor_from_data(BC_FLOAT32, ones.data(), nd, data, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_tensor_wrap(BC_FLOAT32, ones.data(), ones.data(), nd, data, sizeof data, nullptr,
                                nullptr, &out),
                 BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_broadcast_shapes(ones.data(), nd, ones.data(), 1, out_shape.data(), &nout),
                 BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_shapes(ones.data(), 1, ones.data(), nd, out_shape.data(), &nout),
                 BC_ERR_INVALID_ARGUMENT));
  const int64_t* shapes[] = {ones.data()};
  size_t ndims[] = {nd};
  EXPECT_TRUE(Is(bc_broadcast_shapes_n(shapes, ndims, 1, out_shape.data(), &nout),
                 BC_ERR_INVALID_ARGUMENT));
  Tensor t = Floats({1});
  bc_tensor* view = kPoison;
  EXPECT_TRUE(Is(bc_expand(t.get(), ones.data(), nd, &view), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(view, nullptr);
  EXPECT_TRUE(Is(bc_sum_to_shape(t.get(), ones.data(), nd, &out), BC_ERR_INVALID_ARGUMENT));
  // Absurd counts are refused before any size is read.
  EXPECT_TRUE(Is(bc_tensor_empty(BC_FLOAT32, ones.data(), SIZE_MAX, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_expand(t.get(), ones.data(), SIZE_MAX, &view), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Is(bc_broadcast_shapes(ones.data(), SIZE_MAX, ones.data(), 1, out_shape.data(), &nout),
                 BC_ERR_INVALID_ARGUMENT));
  // Exactly the maximum works.
  ASSERT_EQ(bc_tensor_empty(BC_FLOAT32, ones.data(), BC_MAX_DIMS, &out), BC_OK);
  EXPECT_EQ(bc_tensor_ndim(out), static_cast<size_t>(BC_MAX_DIMS));
  bc_tensor_free(out);
}

TEST(BadInputSizes, ElementAndByteCountsThatOverflow) {
  bc_tensor* out = kPoison;
  const int64_t big = int64_t{1} << 32;
  int64_t numel_overflow[] = {big, big};                      // 2^64 elements
  int64_t max_by_two[] = {INT64_MAX, 2};                      // > INT64_MAX elements
  int64_t bytes_overflow[] = {int64_t{1} << 62};              // 2^65 bytes of float64
  int64_t bytes_overflow2[] = {int64_t{1} << 31, int64_t{1} << 31, 5};  // 5*2^62 * 4 bytes
  for (int64_t* s : {numel_overflow, max_by_two}) {
    out = kPoison;
    EXPECT_TRUE(Is(bc_tensor_empty(BC_UINT8, s, 2, &out), BC_ERR_OVERFLOW)) << s[0] << "x" << s[1];
    EXPECT_EQ(out, nullptr);
  }
  out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_empty(BC_FLOAT64, bytes_overflow, 1, &out), BC_ERR_OVERFLOW));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_tensor_zeros(BC_FLOAT32, bytes_overflow2, 3, &out), BC_ERR_OVERFLOW));
  EXPECT_TRUE(Is(bc_tensor_from_data(BC_FLOAT32, bytes_overflow2, 3, &out, &out), BC_ERR_OVERFLOW));
  EXPECT_EQ(out, nullptr);
  // A zero anywhere makes the count 0, however large the other sizes.
  int64_t zero_big[] = {INT64_MAX, 0, INT64_MAX};
  ASSERT_EQ(bc_tensor_empty(BC_FLOAT64, zero_big, 3, &out), BC_OK);
  EXPECT_EQ(bc_tensor_numel(out), 0);
  bc_tensor_free(out);

  // Broadcast shapes whose product overflows int64.
  int64_t a[] = {big, 1}, b[] = {1, big}, r[2];
  size_t nr;
  // Shapes alone are fine: only materialising them overflows.
  ASSERT_EQ(bc_broadcast_shapes(a, 2, b, 2, r, &nr), BC_OK);
  EXPECT_EQ(r[0], big);
  EXPECT_EQ(r[1], big);

  // Zero-copy views of huge shapes over one element (stride 0), then ops
  // whose result would not fit: a clean overflow, never an allocation.
  double one = 1.0;
  int64_t zero_strides[] = {0, 0};
  bc_tensor *ta = nullptr, *tb = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT64, a, zero_strides, 2, &one, sizeof one, nullptr, nullptr, &ta),
            BC_OK);
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT64, b, zero_strides, 2, &one, sizeof one, nullptr, nullptr, &tb),
            BC_OK);
  Tensor ga(ta), gb(tb);
  out = kPoison;
  EXPECT_TRUE(Is(bc_binary(BC_ADD, ta, tb, &out), BC_ERR_OVERFLOW));
  EXPECT_EQ(out, nullptr);
  bc_tensor* views[2] = {kPoison, kPoison};
  const bc_tensor* both[] = {ta, tb};
  EXPECT_TRUE(Is(bc_broadcast_tensors(both, 2, views), BC_ERR_OVERFLOW));
  EXPECT_EQ(views[0], nullptr);
  EXPECT_EQ(views[1], nullptr);
  for (bc_tensor* v : views)
    if (v != kPoison) bc_tensor_free(v);
  bc_tensor* view = kPoison;
  int64_t target[] = {big, big};
  EXPECT_TRUE(Is(bc_expand(ta, target, 2, &view), BC_ERR_OVERFLOW));
  EXPECT_EQ(view, nullptr);
  // A view of 2^62 float64 elements fits int64, but its bytes do not fit
  // size_t: materialising it (an op's result, a clone) is an overflow, not
  // an attempt to allocate.
  int64_t c[] = {int64_t{1} << 31, 1};
  bc_tensor* tc = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT64, c, zero_strides, 2, &one, sizeof one, nullptr, nullptr, &tc),
            BC_OK);
  Tensor gc(tc);
  bc_tensor* huge = nullptr;
  int64_t huge_shape[] = {int64_t{1} << 31, int64_t{1} << 31};
  ASSERT_EQ(bc_expand(tc, huge_shape, 2, &huge), BC_OK) << bc_last_error();
  Tensor ghuge(huge);
  EXPECT_EQ(bc_tensor_numel(huge), int64_t{1} << 62);
  out = kPoison;
  EXPECT_TRUE(Is(bc_binary(BC_MUL, huge, tc, &out), BC_ERR_OVERFLOW));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_clone(huge, &out), BC_ERR_OVERFLOW));
  EXPECT_EQ(out, nullptr);
  // 3 * 2^62 elements do not fit int64: no such view can be made.
  int64_t too_many[] = {3, int64_t{1} << 31, int64_t{1} << 31};
  bc_tensor* none = kPoison;
  EXPECT_TRUE(Is(bc_expand(tc, too_many, 3, &none), BC_ERR_OVERFLOW));
  EXPECT_EQ(none, nullptr);
}

TEST(BadInputSizes, CopyToWhoseByteCountOverflows) {
  // 2^62 float64 elements need 2^65 bytes: no destination is big enough,
  // and nothing may be written into the small one given.
  double one = 1.0;
  int64_t c[] = {int64_t{1} << 31, 1}, zero_strides[] = {0, 0};
  int64_t huge_shape[] = {int64_t{1} << 31, int64_t{1} << 31};
  bc_tensor *tc = nullptr, *huge = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT64, c, zero_strides, 2, &one, sizeof one, nullptr, nullptr, &tc),
            BC_OK);
  Tensor gc(tc);
  ASSERT_EQ(bc_expand(tc, huge_shape, 2, &huge), BC_OK);
  Tensor ghuge(huge);
  double small[4] = {7, 7, 7, 7};
  const bc_status s = bc_tensor_copy_to(huge, small, sizeof small);
  EXPECT_TRUE(s == BC_ERR_OUT_OF_BOUNDS || s == BC_ERR_OVERFLOW) << bc_status_string(s);
  for (double x : small) EXPECT_EQ(x, 7.0);
}

// ---------------------------------------------------------------------------
// Wrapped buffers: strides that leave the buffer, misaligned data

TEST(BadInputWrap, StridesThatLeaveTheBuffer) {
  alignas(64) float buf[16] = {};
  bc_tensor* out = kPoison;
  struct Case {
    std::vector<int64_t> shape, strides;
    size_t nbytes;
  };
  const Case cases[] = {
      {{3}, {2}, 4 * 4},                   // needs 5 elements
      {{4, 4}, {4, 1}, 15 * 4},            // one short
      {{2, 2}, {1, 16}, sizeof buf},       // second dim walks past
      {{2}, {INT64_MAX}, sizeof buf},      // offset overflows int64
      {{3}, {INT64_MAX / 2 + 1}, sizeof buf},
      {{INT64_MAX}, {1}, sizeof buf},      // size past the buffer
      {{2, 3}, {0, 5}, 10 * 4},            // stride 0 is fine, the other is not
      {{1}, {0}, 3},                       // buffer smaller than one element
  };
  for (const Case& c : cases) {
    out = kPoison;
    EXPECT_TRUE(Is(bc_tensor_wrap(BC_FLOAT32, c.shape.data(), c.strides.data(), c.shape.size(), buf,
                                  c.nbytes, nullptr, nullptr, &out),
                   BC_ERR_OUT_OF_BOUNDS))
        << "shape[0] " << c.shape[0] << " stride[0] " << c.strides[0] << " nbytes " << c.nbytes;
    EXPECT_EQ(out, nullptr);
  }
  // Contiguous strides (NULL) checked the same way.
  int64_t shape[] = {5, 4};
  out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 2, buf, 19 * 4, nullptr, nullptr, &out),
                 BC_ERR_OUT_OF_BOUNDS));
  EXPECT_EQ(out, nullptr);
  // Negative strides are refused.
  int64_t neg_strides[] = {-1, 1};
  EXPECT_TRUE(Is(bc_tensor_wrap(BC_FLOAT32, shape, neg_strides, 2, buf + 8, 8 * 4, nullptr, nullptr,
                                &out),
                 BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  // The deleter is not called when wrapping fails.
  int calls = 0;
  int64_t bad_strides[] = {4, 100};
  EXPECT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, bad_strides, 2, buf, sizeof buf,
                           [](void*, void* ctx) { ++*static_cast<int*>(ctx); }, &calls, &out),
            BC_ERR_OUT_OF_BOUNDS);
  EXPECT_EQ(calls, 0);
  // Exactly fitting works, and size-0 dims need no buffer at all.
  int64_t fit_shape[] = {4, 4}, fit_strides[] = {4, 1};
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, fit_shape, fit_strides, 2, buf, sizeof buf, nullptr, nullptr,
                           &out),
            BC_OK);
  bc_tensor_free(out);
  int64_t empty_shape[] = {0, 1000}, empty_strides[] = {INT64_MAX, INT64_MAX};
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, empty_shape, empty_strides, 2, nullptr, 0, nullptr, nullptr,
                           &out),
            BC_OK);
  EXPECT_EQ(bc_tensor_numel(out), 0);
  bc_tensor_free(out);
}

TEST(BadInputWrap, MisalignedData) {
  alignas(64) unsigned char buf[128] = {};
  int64_t shape[] = {4};
  const bc_dtype wide[] = {BC_INT16, BC_INT32, BC_INT64, BC_FLOAT16, BC_BFLOAT16, BC_FLOAT32,
                           BC_FLOAT64};
  for (bc_dtype d : wide) {
    bc_tensor* out = kPoison;
    EXPECT_TRUE(Is(bc_tensor_wrap(d, shape, nullptr, 1, buf + 1, 64, nullptr, nullptr, &out),
                   BC_ERR_INVALID_ARGUMENT))
        << bc_dtype_name(d);
    EXPECT_EQ(out, nullptr);
  }
  // Byte-sized dtypes have no alignment to keep.
  for (bc_dtype d : {BC_BOOL, BC_UINT8, BC_INT8}) {
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_tensor_wrap(d, shape, nullptr, 1, buf + 3, 4, nullptr, nullptr, &out), BC_OK);
    bc_tensor_free(out);
  }
  // float64 needs 8-byte alignment; 4 is not enough.
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Is(bc_tensor_wrap(BC_FLOAT64, shape, nullptr, 1, buf + 4, 64, nullptr, nullptr, &out),
                 BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
}

// ---------------------------------------------------------------------------
// Unknown enum values: tests/reliability/test_bad_enums.c (a C caller may pass
// any int; in C++ an out-of-range enum value is itself undefined behaviour).

TEST(BadInputEnums, AlphaOnlyForAddAndSub) {
  Tensor a = Floats({2}), b = Floats({2}), o = Floats({2});
  const std::vector<unsigned char> before = Bytes(o.get());
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Is(bc_binary_alpha(BC_MUL, a.get(), b.get(), 2.0, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Is(bc_binary_alpha_(BC_DIV, o.get(), b.get(), 2.0), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(Bytes(o.get()), before);
  // Any nonzero toggle value means on.
  bc_set_broadcast_warning(-7);
  EXPECT_EQ(bc_get_broadcast_warning(), 1);
  bc_set_broadcast_warning(0);
  EXPECT_EQ(bc_get_broadcast_warning(), 0);
  EXPECT_TRUE(Is(bc_set_simd_cap("NOT_A_TARGET"), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(bc_set_simd_cap(nullptr), BC_OK);
}

// ---------------------------------------------------------------------------
// Written tensors that overlap inputs

// Two views into one caller buffer, `offset` elements apart.
struct Aliased {
  alignas(64) float buf[64];
  Tensor base, shifted;
  Aliased(const Shape& shape, int64_t offset) {
    for (int i = 0; i < 64; ++i) buf[i] = static_cast<float>(i) + 0.5f;
    bc_tensor *a = nullptr, *b = nullptr;
    EXPECT_EQ(bc_tensor_wrap(BC_FLOAT32, shape.data(), nullptr, shape.size(), buf, 32 * 4, nullptr,
                             nullptr, &a),
              BC_OK);
    EXPECT_EQ(bc_tensor_wrap(BC_FLOAT32, shape.data(), nullptr, shape.size(), buf + offset,
                             32 * 4, nullptr, nullptr, &b),
              BC_OK);
    base.reset(a);
    shifted.reset(b);
  }
};

TEST(BadInputAliasing, PartialOverlapIsRefusedAndNothingIsWritten) {
  const std::string msg =
      "unsupported operation: some elements of the input tensor and the written-to tensor refer "
      "to a single memory location. Please clone() the tensor before performing the operation.";
  for (int64_t offset : {1, 3, 8, 15}) {
    Aliased al({4, 4}, offset);
    float snapshot[64];
    std::memcpy(snapshot, al.buf, sizeof snapshot);
    Tensor other = Floats({4, 4});
    EXPECT_TRUE(Is(bc_binary_out(BC_ADD, al.base.get(), other.get(), al.shifted.get()), BC_ERR_OVERLAP));
    EXPECT_EQ(bc_last_error(), msg);
    EXPECT_TRUE(Is(bc_binary_(BC_MUL, al.shifted.get(), al.base.get()), BC_ERR_OVERLAP));
    EXPECT_TRUE(Is(bc_addcmul_out(other.get(), al.base.get(), other.get(), 2.0, al.shifted.get()),
                   BC_ERR_OVERLAP));
    EXPECT_TRUE(Is(bc_clamp_(al.shifted.get(), al.base.get(), nullptr), BC_ERR_OVERLAP));
    EXPECT_TRUE(Is(bc_copy_(al.shifted.get(), al.base.get()), BC_ERR_OVERLAP));
    EXPECT_EQ(std::memcmp(snapshot, al.buf, sizeof snapshot), 0) << "offset " << offset;
  }
  // A transposed view of the same elements overlaps partially too.
  alignas(64) float buf[9];
  for (int i = 0; i < 9; ++i) buf[i] = static_cast<float>(i);
  int64_t shape[] = {3, 3}, tstrides[] = {1, 3};
  bc_tensor *t = nullptr, *tt = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 2, buf, sizeof buf, nullptr, nullptr, &t), BC_OK);
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, tstrides, 2, buf, sizeof buf, nullptr, nullptr, &tt), BC_OK);
  Tensor gt(t), gtt(tt);
  EXPECT_TRUE(Is(bc_binary_(BC_ADD, t, tt), BC_ERR_OVERLAP));
  for (int i = 0; i < 9; ++i) EXPECT_EQ(buf[i], static_cast<float>(i));
  // Exact aliasing works: a += a.
  ASSERT_EQ(bc_binary_(BC_ADD, t, t), BC_OK);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(buf[i], 2.0f * static_cast<float>(i));
}

TEST(BadInputAliasing, ExpandedOutputIsRefused) {
  Tensor row = Floats({1, 4});
  bc_tensor* ex = nullptr;
  int64_t target[] = {3, 4};
  ASSERT_EQ(bc_expand(row.get(), target, 2, &ex), BC_OK);
  Tensor gex(ex);
  const std::vector<unsigned char> before = Bytes(row.get());
  Tensor other = Floats({3, 4});
  EXPECT_TRUE(Is(bc_binary_out(BC_ADD, other.get(), other.get(), ex), BC_ERR_OVERLAP));
  EXPECT_TRUE(Is(bc_binary_(BC_ADD, ex, other.get()), BC_ERR_OVERLAP));
  EXPECT_TRUE(Is(bc_copy_(ex, other.get()), BC_ERR_OVERLAP));
  EXPECT_TRUE(Is(bc_lerp_(ex, other.get(), other.get()), BC_ERR_OVERLAP));
  EXPECT_EQ(Bytes(row.get()), before);
}

// ---------------------------------------------------------------------------
// Integer division by zero

TEST(BadInputDivision, IntegerDivisionByZeroWritesNothing) {
  const bc_op ops[] = {BC_DIV_TRUNC, BC_DIV_FLOOR, BC_REMAINDER, BC_FMOD};
  for (bc_dtype d : {BC_UINT8, BC_INT8, BC_INT16, BC_INT32, BC_INT64}) {
    std::vector<int64_t> num64 = {7, 9, 11, 13, 15, 17}, den64 = {1, 2, 0};  // zero in a broadcast operand
    Tensor num, den, out;
    {
      bc_tensor *n = nullptr, *q = nullptr, *o = nullptr;
      int64_t ns[] = {2, 3}, ds[] = {3};
      std::vector<unsigned char> nb(6 * 8), db(3 * 8);
      const size_t es = bc_dtype_size(d);
      for (int i = 0; i < 6; ++i) std::memcpy(&nb[i * es], &num64[i], es);  // little endian
      for (int i = 0; i < 3; ++i) std::memcpy(&db[i * es], &den64[i], es);
      ASSERT_EQ(bc_tensor_from_data(d, ns, 2, nb.data(), &n), BC_OK);
      ASSERT_EQ(bc_tensor_from_data(d, ds, 1, db.data(), &q), BC_OK);
      ASSERT_EQ(bc_tensor_from_data(d, ns, 2, nb.data(), &o), BC_OK);
      num.reset(n);
      den.reset(q);
      out.reset(o);
    }
    const std::vector<unsigned char> num_before = Bytes(num.get()), out_before = Bytes(out.get());
    for (bc_op op : ops) {
      bc_tensor* r = kPoison;
      EXPECT_TRUE(Is(bc_binary(op, num.get(), den.get(), &r), BC_ERR_DIVISION_BY_ZERO))
          << bc_op_name(op) << " " << bc_dtype_name(d);
      EXPECT_STREQ(bc_last_error(), "ZeroDivisionError");
      EXPECT_EQ(r, nullptr);
      EXPECT_TRUE(Is(bc_binary_out(op, num.get(), den.get(), out.get()), BC_ERR_DIVISION_BY_ZERO));
      EXPECT_TRUE(Is(bc_binary_(op, num.get(), den.get()), BC_ERR_DIVISION_BY_ZERO));
      EXPECT_EQ(Bytes(num.get()), num_before);
      EXPECT_EQ(Bytes(out.get()), out_before);
    }
  }
  // Floating division by zero is not an error.
  Tensor f = Floats({3}), z;
  {
    std::vector<float> zv = {0.0f, -0.0f, 0.0f};
    z = Make(BC_FLOAT32, {3}, zv);
  }
  for (bc_op op : ops) {
    bc_tensor* r = nullptr;
    EXPECT_EQ(bc_binary(op, f.get(), z.get(), &r), BC_OK) << bc_op_name(op);
    bc_tensor_free(r);
  }
  // INT_MIN / -1 is not a division by zero, and must not trap.
  std::vector<int32_t> mn = {INT32_MIN}, m1 = {-1};
  Tensor a = Make(BC_INT32, {1}, mn), b = Make(BC_INT32, {1}, m1);
  for (bc_op op : ops) {
    bc_tensor* r = nullptr;
    EXPECT_EQ(bc_binary(op, a.get(), b.get(), &r), BC_OK) << bc_op_name(op);
    bc_tensor_free(r);
  }
}

// ---------------------------------------------------------------------------
// A warning handler that re-enters the library

struct Reentry {
  int calls = 0;
  int nested = 0;  // warnings raised by the handler's own ops
  int inner_ok = 0;
  bc_status inner_fail = BC_OK;
  std::string inner_fail_msg;
};

void ReentrantHandler(const char* message, void* user) {
  Reentry* r = static_cast<Reentry*>(user);
  // The handler's own broadcasting op warns too (policy WARN): that nested
  // call is counted, not re-entered again.
  static thread_local int depth = 0;
  if (depth > 0) {
    ++r->nested;
    return;
  }
  ++depth;
  ++r->calls;
  EXPECT_NE(message, nullptr);
  // A successful op, a failing op, a settings change and a handler change, all
  // from inside the handler.
  Tensor x = Floats({2, 3}), y = Floats({3});
  bc_tensor* out = nullptr;
  if (bc_binary(BC_MUL, x.get(), y.get(), &out) == BC_OK) ++r->inner_ok;
  bc_tensor_free(out);
  Tensor z = Floats({4});
  r->inner_fail = bc_binary(BC_ADD, x.get(), z.get(), &out);
  r->inner_fail_msg = bc_last_error();
  bc_set_broadcast_warning(bc_get_broadcast_warning());
  bc_set_warning_handler(ReentrantHandler, user);
  --depth;
}

TEST(BadInputReentry, HandlerCallsBackIntoTheLibrary) {
  Reentry r;
  bc_set_warning_handler(ReentrantHandler, &r);
  ASSERT_EQ(bc_set_broadcast_policy(BC_POLICY_WARN), BC_OK);
  Tensor a = Floats({2, 3}), b = Floats({3});
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary(BC_ADD, a.get(), b.get(), &out), BC_OK) << bc_last_error();
  Tensor g(out);
  EXPECT_EQ(r.calls, 1);
  EXPECT_EQ(r.nested, 1);  // the inner mul broadcasts too
  EXPECT_EQ(r.inner_ok, r.calls);
  EXPECT_EQ(r.inner_fail, BC_ERR_NOT_BROADCASTABLE);
  EXPECT_EQ(r.inner_fail_msg,
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
            "dimension 1");
  // The outer result is right despite the nested calls.
  std::vector<float> av(6), bv(3), got(6);
  ASSERT_EQ(bc_tensor_copy_to(a.get(), av.data(), 24), BC_OK);
  ASSERT_EQ(bc_tensor_copy_to(b.get(), bv.data(), 12), BC_OK);
  ASSERT_EQ(bc_tensor_copy_to(out, got.data(), 24), BC_OK);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], av[i] + bv[i % 3]);
  // In place too: the handler runs before anything is written.
  const int before = r.calls;
  ASSERT_EQ(bc_binary_(BC_SUB, a.get(), b.get()), BC_OK);
  EXPECT_GT(r.calls, before);
  ASSERT_EQ(bc_set_broadcast_policy(BC_POLICY_ALLOW), BC_OK);
  bc_set_warning_handler(nullptr, nullptr);
}

// A deleter that re-enters the library (frees another handle, runs an op).
TEST(BadInputReentry, DeleterCallsBackIntoTheLibrary) {
  struct Ctx {
    bc_tensor* other;
    int ran = 0;
  };
  Ctx ctx{nullptr};
  ctx.other = Floats({3}).release();
  float* buf = static_cast<float*>(std::malloc(4 * sizeof(float)));
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<float>(i);
  int64_t shape[] = {4};
  bc_tensor* t = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 1, buf, 16,
                           [](void* data, void* c) {
                             Ctx* x = static_cast<Ctx*>(c);
                             bc_tensor* out = nullptr;
                             if (bc_binary(BC_ADD, x->other, x->other, &out) == BC_OK) ++x->ran;
                             bc_tensor_free(out);
                             bc_tensor_free(x->other);
                             x->other = nullptr;
                             std::free(data);
                           },
                           &ctx, &t),
            BC_OK);
  bc_tensor* v = nullptr;
  ASSERT_EQ(bc_tensor_view(t, &v), BC_OK);
  bc_tensor_free(t);
  EXPECT_EQ(ctx.ran, 0);  // the view keeps the buffer alive
  bc_tensor_free(v);
  EXPECT_EQ(ctx.ran, 1);
  EXPECT_EQ(ctx.other, nullptr);
}

}  // namespace
}  // namespace rel
