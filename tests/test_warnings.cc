// Warnings and compatibility settings: the broadcast warning, legacy 1-D
// pointwise mode, the broadcast policy, warnings-as-errors, the handler and
// the default handler's stderr output. Every test restores the defaults.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <mutex>

#include "test_util.h"

namespace bct {
namespace {

const char kBroadcastWarning[] =
    "self and other do not have the same shape, but are broadcastable, and have the same number of "
    "elements. Changing behavior in a backwards incompatible manner to broadcasting rather than "
    "viewing as 1-dimensional.";
const char kLegacyWarning[] =
    "other is not broadcastable to self, but they have the same number of elements. Falling back "
    "to deprecated pointwise behavior.";

struct Recorder {
  std::mutex mu;
  std::vector<std::string> msgs;
  static void Fn(const char* msg, void* user) {
    auto* r = static_cast<Recorder*>(user);
    std::lock_guard<std::mutex> lock(r->mu);
    r->msgs.push_back(msg ? msg : "<null>");
  }
};

class Warnings : public ::testing::Test {
 protected:
  void SetUp() override {
    Reset();
    bc_set_warning_handler(&Recorder::Fn, &rec_);
  }
  void TearDown() override { Reset(); }
  static void Reset() {
    bc_set_warning_handler(nullptr, nullptr);
    bc_set_broadcast_warning(0);
    bc_set_legacy_pointwise(0);
    EXPECT_EQ(bc_set_broadcast_policy(BC_POLICY_ALLOW), BC_OK);
    bc_set_warnings_as_errors(0);
  }
  Recorder rec_;
};

Tensor Add(const bc_tensor* a, const bc_tensor* b, bc_status want = BC_OK) {
  bc_tensor* out = kPoison;
  bc_status st = bc_binary(BC_ADD, a, b, &out);
  EXPECT_EQ(st, want) << bc_last_error();
  if (st != BC_OK) {
    EXPECT_EQ(out, nullptr);
    return Tensor();
  }
  return Tensor(out);
}

TEST_F(Warnings, DefaultsAreOff) {
  EXPECT_EQ(bc_get_broadcast_warning(), 0);
  EXPECT_EQ(bc_get_legacy_pointwise(), 0);
  EXPECT_EQ(bc_get_broadcast_policy(), BC_POLICY_ALLOW);
  EXPECT_EQ(bc_get_warnings_as_errors(), 0);
  bc_set_broadcast_warning(1);
  bc_set_legacy_pointwise(5);
  bc_set_warnings_as_errors(1);
  EXPECT_EQ(bc_get_broadcast_warning(), 1);
  EXPECT_EQ(bc_get_legacy_pointwise(), 1);
  EXPECT_EQ(bc_get_warnings_as_errors(), 1);
  EXPECT_EQ(bc_set_broadcast_policy(BC_POLICY_ERROR), BC_OK);
  EXPECT_EQ(bc_get_broadcast_policy(), BC_POLICY_ERROR);
  EXPECT_TRUE(Fails(bc_set_broadcast_policy(static_cast<bc_policy>(3)), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_set_broadcast_policy(static_cast<bc_policy>(-1)), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(bc_get_broadcast_policy(), BC_POLICY_ERROR);
}

TEST_F(Warnings, NothingByDefault) {
  Tensor a = ToTensor(Iota(BC_FLOAT32, {4, 1})), b = ToTensor(Iota(BC_FLOAT32, {4}));
  Tensor r = Add(a.get(), b.get());
  EXPECT_EQ(ShapeOf(r.get()), (Shape{4, 4}));
  Tensor c = ToTensor(Iota(BC_FLOAT32, {2, 2}));
  Add(a.get(), c.get(), BC_ERR_NOT_BROADCASTABLE);
  EXPECT_TRUE(rec_.msgs.empty());
}

// ---------------------------------------------------------------------------
// Broadcast warning

TEST_F(Warnings, BroadcastWarningOnEqualNumel) {
  bc_set_broadcast_warning(1);
  // torch.add(torch.ones(4,1), torch.ones(4)): broadcasts to [4, 4] and warns.
  Tensor a = ToTensor(MakeHost(BC_FLOAT32, {4, 1}, {1, 1, 1, 1}));
  Tensor b = ToTensor(MakeHost(BC_FLOAT32, {4}, {1, 1, 1, 1}));
  Tensor r = Add(a.get(), b.get());
  Host got = FromTensor(r.get());
  EXPECT_EQ(got.shape, (Shape{4, 4}));
  for (const Val& v : got.v) EXPECT_EQ(v.f, 2.0);
  ASSERT_EQ(rec_.msgs.size(), 1u);
  EXPECT_EQ(rec_.msgs[0], kBroadcastWarning);
  // [4,1] against [1,4] too.
  Tensor c = ToTensor(Iota(BC_FLOAT32, {1, 4}));
  Add(a.get(), c.get());
  EXPECT_EQ(rec_.msgs.size(), 2u);
}

TEST_F(Warnings, BroadcastWarningOnlyWhenShapesDifferWithEqualNumel) {
  bc_set_broadcast_warning(1);
  Tensor a = ToTensor(Iota(BC_FLOAT32, {4, 1})), same = ToTensor(Iota(BC_FLOAT32, {4, 1}));
  Tensor row = ToTensor(Iota(BC_FLOAT32, {3}));
  Tensor m = ToTensor(Iota(BC_FLOAT32, {2, 3}));
  Add(a.get(), same.get());  // same shape
  Add(m.get(), row.get());   // different numel
  EXPECT_TRUE(rec_.msgs.empty()) << rec_.msgs.size() << " warnings, first: " << (rec_.msgs.empty() ? "" : rec_.msgs[0]);
}

TEST_F(Warnings, BroadcastWarningAsError) {
  bc_set_broadcast_warning(1);
  bc_set_warnings_as_errors(1);
  Tensor a = ToTensor(Iota(BC_FLOAT32, {4, 1})), b = ToTensor(Iota(BC_FLOAT32, {4}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, a.get(), b.get(), &out), BC_ERR_POLICY, kBroadcastWarning));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(rec_.msgs.empty());
  // out= writes nothing.
  int64_t shape[] = {4, 4};
  bc_tensor* o = nullptr;
  ASSERT_EQ(bc_tensor_zeros(BC_FLOAT32, shape, 2, &o), BC_OK);
  Tensor ho(o);
  std::vector<unsigned char> before = RawBytes(o);
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, a.get(), b.get(), o), BC_ERR_POLICY, kBroadcastWarning));
  EXPECT_EQ(RawBytes(o), before);
  // Without the warning setting, nothing to raise.
  bc_set_broadcast_warning(0);
  Add(a.get(), b.get());
  EXPECT_TRUE(rec_.msgs.empty());
}

