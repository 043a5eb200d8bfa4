// PyTorch 2.x fidelity (issue 13): one test per cause the differential test
// against PyTorch found outside the kernels' arithmetic. Every expected value,
// dtype, stride and text below was produced by PyTorch 2.15 (the expression
// is quoted next to it); tests/differential/test_torch.py checks the same
// behaviour on random cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

namespace bct {
namespace {

// A view of `base`'s memory with the given shape, strides and offset.
Tensor View(const bc_tensor* base, const Shape& shape, const Shape& strides, int64_t offset = 0) {
  const size_t es = ElemSize(bc_tensor_dtype(base));
  char* data = static_cast<char*>(bc_tensor_data(base)) + offset * static_cast<int64_t>(es);
  const size_t nbytes = static_cast<size_t>(bc_tensor_numel(base) - offset) * es;
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_wrap(bc_tensor_dtype(base), shape.data(), strides.data(), shape.size(), data,
                           nbytes, nullptr, nullptr, &t),
            BC_OK)
      << bc_last_error();
  return Tensor(t);
}

Tensor Zeros(bc_dtype d, const Shape& s) {
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_zeros(d, s.data(), s.size(), &t), BC_OK) << bc_last_error();
  return Tensor(t);
}

Tensor Expand(const bc_tensor* t, const Shape& s, bc_status want = BC_OK, const std::string& msg = "") {
  bc_tensor* v = kPoison;
  const bc_status st = bc_expand(t, s.data(), s.size(), &v);
  if (want == BC_OK) {
    EXPECT_EQ(st, BC_OK) << bc_last_error();
  } else {
    EXPECT_TRUE(Fails(st, want, msg));
    EXPECT_EQ(v, nullptr);
    return Tensor();
  }
  return Tensor(v);
}

std::vector<std::string> g_warnings;
void Record(const char* msg, void*) { g_warnings.emplace_back(msg); }

// Cause 1: the missing clamp bound does not narrow the result to x's dtype.
// torch.clamp(int16 [5], min=float32 [1e6]) -> float32 [1e6];
// torch.clamp(int16 [5, -7], max=float32 [0.5, 0.5]) -> float32 [0.5, -7.].
TEST(Fidelity, ClampWithOneBoundPromotes) {
  Tensor x = ToTensor(MakeHost(BC_INT16, {1}, {5})), lo = ToTensor(MakeHost(BC_FLOAT32, {1}, {1e6}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_clamp(x.get(), lo.get(), nullptr, &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT32, {1}, {1e6})));
  Tensor x2 = ToTensor(MakeHost(BC_INT16, {2}, {5, -7})), hi = ToTensor(MakeHost(BC_FLOAT32, {2}, {0.5, 0.5}));
  ASSERT_EQ(bc_clamp(x2.get(), nullptr, hi.get(), &out), BC_OK) << bc_last_error();
  Tensor r2(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT32, {2}, {0.5, -7})));
  // In place the result must fit x: x.clamp_(max=float) on int16 fails.
  const std::vector<unsigned char> before = RawBytes(x2.get());
  EXPECT_TRUE(Fails(bc_clamp_(x2.get(), nullptr, hi.get()), BC_ERR_DTYPE,
                    "result type Float can't be cast to the desired output type Short"));
  EXPECT_EQ(RawBytes(x2.get()), before);
}

// Cause 13: clamp on bool with one bound; both bounds stay unimplemented.
// torch.clamp(bool [T, F], min=bool [T, T]) -> [T, T];
// torch.clamp(bool [T, F], max=float32 [.5, .5]) -> float32 [.5, 0.].
TEST(Fidelity, ClampOnBoolWithOneBound) {
  Tensor x = ToTensor(MakeHost(BC_BOOL, {2}, {1, 0})), lo = ToTensor(MakeHost(BC_BOOL, {2}, {1, 1}));
  Tensor hi = ToTensor(MakeHost(BC_FLOAT32, {2}, {0.5, 0.5}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_clamp(x.get(), lo.get(), nullptr, &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_BOOL, {2}, {1, 1})));
  ASSERT_EQ(bc_clamp(x.get(), nullptr, hi.get(), &out), BC_OK) << bc_last_error();
  Tensor r2(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT32, {2}, {0.5, 0})));
  out = kPoison;
  EXPECT_TRUE(Fails(bc_clamp(x.get(), lo.get(), lo.get(), &out), BC_ERR_DTYPE,
                    "\"clamp_cpu\" not implemented for 'Bool'"));
  EXPECT_EQ(out, nullptr);
}