// ---------------------------------------------------------------------------
// Legacy pointwise

TEST_F(Warnings, LegacyPointwiseIsRowMajorOneDim) {
  bc_set_legacy_pointwise(1);
  Host a = Iota(BC_FLOAT32, {2, 3});         // 0 1 2 / 3 4 5
  Host b = Iota(BC_FLOAT32, {3, 2}, 10, 10);  // 10 20 / 30 40 / 50 60
  Tensor ta = ToTensor(a), tb = ToTensor(b);
  Tensor r = Add(ta.get(), tb.get());
  ASSERT_TRUE(r);
  EXPECT_TRUE(SameHost(FromTensor(r.get()), MakeHost(BC_FLOAT32, {2, 3}, {10, 21, 32, 43, 54, 65})));
  ASSERT_EQ(rec_.msgs.size(), 1u);
  EXPECT_EQ(rec_.msgs[0], kLegacyWarning);
  // The result takes the first operand's shape.
  Tensor r2 = Add(tb.get(), ta.get());
  ASSERT_TRUE(r2);
  EXPECT_TRUE(SameHost(FromTensor(r2.get()), MakeHost(BC_FLOAT32, {3, 2}, {10, 21, 32, 43, 54, 65})));
  // [4] with [2, 2].
  Tensor v4 = ToTensor(Iota(BC_INT32, {4})), m22 = ToTensor(Iota(BC_INT32, {2, 2}, 100));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary(BC_SUB, v4.get(), m22.get(), &out), BC_OK) << bc_last_error();
  Tensor r3(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_INT32, {4}, {-100, -100, -100, -100})));
  EXPECT_EQ(rec_.msgs.size(), 3u);
}