// Cause 6: logical ops compare in the common dtype.
// torch.logical_and(f16 [1.], f64 0-dim 1e-10) -> [False] (1e-10 is 0 in half);
// torch.logical_or(f16 [0.], f64 0-dim 1e-10) -> [False].
TEST(Fidelity, LogicalOpsReadTheCommonDtype) {
  Tensor h1 = ToTensor(MakeHost(BC_FLOAT16, {1}, {1})), h0 = ToTensor(MakeHost(BC_FLOAT16, {1}, {0}));
  Tensor tiny = ToTensor(MakeHost(BC_FLOAT64, {}, {1e-10}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary(BC_LOGICAL_AND, h1.get(), tiny.get(), &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_BOOL, {1}, {0})));
  ASSERT_EQ(bc_binary(BC_LOGICAL_OR, h0.get(), tiny.get(), &out), BC_OK) << bc_last_error();
  Tensor r2(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_BOOL, {1}, {0})));
}

// Cause 8: ones(3, dtype=int32).sum_to_size(3) is int32 (nothing reduced);
// ones(1, 3, dtype=int32).sum_to_size(3) and ones((), dtype=int32).sum_to_size(())
// are int64 (a leading dim, a full sum); bool likewise.
TEST(Fidelity, SumToShapeKeepsTheDtypeWhenNothingIsReduced) {
  struct Case {
    bc_dtype d;
    Shape in, target;
    bc_dtype want;
  } cases[] = {{BC_INT32, {3}, {3}, BC_INT32},        {BC_INT32, {1, 3}, {3}, BC_INT64},
               {BC_INT32, {}, {}, BC_INT64},          {BC_INT32, {1, 3}, {1, 3}, BC_INT32},
               {BC_BOOL, {2, 3}, {2, 3}, BC_BOOL},    {BC_BOOL, {2, 3}, {1, 3}, BC_INT64},
               {BC_UINT8, {2, 1}, {2, 1}, BC_UINT8}};
  for (const Case& c : cases) {
    Tensor t = ToTensor(Iota(c.d, c.in, 1, 0));
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_sum_to_shape(t.get(), c.target.data(), c.target.size(), &out), BC_OK) << bc_last_error();
    Tensor r(out);
    EXPECT_EQ(bc_tensor_dtype(out), c.want) << ShapeStr(c.in) << " -> " << ShapeStr(c.target);
  }
}

// Cause 9: where's out= and in-place forms and lerp's out= take no other dtype.
TEST(Fidelity, WhereAndLerpOutDtype) {
  Tensor c = ToTensor(MakeHost(BC_BOOL, {2}, {1, 0}));
  Tensor f = ToTensor(MakeHost(BC_FLOAT32, {2}, {1, 2})), d = ToTensor(MakeHost(BC_FLOAT64, {2}, {3, 4}));
  Tensor od = Zeros(BC_FLOAT64, {2}), of = Zeros(BC_FLOAT32, {2});
  // torch.where(c, f32, f32, out=f64): "Expected out type to be Float but got Double".
  EXPECT_TRUE(Fails(bc_where_out(c.get(), f.get(), f.get(), od.get()), BC_ERR_DTYPE,
                    "Expected out type to be Float but got Double"));
  // torch.where(c, f32 self, f64 other, out=self): the result is Double.
  EXPECT_TRUE(Fails(bc_where_(f.get(), c.get(), d.get()), BC_ERR_DTYPE,
                    "Expected out type to be Double but got Float"));
  // ...and checked before shapes: where(c, f32 [2], f32 [3], out=f64 [2]).
  Tensor f3 = ToTensor(MakeHost(BC_FLOAT32, {3}, {1, 2, 3}));
  EXPECT_TRUE(Fails(bc_where_out(c.get(), f.get(), f3.get(), od.get()), BC_ERR_DTYPE,
                    "Expected out type to be Float but got Double"));
  ASSERT_EQ(bc_where_out(c.get(), f.get(), d.get(), od.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(od.get()), MakeHost(BC_FLOAT64, {2}, {1, 4})));
  // torch.lerp(f32, f32, f32, out=f64): "Found dtype Double but expected Float".
  EXPECT_TRUE(Fails(bc_lerp_out(f.get(), f.get(), f.get(), od.get()), BC_ERR_DTYPE,
                    "Found dtype Double but expected Float"));
  EXPECT_TRUE(SameHost(FromTensor(od.get()), MakeHost(BC_FLOAT64, {2}, {1, 4})));
  ASSERT_EQ(bc_lerp_out(f.get(), f.get(), f.get(), of.get()), BC_OK) << bc_last_error();
}

// Cause 10: alpha/value that the kernel's scalar type cannot hold, with
// c10::checked_convert's text (which names the C++ type).
TEST(Fidelity, ScalarRangeTexts) {
  Tensor i8 = ToTensor(MakeHost(BC_INT8, {1}, {1})), u8 = ToTensor(MakeHost(BC_UINT8, {1}, {1}));
  Tensor h = ToTensor(MakeHost(BC_FLOAT16, {1}, {1})), f = ToTensor(MakeHost(BC_FLOAT32, {1}, {1}));
  Tensor i32 = ToTensor(MakeHost(BC_INT32, {1}, {1}));
  bc_tensor* out = kPoison;
  // torch.add(int8, int8, alpha=300)
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_ADD, i8.get(), i8.get(), 300, &out), BC_ERR_INVALID_ARGUMENT,
                    "value cannot be converted to type int8_t without overflow"));
  EXPECT_EQ(out, nullptr);
  // torch.add(uint8, uint8, alpha=-255) -> [2] (negative alphas wrap); -256 overflows.
  ASSERT_EQ(bc_binary_alpha(BC_ADD, u8.get(), u8.get(), -255, &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_UINT8, {1}, {2})));
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_SUB, u8.get(), u8.get(), -256, &out), BC_ERR_INVALID_ARGUMENT,
                    "value cannot be converted to type uint8_t without overflow"));
  // torch.add(f16, f16, alpha=70000); torch.sub(f32, f32, alpha=1e39)
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_ADD, h.get(), h.get(), 70000, &out), BC_ERR_INVALID_ARGUMENT,
                    "value cannot be converted to type c10::Half without overflow"));
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_SUB, f.get(), f.get(), 1e39, &out), BC_ERR_INVALID_ARGUMENT,
                    "value cannot be converted to type float without overflow"));
  // torch.addcmul(f32, f32, f32, value=1e39); on halves value is a float:
  // torch.addcmul(f16 [1], f16 [1], f16 [1], value=70000) -> [inf].
  EXPECT_TRUE(Fails(bc_addcmul(f.get(), f.get(), f.get(), 1e39, &out), BC_ERR_INVALID_ARGUMENT,
                    "value cannot be converted to type float without overflow"));
  ASSERT_EQ(bc_addcmul(h.get(), h.get(), h.get(), 70000, &out), BC_OK) << bc_last_error();
  Tensor r2(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT16, {1}, {INFINITY})));
  // torch.addcmul(int32, int32, int32, value=2**40); a fractional value truncates:
  // torch.addcmul(int32 [1], [1], [1], value=65504.5) -> [65505].
  EXPECT_TRUE(Fails(bc_addcmul(i32.get(), i32.get(), i32.get(), 1099511627776.0, &out),
                    BC_ERR_INVALID_ARGUMENT, "value cannot be converted to type int without overflow"));
  ASSERT_EQ(bc_addcmul(i32.get(), i32.get(), i32.get(), 65504.5, &out), BC_OK) << bc_last_error();
  Tensor r3(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_INT32, {1}, {65505})));
  // The integral check comes first: torch.add(int8, int8, alpha=0.5).
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_ADD, i8.get(), i8.get(), 0.5, &out), BC_ERR_INVALID_ARGUMENT,
                    "For integral input tensors, argument alpha must not be a floating point number."));
}