TEST_F(Warnings, LegacyPointwiseUsesLogicalOrderOfStridedInputs) {
  bc_set_legacy_pointwise(1);
  // b is the transpose of a 2x3 buffer: logical [3,2] order 0 3 / 1 4 / 2 5.
  alignas(8) float buf[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[] = {3, 2}, strides[] = {1, 3};
  bc_tensor* t = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, strides, 2, buf, sizeof buf, nullptr, nullptr, &t), BC_OK);
  Tensor tb(t);
  Tensor ta = ToTensor(MakeHost(BC_FLOAT32, {6}, {0, 0, 0, 0, 0, 0}));
  Tensor r = Add(ta.get(), tb.get());
  ASSERT_TRUE(r);
  EXPECT_TRUE(SameHost(FromTensor(r.get()), MakeHost(BC_FLOAT32, {6}, {0, 3, 1, 4, 2, 5})));
}

TEST_F(Warnings, LegacyPointwiseLeavesBroadcastableAndUnequalAlone) {
  bc_set_legacy_pointwise(1);
  Tensor a = ToTensor(Iota(BC_FLOAT32, {4, 1})), b = ToTensor(Iota(BC_FLOAT32, {4}));
  Tensor r = Add(a.get(), b.get());
  EXPECT_EQ(ShapeOf(r.get()), (Shape{4, 4}));
  EXPECT_TRUE(rec_.msgs.empty());
  // Not broadcastable and different numel: the usual error.
  Tensor c = ToTensor(Iota(BC_FLOAT32, {2, 3})), d = ToTensor(Iota(BC_FLOAT32, {3, 3}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, c.get(), d.get(), &out), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"));
  EXPECT_TRUE(rec_.msgs.empty());
}

TEST_F(Warnings, LegacyPointwiseOffFails) {
  Tensor a = ToTensor(Iota(BC_FLOAT32, {2, 3})), b = ToTensor(Iota(BC_FLOAT32, {3, 2}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, a.get(), b.get(), &out), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"));
  EXPECT_EQ(out, nullptr);
}

TEST_F(Warnings, LegacyPointwiseInPlace) {
  bc_set_legacy_pointwise(1);
  Tensor self = ToTensor(Iota(BC_INT64, {2, 3}));
  Tensor other = ToTensor(Iota(BC_INT64, {3, 2}, 10));
  ASSERT_EQ(bc_binary_(BC_ADD, self.get(), other.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(self.get()), MakeHost(BC_INT64, {2, 3}, {10, 12, 14, 16, 18, 20})));
  ASSERT_EQ(rec_.msgs.size(), 1u);
  EXPECT_EQ(rec_.msgs[0], kLegacyWarning);
}

TEST_F(Warnings, LegacyInPlaceFailureUsesExpandWording) {
  bc_set_legacy_pointwise(1);
  Tensor x = ToTensor(Iota(BC_FLOAT32, {1, 3, 1})), y = ToTensor(Iota(BC_FLOAT32, {3, 1, 7}));
  std::vector<unsigned char> before = RawBytes(x.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, x.get(), y.get()), BC_ERR_SHAPE_MISMATCH,
                    "The expanded size of the tensor (1) must match the existing size (7) at "
                    "non-singleton dimension 2.  Target sizes: [1, 3, 1].  Tensor sizes: [3, 1, 7]"));
  EXPECT_EQ(RawBytes(x.get()), before);
  bc_error_detail d = LastDetail();
  EXPECT_EQ(d.dim, 2);
  EXPECT_EQ(d.size_a, 1);
  EXPECT_EQ(d.size_b, 7);
  bc_set_legacy_pointwise(0);
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, x.get(), y.get()), BC_ERR_SHAPE_MISMATCH,
                    "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]"));
}