// Cause 11: torch.add(f32 [1, 2], [1, 1], alpha=nan) -> [nan, nan].
TEST(Fidelity, NanAlphaIsAccepted) {
  Tensor a = ToTensor(MakeHost(BC_FLOAT32, {2}, {1, 2})), b = ToTensor(MakeHost(BC_FLOAT32, {2}, {1, 1}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary_alpha(BC_ADD, a.get(), b.get(), std::nan(""), &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT32, {2}, {NAN, NAN})));
  // Integral dtypes refuse it as a floating alpha.
  Tensor i = ToTensor(MakeHost(BC_INT32, {2}, {1, 2}));
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_ADD, i.get(), i.get(), std::nan(""), &out), BC_ERR_INVALID_ARGUMENT,
                    "For integral input tensors, argument alpha must not be a floating point number."));
}

// Cause 12: a uint8 condition works, with PyTorch's deprecation warning;
// other dtypes are refused. The warning comes before later checks fail, as in
// PyTorch: where(uint8 [2], f32 [3], f32 [2]) warns, then fails on shapes.
TEST(Fidelity, WhereTakesAUint8Condition) {
  const std::string kWarning =
      "where received a uint8 condition tensor. This behavior is deprecated and will be removed "
      "in a future version of PyTorch. Use a boolean condition instead.";
  bc_set_warning_handler(Record, nullptr);
  g_warnings.clear();
  Tensor c = ToTensor(MakeHost(BC_UINT8, {3}, {2, 0, 255})), a = ToTensor(Iota(BC_FLOAT32, {3}, 1));
  Tensor b = ToTensor(Iota(BC_FLOAT32, {3}, 10));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_where(c.get(), a.get(), b.get(), &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT32, {3}, {1, 11, 3})));
  EXPECT_EQ(g_warnings, std::vector<std::string>{kWarning});
  g_warnings.clear();
  Tensor b2 = ToTensor(Iota(BC_FLOAT32, {2}));
  EXPECT_TRUE(Fails(bc_where(c.get(), a.get(), b2.get(), &out), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                    "dimension 0"));
  EXPECT_EQ(g_warnings, std::vector<std::string>{kWarning});
  bc_set_warning_handler(nullptr, nullptr);
  Tensor ci = ToTensor(MakeHost(BC_INT32, {3}, {1, 0, 1}));
  EXPECT_TRUE(Fails(bc_where(ci.get(), a.get(), b.get(), &out), BC_ERR_DTYPE,
                    "where expected condition to be a boolean tensor, but got a tensor with dtype Int"));
}

// Cause 14: a 0-dim weight of another dtype is promoted with self and end.
// torch.lerp(f32 [0, 10], f32 [10, 20], f64 0-dim 0.5) -> f32 [5, 15];
// torch.lerp(int32 [0, 10], int32 [10, 20], f32 0-dim 0.5) -> f32 [5, 15];
// a dimensioned weight must match: "expected dtype float for `weight` but got dtype double".
TEST(Fidelity, LerpWithA0DimWeightOfAnotherDtype) {
  Tensor s = ToTensor(MakeHost(BC_FLOAT32, {2}, {0, 10})), e = ToTensor(MakeHost(BC_FLOAT32, {2}, {10, 20}));
  Tensor w = ToTensor(MakeHost(BC_FLOAT64, {}, {0.5}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_lerp(s.get(), e.get(), w.get(), &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT32, {2}, {5, 15})));
  Tensor si = ToTensor(MakeHost(BC_INT32, {2}, {0, 10})), ei = ToTensor(MakeHost(BC_INT32, {2}, {10, 20}));
  Tensor wf = ToTensor(MakeHost(BC_FLOAT32, {}, {0.5}));
  ASSERT_EQ(bc_lerp(si.get(), ei.get(), wf.get(), &out), BC_OK) << bc_last_error();
  Tensor r2(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT32, {2}, {5, 15})));
  Tensor w1 = ToTensor(MakeHost(BC_FLOAT64, {1}, {0.5}));
  EXPECT_TRUE(Fails(bc_lerp(s.get(), e.get(), w1.get(), &out), BC_ERR_DTYPE,
                    "expected dtype float for `weight` but got dtype double"));
  Tensor e0 = ToTensor(MakeHost(BC_FLOAT64, {}, {1}));
  EXPECT_TRUE(Fails(bc_lerp(s.get(), e0.get(), w.get(), &out), BC_ERR_DTYPE,
                    "expected dtype float for `end` but got dtype double"));
}