TEST_F(Warnings, LegacyWarningAsError) {
  bc_set_legacy_pointwise(1);
  bc_set_warnings_as_errors(1);
  Tensor self = Tensor(ToTensor(Iota(BC_FLOAT32, {2, 3})));
  Tensor other = ToTensor(Iota(BC_FLOAT32, {3, 2}));
  std::vector<unsigned char> before = RawBytes(self.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, self.get(), other.get()), BC_ERR_POLICY, kLegacyWarning));
  EXPECT_EQ(RawBytes(self.get()), before);
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, self.get(), other.get(), &out), BC_ERR_POLICY, kLegacyWarning));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(rec_.msgs.empty());
}

// ---------------------------------------------------------------------------
// Policy

TEST_F(Warnings, PolicyWarnOnAnyImplicitBroadcast) {
  ASSERT_EQ(bc_set_broadcast_policy(BC_POLICY_WARN), BC_OK);
  Host a = Iota(BC_FLOAT64, {2, 3}), b = Iota(BC_FLOAT64, {3}, 1);
  Tensor ta = ToTensor(a), tb = ToTensor(b), tsame = ToTensor(a);
  Tensor r = Add(ta.get(), tb.get());
  EXPECT_TRUE(SameHost(FromTensor(r.get()), RefBinary(BC_ADD, a, b)));
  ASSERT_EQ(rec_.msgs.size(), 1u);
  EXPECT_FALSE(rec_.msgs[0].empty());
  Add(ta.get(), tsame.get());
  EXPECT_EQ(rec_.msgs.size(), 1u);
  // In place broadcasting of the other operand warns too, and still computes.
  ASSERT_EQ(bc_binary_(BC_ADD, ta.get(), tb.get()), BC_OK);
  EXPECT_EQ(rec_.msgs.size(), 2u);
}

TEST_F(Warnings, PolicyWarnAsErrorWritesNothing) {
  ASSERT_EQ(bc_set_broadcast_policy(BC_POLICY_WARN), BC_OK);
  Tensor ta = ToTensor(Iota(BC_FLOAT64, {2, 3})), tb = ToTensor(Iota(BC_FLOAT64, {3}, 1));
  Add(ta.get(), tb.get());
  ASSERT_EQ(rec_.msgs.size(), 1u);
  std::string text = rec_.msgs[0];
  bc_set_warnings_as_errors(1);
  std::vector<unsigned char> before = RawBytes(ta.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, ta.get(), tb.get()), BC_ERR_POLICY, text));
  EXPECT_EQ(RawBytes(ta.get()), before);
  EXPECT_EQ(rec_.msgs.size(), 1u);
}