// Cause 16: no overlap is reported where no element is shared.
TEST(Fidelity, NoFalseOverlap) {
  // out = zeros(1, 0).expand(3, 0): empty, so nothing is written twice.
  Tensor z = Zeros(BC_FLOAT32, {1, 0});
  Tensor ez = Expand(z.get(), {3, 0});
  Tensor a = Zeros(BC_FLOAT32, {3, 0});
  ASSERT_EQ(bc_binary_out(BC_ADD, a.get(), a.get(), ez.get()), BC_OK) << bc_last_error();
  // out = buf.as_strided((6, 5, 6), (21, 91, 1)): the dims interleave but never meet.
  Tensor buf = Zeros(BC_FLOAT32, {4 * 91 + 5 * 21 + 6});
  Tensor o = View(buf.get(), {6, 5, 6}, {21, 91, 1});
  Tensor x = ToTensor(Iota(BC_FLOAT32, {6, 5, 6}));
  ASSERT_EQ(bc_binary_out(BC_ADD, x.get(), x.get(), o.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(o.get()), Iota(BC_FLOAT32, {6, 5, 6}, 0, 2)));
  // Reading the odd elements while writing the even ones of one buffer.
  Tensor pair = ToTensor(Iota(BC_FLOAT32, {8}));
  Tensor even = View(pair.get(), {4}, {2}), odd = View(pair.get(), {4}, {2}, 1);
  ASSERT_EQ(bc_binary_out(BC_MUL, odd.get(), odd.get(), even.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(pair.get()), MakeHost(BC_FLOAT32, {8}, {1, 1, 9, 3, 25, 5, 49, 7})));
  // x.copy_(x) with x expanded: the same view, nothing to do (PyTorch returns early).
  Tensor one = ToTensor(MakeHost(BC_FLOAT32, {1}, {7}));
  Tensor e = Expand(one.get(), {4});
  ASSERT_EQ(bc_copy_(e.get(), e.get()), BC_OK) << bc_last_error();
  // A real overlap is still refused: as_strided((3, 3), (1, 1)) written.
  Tensor s = View(buf.get(), {3, 3}, {1, 1});
  Tensor y = Zeros(BC_FLOAT32, {3, 3});
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, y.get(), y.get(), s.get()), BC_ERR_OVERLAP,
                    "unsupported operation: more than one element of the written-to tensor refers "
                    "to a single memory location. Please clone() the tensor before performing the "
                    "operation."));
}

// Cause 18: PyTorch's order: the op's own checks, overlap, shapes, the out
// dtype, alpha, dtype support, scalar ranges.
TEST(Fidelity, ErrorPrecedence) {
  // torch.bitwise_and(uint8 (2,3,1), float64 (2,1)): the shapes first.
  Tensor u = Zeros(BC_UINT8, {2, 3, 1}), d = Zeros(BC_FLOAT64, {2, 1});
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_BITWISE_AND, u.get(), d.get(), &out), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                    "dimension 1"));
  // torch.add(int8 [2], int8 [3], alpha=0.5) and alpha=300: the shapes first.
  Tensor i2 = Zeros(BC_INT8, {2}), i3 = Zeros(BC_INT8, {3});
  const char kSizes[] =
      "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0";
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_ADD, i2.get(), i3.get(), 0.5, &out), BC_ERR_NOT_BROADCASTABLE, kSizes));
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_ADD, i2.get(), i3.get(), 300, &out), BC_ERR_NOT_BROADCASTABLE, kSizes));
  // torch.sub(bool [2], bool [3]): sub's own check comes before the shapes.
  Tensor b2 = Zeros(BC_BOOL, {2}), b3 = Zeros(BC_BOOL, {3});
  EXPECT_TRUE(Fails(bc_binary(BC_SUB, b2.get(), b3.get(), &out), BC_ERR_DTYPE,
                    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                    "`^` or `logical_xor()` operator instead."));
  // torch.add(f32 [2], f32 [3], out=ones(1).expand(3)): overlap before shapes.
  Tensor f2 = Zeros(BC_FLOAT32, {2}), f3 = Zeros(BC_FLOAT32, {3}), one = Zeros(BC_FLOAT32, {1});
  Tensor e3 = Expand(one.get(), {3});
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, f2.get(), f3.get(), e3.get()), BC_ERR_OVERLAP,
                    "unsupported operation: more than one element of the written-to tensor refers "
                    "to a single memory location. Please clone() the tensor before performing the "
                    "operation."));
  // x = arange(6.); torch.add(x[:2], f32 [3], out=x[1:4]): partial overlap before shapes.
  Tensor x = ToTensor(Iota(BC_FLOAT32, {6}));
  Tensor head = View(x.get(), {2}, {1}), mid = View(x.get(), {3}, {1}, 1);
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, head.get(), f3.get(), mid.get()), BC_ERR_OVERLAP,
                    "unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation."));
  // int32 [2] .add_(float32 [3]): shapes before the cast to the written dtype.
  Tensor n2 = Zeros(BC_INT32, {2});
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, n2.get(), f3.get()), BC_ERR_NOT_BROADCASTABLE, kSizes));
  // The out cast before dtype support: torch.hypot(int32, int32, out=int32)
  // says "hypot_cpu" only once the cast is fine; torch.add(f32, f32,
  // out=int32) names the cast.
  Tensor n3 = Zeros(BC_INT32, {3});
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, f3.get(), f3.get(), n3.get()), BC_ERR_DTYPE,
                    "result type Float can't be cast to the desired output type Int"));
  EXPECT_TRUE(Fails(bc_binary_out(BC_HYPOT, n3.get(), n3.get(), n3.get()), BC_ERR_DTYPE,
                    "\"hypot_cpu\" not implemented for 'Int'"));
  // torch.addcmul(bool, bool, bool, value=1e39): dtype support before the range.
  Tensor bb = Zeros(BC_BOOL, {2});
  EXPECT_TRUE(Fails(bc_addcmul(bb.get(), bb.get(), bb.get(), 1e39, &out), BC_ERR_DTYPE,
                    "\"addcmul_cpu_out\" not implemented for 'Bool'"));
}

// Found by the differential test: the division-by-zero check looks at the
// divisor converted to the division's dtype. torch.tensor([7, 9], dtype=int32)
// .fmod_(torch.tensor(-2**63)) raises ZeroDivisionError (the 0-dim int64 is 0
// as int32); 2**32 + 3 as int32 is 3: fmod gives [1, 0].
TEST(Fidelity, DivisionByZeroAfterConversion) {
  Tensor x = ToTensor(MakeHost(BC_INT32, {2}, {7, 9}));
  int64_t min = INT64_MIN, wraps = (int64_t{1} << 32) + 3;
  bc_tensor* zero = nullptr;
  bc_tensor* three = nullptr;
  const int64_t* none = nullptr;
  ASSERT_EQ(bc_tensor_from_data(BC_INT64, none, 0, &min, &zero), BC_OK);
  ASSERT_EQ(bc_tensor_from_data(BC_INT64, none, 0, &wraps, &three), BC_OK);
  Tensor z(zero), t(three);
  const std::vector<unsigned char> before = RawBytes(x.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_FMOD, x.get(), zero), BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError"));
  EXPECT_EQ(RawBytes(x.get()), before);
  ASSERT_EQ(bc_binary_(BC_FMOD, x.get(), three), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(x.get()), MakeHost(BC_INT32, {2}, {1, 0})));
}