TEST_F(Warnings, PolicyErrorRefusesBroadcastExceptScalars) {
  ASSERT_EQ(bc_set_broadcast_policy(BC_POLICY_ERROR), BC_OK);
  Host a = Iota(BC_INT32, {2, 3});
  Tensor ta = ToTensor(a), tb = ToTensor(Iota(BC_INT32, {3})), tsame = ToTensor(Iota(BC_INT32, {2, 3}, 5));
  Tensor scalar = ToTensor(MakeHost(BC_INT32, {}, {4}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, ta.get(), tb.get(), &out), BC_ERR_POLICY));
  EXPECT_EQ(out, nullptr);
  Tensor ok = Add(ta.get(), tsame.get());
  EXPECT_TRUE(SameHost(FromTensor(ok.get()), MakeHost(BC_INT32, {2, 3}, {5, 7, 9, 11, 13, 15})));
  Tensor ok2 = Add(ta.get(), scalar.get());
  EXPECT_TRUE(SameHost(FromTensor(ok2.get()), MakeHost(BC_INT32, {2, 3}, {4, 5, 6, 7, 8, 9})));
  Tensor ok3 = Add(scalar.get(), ta.get());
  EXPECT_EQ(ShapeOf(ok3.get()), (Shape{2, 3}));
  // [1, 3] vs [3] differ in shape too.
  Tensor t13 = ToTensor(Iota(BC_INT32, {1, 3}));
  out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_MUL, t13.get(), tb.get(), &out), BC_ERR_POLICY));
  // In place and out= refuse without writing.
  std::vector<unsigned char> before = RawBytes(ta.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, ta.get(), tb.get()), BC_ERR_POLICY));
  EXPECT_EQ(RawBytes(ta.get()), before);
  Tensor o = ToTensor(Iota(BC_INT32, {2, 3}, 50));
  std::vector<unsigned char> obefore = RawBytes(o.get());
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, ta.get(), tb.get(), o.get()), BC_ERR_POLICY));
  EXPECT_EQ(RawBytes(o.get()), obefore);
  ASSERT_EQ(bc_binary_out(BC_ADD, ta.get(), scalar.get(), o.get()), BC_OK);
  // Ternary ops follow the policy.
  Tensor c = ToTensor(MakeHost(BC_BOOL, {2, 3}, {1, 0, 1, 0, 1, 0}));
  out = kPoison;
  EXPECT_TRUE(Fails(bc_where(c.get(), tb.get(), ta.get(), &out), BC_ERR_POLICY));
  EXPECT_EQ(out, nullptr);
  ASSERT_EQ(bc_where(c.get(), tsame.get(), ta.get(), &out), BC_OK);
  bc_tensor_free(out);
  EXPECT_TRUE(rec_.msgs.empty());
}

// ---------------------------------------------------------------------------
// Handler

TEST_F(Warnings, HandlerMayCallBcast) {
  struct Ctx {
    int calls = 0;
    int64_t numel = -1;
  } ctx;
  bc_set_warning_handler(
      [](const char*, void* user) {
        auto* c = static_cast<Ctx*>(user);
        ++c->calls;
        int64_t shape[] = {2, 5};
        bc_tensor* t = nullptr;
        if (bc_tensor_zeros(BC_FLOAT32, shape, 2, &t) == BC_OK) c->numel = bc_tensor_numel(t);
        bc_tensor_free(t);
      },
      &ctx);
  bc_set_broadcast_warning(1);
  Tensor a = ToTensor(Iota(BC_FLOAT32, {4, 1})), b = ToTensor(Iota(BC_FLOAT32, {4}));
  Tensor r = Add(a.get(), b.get());
  EXPECT_EQ(ShapeOf(r.get()), (Shape{4, 4}));
  EXPECT_EQ(ctx.calls, 1);
  EXPECT_EQ(ctx.numel, 10);
}

TEST_F(Warnings, DefaultHandlerPrintsToStderr) {
  bc_set_warning_handler(nullptr, nullptr);
  bc_set_broadcast_warning(1);
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  ASSERT_NE(tmp, nullptr);
  int saved = dup(2);
  ASSERT_GE(saved, 0);
  ASSERT_GE(dup2(fileno(tmp), 2), 0);
  Tensor a = ToTensor(Iota(BC_FLOAT32, {4, 1})), b = ToTensor(Iota(BC_FLOAT32, {4}));
  bc_tensor* out = nullptr;
  bc_status st = bc_binary(BC_ADD, a.get(), b.get(), &out);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  ASSERT_EQ(st, BC_OK);
  bc_tensor_free(out);
  std::rewind(tmp);
  std::string text;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) text.append(buf, n);
  std::fclose(tmp);
  EXPECT_EQ(text, std::string("bcast warning: ") + kBroadcastWarning + "\n");
}

}  // namespace
}  // namespace bct