// Cause 20: expand's texts.
TEST(Fidelity, ExpandTexts) {
  Tensor b = Zeros(BC_BOOL, {2, 3}), h = Zeros(BC_BFLOAT16, {2, 3}), f = Zeros(BC_FLOAT32, {2, 3});
  // torch.zeros(2, 3, dtype=torch.bool).expand(3)
  Expand(b.get(), {3}, BC_ERR_SHAPE_MISMATCH,
         "expand(CPUBoolType{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater "
         "or equal to the number of dimensions in the tensor (2)");
  Expand(h.get(), {3}, BC_ERR_SHAPE_MISMATCH,
         "expand(CPUBFloat16Type{[2, 3]}, size=[3]): the number of sizes provided (1) must be "
         "greater or equal to the number of dimensions in the tensor (2)");
  Expand(f.get(), {3}, BC_ERR_SHAPE_MISMATCH,
         "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be "
         "greater or equal to the number of dimensions in the tensor (2)");
  Tensor c = Zeros(BC_FLOAT32, {2, 1}), s = Zeros(BC_FLOAT32, {});
  // torch.zeros(()).expand(-1); zeros(2, 1).expand(2, -2) and .expand(-2, 2, 1)
  Expand(s.get(), {-1}, BC_ERR_INVALID_ARGUMENT, "numel: integer multiplication overflow");
  Expand(c.get(), {2, -2}, BC_ERR_INVALID_ARGUMENT, "numel: integer multiplication overflow");
  Expand(c.get(), {-2, 2, 1}, BC_ERR_INVALID_ARGUMENT, "numel: integer multiplication overflow");
  // zeros(2, 1).expand(-3, 1); zeros(2, 1).expand(-1, 2, 1)
  Expand(c.get(), {-3, 1}, BC_ERR_SHAPE_MISMATCH,
         "The expanded size of the tensor (-3) must match the existing size (2) at non-singleton "
         "dimension 0.  Target sizes: [-3, 1].  Tensor sizes: [2, 1]");
  Expand(c.get(), {-1, 2, 1}, BC_ERR_SHAPE_MISMATCH,
         "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0");
  // -1 keeps an existing size: zeros(2, 1).expand(2, -1) is (2, 1).
  Tensor k = Expand(c.get(), {2, -1});
  EXPECT_EQ(ShapeOf(k.get()), (Shape{2, 1}));
}

// Cause 22: expand and broadcast_tensors views keep PyTorch's strides: a
// size-1 dim keeps its own, a new leading dim strides over the dims inside it.
TEST(Fidelity, ExpandStridesAreTorchs) {
  // torch.zeros(6, 1, 5, 1).expand(1, 6, 1, 5, 1).stride() == (30, 5, 5, 1, 1)
  Tensor t = Zeros(BC_FLOAT32, {6, 1, 5, 1});
  Tensor e = Expand(t.get(), {1, 6, 1, 5, 1});
  EXPECT_EQ(StridesOf(e.get()), (Shape{30, 5, 5, 1, 1}));
  // torch.zeros(2, 1).expand(1, 1, 2, 1).stride() == (2, 2, 1, 1)
  Tensor c = Zeros(BC_FLOAT32, {2, 1});
  EXPECT_EQ(StridesOf(Expand(c.get(), {1, 1, 2, 1}).get()), (Shape{2, 2, 1, 1}));
  // torch.zeros(2, 1).expand(3, 1, 2, 1).stride() == (0, 2, 1, 1)
  EXPECT_EQ(StridesOf(Expand(c.get(), {3, 1, 2, 1}).get()), (Shape{0, 2, 1, 1}));
  // torch.zeros(3, 1, 2).permute(2, 1, 0).expand(4, 2, 5, 3).stride() == (0, 1, 0, 2)
  Tensor p0 = Zeros(BC_FLOAT32, {6});
  Tensor p = View(p0.get(), {2, 1, 3}, {1, 2, 2});
  EXPECT_EQ(StridesOf(Expand(p.get(), {4, 2, 5, 3}).get()), (Shape{0, 1, 0, 2}));
  // torch.zeros(()).expand(1, 1).stride() == (0, 0)
  Tensor s = Zeros(BC_FLOAT32, {});
  EXPECT_EQ(StridesOf(Expand(s.get(), {1, 1}).get()), (Shape{0, 0}));
  // torch.broadcast_tensors(zeros(6, 1, 5, 1), zeros(1, 6, 1, 5, 1))[0].stride() == (30, 5, 5, 1, 1)
  Tensor u = Zeros(BC_FLOAT32, {1, 6, 1, 5, 1});
  const bc_tensor* ins[2] = {t.get(), u.get()};
  bc_tensor* views[2] = {nullptr, nullptr};
  ASSERT_EQ(bc_broadcast_tensors(ins, 2, views), BC_OK) << bc_last_error();
  Tensor v0(views[0]), v1(views[1]);
  EXPECT_EQ(StridesOf(views[0]), (Shape{30, 5, 5, 1, 1}));
  EXPECT_EQ(StridesOf(views[1]), (Shape{30, 5, 5, 1, 1}));
}

}  // namespace
}  // namespace bct
