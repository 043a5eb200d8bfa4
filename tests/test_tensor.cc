// Tensors: creation, wrapping (strides, bounds, deleter), views, clone,
// copy_to and getters, and every bad input the constructors must refuse.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "test_util.h"

namespace bct {
namespace {

struct DeleterLog {
  int calls = 0;
  void* data = nullptr;
};
void CountingDeleter(void* data, void* ctx) {
  auto* log = static_cast<DeleterLog*>(ctx);
  ++log->calls;
  log->data = data;
}

TEST(Tensor, EmptyHasShapeStridesAndDtype) {
  int64_t shape[] = {2, 3, 4};
  bc_tensor* t = nullptr;
  ASSERT_EQ(bc_tensor_empty(BC_INT16, shape, 3, &t), BC_OK) << bc_last_error();
  Tensor h(t);
  EXPECT_EQ(bc_tensor_ndim(t), 3u);
  EXPECT_EQ(ShapeOf(t), (Shape{2, 3, 4}));
  EXPECT_EQ(StridesOf(t), (Shape{12, 4, 1}));
  EXPECT_EQ(bc_tensor_dtype(t), BC_INT16);
  EXPECT_EQ(bc_tensor_numel(t), 24);
  EXPECT_EQ(bc_tensor_is_contiguous(t), 1);
  ASSERT_NE(bc_tensor_data(t), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bc_tensor_data(t)) % 2, 0u);
  // The buffer is really numel elements long and writable.
  std::memset(bc_tensor_data(t), 0x11, 24 * 2);
  Host got = FromTensor(t);
  for (const Val& v : got.v) EXPECT_EQ(v.i, 0x1111);
}

TEST(Tensor, ZerosEveryDtype) {
  for (bc_dtype d : kAllDtypes) {
    int64_t shape[] = {3, 5};
    bc_tensor* t = nullptr;
    ASSERT_EQ(bc_tensor_zeros(d, shape, 2, &t), BC_OK) << bc_last_error();
    Tensor h(t);
    std::vector<unsigned char> bytes = RawBytes(t);
    EXPECT_EQ(bytes.size(), 15 * ElemSize(d));
    for (unsigned char c : bytes) EXPECT_EQ(c, 0) << ShortName(d);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(bc_tensor_data(t)) % ElemSize(d), 0u);
  }
}

TEST(Tensor, ZeroDim) {
  bc_tensor* t = nullptr;
  double x = -3.25;
  ASSERT_EQ(bc_tensor_from_data(BC_FLOAT64, nullptr, 0, &x, &t), BC_OK) << bc_last_error();
  Tensor h(t);
  EXPECT_EQ(bc_tensor_ndim(t), 0u);
  EXPECT_NE(bc_tensor_shape(t), nullptr);
  EXPECT_EQ(bc_tensor_numel(t), 1);
  EXPECT_EQ(bc_tensor_is_contiguous(t), 1);
  double y = 0;
  ASSERT_EQ(bc_tensor_copy_to(t, &y, sizeof y), BC_OK);
  EXPECT_EQ(y, -3.25);
  bc_tensor* z = nullptr;
  ASSERT_EQ(bc_tensor_zeros(BC_INT8, nullptr, 0, &z), BC_OK);
  Tensor hz(z);
  EXPECT_EQ(bc_tensor_numel(z), 1);
}

TEST(Tensor, SizeZero) {
  int64_t shape[] = {4, 0, 2};
  bc_tensor* t = nullptr;
  ASSERT_EQ(bc_tensor_from_data(BC_FLOAT32, shape, 3, nullptr, &t), BC_OK) << bc_last_error();
  Tensor h(t);
  EXPECT_EQ(bc_tensor_numel(t), 0);
  EXPECT_EQ(ShapeOf(t), (Shape{4, 0, 2}));
  EXPECT_EQ(bc_tensor_copy_to(t, nullptr, 0), BC_OK) << bc_last_error();
  bc_tensor* c = nullptr;
  ASSERT_EQ(bc_tensor_clone(t, &c), BC_OK);
  Tensor hc(c);
  EXPECT_EQ(ShapeOf(c), (Shape{4, 0, 2}));
  bc_tensor* w = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_INT32, shape, nullptr, 3, nullptr, 0, nullptr, nullptr, &w), BC_OK)
      << bc_last_error();
  Tensor hw(w);
  EXPECT_EQ(bc_tensor_numel(w), 0);
}

TEST(Tensor, FromDataCopiesEveryDtype) {
  std::mt19937 rng(3);
  for (bc_dtype d : kAllDtypes) {
    Host h = RandomHost(d, {2, 3, 5}, rng);
    std::vector<unsigned char> bytes = Encode(h);
    bc_tensor* t = nullptr;
    ASSERT_EQ(bc_tensor_from_data(d, h.shape.data(), 3, bytes.data(), &t), BC_OK);
    Tensor ht(t);
    std::fill(bytes.begin(), bytes.end(), 0xEE);  // not retained
    EXPECT_TRUE(SameHost(FromTensor(t), h)) << ShortName(d);
    EXPECT_NE(bc_tensor_data(t), static_cast<void*>(bytes.data()));
  }
}

TEST(Tensor, WrapContiguousSharesBuffer) {
  float buf[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  bc_tensor* t = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 2, buf, sizeof buf, nullptr, nullptr, &t), BC_OK);
  Tensor h(t);
  EXPECT_EQ(bc_tensor_data(t), static_cast<void*>(buf));
  EXPECT_EQ(StridesOf(t), (Shape{3, 1}));
  EXPECT_EQ(bc_tensor_is_contiguous(t), 1);
  buf[4] = 50;  // visible through the handle
  Host got = FromTensor(t);
  EXPECT_EQ(got.v[4].f, 50.0);
  // In-place ops write into the caller's buffer.
  Tensor two = ToTensor(MakeHost(BC_FLOAT32, {}, {2}));
  ASSERT_EQ(bc_binary_(BC_MUL, t, two.get()), BC_OK);
  EXPECT_EQ(buf[0], 2.0f);
  EXPECT_EQ(buf[4], 100.0f);
}

TEST(Tensor, WrapStridedAndTransposed) {
  // A 3x4 row-major int32 matrix viewed as its 4x3 transpose.
  int32_t buf[12];
  for (int i = 0; i < 12; ++i) buf[i] = i;
  int64_t shape[] = {4, 3}, strides[] = {1, 4};
  bc_tensor* t = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_INT32, shape, strides, 2, buf, sizeof buf, nullptr, nullptr, &t), BC_OK);
  Tensor h(t);
  EXPECT_EQ(StridesOf(t), (Shape{1, 4}));
  EXPECT_EQ(bc_tensor_is_contiguous(t), 0);
  int32_t out[12];
  ASSERT_EQ(bc_tensor_copy_to(t, out, sizeof out), BC_OK);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(out[i * 3 + j], j * 4 + i);
  // Every other element of a row, with a stride-0 leading dim.
  int64_t shape2[] = {2, 3}, strides2[] = {0, 2};
  bc_tensor* u = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_INT32, shape2, strides2, 2, buf, 5 * sizeof(int32_t), nullptr, nullptr, &u), BC_OK)
      << bc_last_error();
  Tensor hu(u);
  int32_t out2[6];
  ASSERT_EQ(bc_tensor_copy_to(u, out2, sizeof out2), BC_OK);
  const int32_t want[] = {0, 2, 4, 0, 2, 4};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out2[i], want[i]);
  // clone is contiguous with the same logical values.
  bc_tensor* c = nullptr;
  ASSERT_EQ(bc_tensor_clone(t, &c), BC_OK);
  Tensor hc(c);
  EXPECT_EQ(bc_tensor_is_contiguous(c), 1);
  EXPECT_EQ(StridesOf(c), (Shape{3, 1}));
  EXPECT_NE(bc_tensor_data(c), static_cast<void*>(buf));
  EXPECT_TRUE(SameHost(FromTensor(c), FromTensor(t)));
  buf[0] = 99;  // the clone does not follow the buffer
  EXPECT_EQ(FromTensor(c).v[0].i, 0);
}

TEST(Tensor, DeleterRunsOnceAfterLastView) {
  DeleterLog log;
  auto* buf = static_cast<float*>(std::malloc(8 * sizeof(float)));
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<float>(i);
  int64_t shape[] = {2, 4};
  bc_tensor* t = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 2, buf, 8 * sizeof(float), CountingDeleter, &log, &t), BC_OK);
  bc_tensor* v = nullptr;
  ASSERT_EQ(bc_tensor_view(t, &v), BC_OK);
  EXPECT_EQ(bc_tensor_data(v), static_cast<void*>(buf));
  EXPECT_EQ(ShapeOf(v), (Shape{2, 4}));
  int64_t big[] = {3, 2, 4};
  bc_tensor* e = nullptr;
  ASSERT_EQ(bc_expand(t, big, 3, &e), BC_OK);
  bc_tensor* c = nullptr;
  ASSERT_EQ(bc_tensor_clone(t, &c), BC_OK);
  Tensor other = ToTensor(Iota(BC_FLOAT32, {4}));
  const bc_tensor* pair[] = {t, other.get()};
  bc_tensor* bt[2] = {nullptr, nullptr};
  ASSERT_EQ(bc_broadcast_tensors(pair, 2, bt, 2), BC_OK);
  bc_tensor* sum = nullptr;
  ASSERT_EQ(bc_binary(BC_ADD, t, other.get(), &sum), BC_OK);

  bc_tensor_free(t);
  bc_tensor_free(sum);
  bc_tensor_free(c);  // a clone owns its own copy
  EXPECT_EQ(log.calls, 0);
  bc_tensor_free(v);
  bc_tensor_free(bt[1]);
  EXPECT_EQ(log.calls, 0);
  // Views keep reading the live buffer.
  EXPECT_EQ(FromTensor(e).v[20].f, 4.0);
  bc_tensor_free(e);
  EXPECT_EQ(log.calls, 0);
  bc_tensor_free(bt[0]);
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.data, static_cast<void*>(buf));
  bc_tensor_free(nullptr);  // no-op
  EXPECT_EQ(log.calls, 1);
  std::free(buf);
}

TEST(Tensor, DeleterNotCalledWhenWrapFails) {
  DeleterLog log;
  float buf[4] = {};
  int64_t shape[] = {8};
  bc_tensor* t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 1, buf, sizeof buf, CountingDeleter, &log, &t),
                    BC_ERR_OUT_OF_BOUNDS));
  EXPECT_EQ(t, nullptr);
  EXPECT_EQ(log.calls, 0);
}

TEST(Tensor, CopyToFromExpandedView) {
  Tensor t = ToTensor(MakeHost(BC_INT8, {3, 1}, {-1, 0, 7}));
  int64_t shape[] = {2, 3, 2};
  bc_tensor* e = nullptr;
  ASSERT_EQ(bc_expand(t.get(), shape, 3, &e), BC_OK);
  Tensor he(e);
  int8_t out[12];
  ASSERT_EQ(bc_tensor_copy_to(e, out, sizeof out), BC_OK);
  const int8_t want[] = {-1, -1, 0, 0, 7, 7, -1, -1, 0, 0, 7, 7};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(out[i], want[i]);
  // Too small a destination is refused and left alone.
  int8_t small[11];
  std::memset(small, 0x5A, sizeof small);
  EXPECT_TRUE(Fails(bc_tensor_copy_to(e, small, sizeof small), BC_ERR_OUT_OF_BOUNDS));
  for (int8_t c : small) EXPECT_EQ(c, 0x5A);
  EXPECT_TRUE(Fails(bc_tensor_copy_to(e, nullptr, 12), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_tensor_copy_to(nullptr, out, 12), BC_ERR_INVALID_ARGUMENT));
}

TEST(Tensor, CopyToRandomStridedViews) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 40; ++iter) {
    bc_dtype d = kAllDtypes[iter % 10];
    Shape s;
    int nd = std::uniform_int_distribution<int>(0, 5)(rng);
    for (int i = 0; i < nd; ++i) s.push_back(std::uniform_int_distribution<int>(1, 4)(rng));
    Host h = RandomHost(d, s, rng);
    Tensor t = ToStridedTensor(h, rng);
    EXPECT_TRUE(SameHost(FromTensor(t.get()), h)) << ShapeStr(s) << " " << ShortName(d);
  }
}

// The VmFlags line of the mapping in /proc/self/smaps that holds `addr`
// ("" if none was found).
std::string VmFlagsAt(const void* addr) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<uintptr_t>(addr);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (line.find(':') > line.find(' ') && (head >> std::hex >> lo >> dash >> hi) && dash == '-') {
      inside = lo <= a && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// Storage of 2 MiB or more starts on a 2 MiB boundary; its whole 2 MiB
// blocks, and nothing past them, are advised for transparent huge pages
// unless BCAST_HUGE_PAGES=0 (ctest runs this test once more with it).
TEST(Tensor, LargeStorageIsAdvisedForHugePages) {
  constexpr size_t kHuge = size_t{2} << 20;
  const int64_t n = (3 << 20) / 4 + 100;  // 3 MiB and 400 bytes of float32
  bc_tensor* t = nullptr;
  ASSERT_EQ(bc_tensor_empty(BC_FLOAT32, &n, 1, &t), BC_OK) << bc_last_error();
  Tensor h(t);
  char* data = static_cast<char*>(bc_tensor_data(t));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % kHuge, 0u);
  std::memset(data, 1, static_cast<size_t>(n) * 4);  // the whole buffer is usable

  const int64_t small_n = 1000;
  bc_tensor* s = nullptr;
  ASSERT_EQ(bc_tensor_empty(BC_FLOAT32, &small_n, 1, &s), BC_OK) << bc_last_error();
  Tensor small(s);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bc_tensor_data(s)) % 64, 0u);

  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  const char* env = std::getenv("BCAST_HUGE_PAGES");
  const bool wanted = env == nullptr || std::string(env) != "0";
  const std::string head = VmFlagsAt(data), tail = VmFlagsAt(data + kHuge + 4096);
  ASSERT_FALSE(head.empty()) << "no mapping found for the data in /proc/self/smaps";
  EXPECT_EQ(head.find(" hg") != std::string::npos, wanted) << head;
  EXPECT_EQ(tail.find(" hg"), std::string::npos) << "the partial block past 2 MiB was advised: " << tail;
}

TEST(Tensor, GettersOnNull) {
  EXPECT_EQ(bc_tensor_ndim(nullptr), 0u);
  EXPECT_EQ(bc_tensor_shape(nullptr), nullptr);
  EXPECT_EQ(bc_tensor_strides(nullptr), nullptr);
  EXPECT_EQ(bc_tensor_dtype(nullptr), BC_FLOAT32);
  EXPECT_EQ(bc_tensor_numel(nullptr), 0);
  EXPECT_EQ(bc_tensor_data(nullptr), nullptr);
  bc_tensor* v = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_view(nullptr, &v), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(v, nullptr);
  v = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_clone(nullptr, &v), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(v, nullptr);
  Tensor t = ToTensor(Iota(BC_FLOAT32, {2}));
  EXPECT_TRUE(Fails(bc_tensor_view(t.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_tensor_clone(t.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
}

// ---------------------------------------------------------------------------
// Bad input: proper status, a message, *out NULL, nothing changed.

TEST(TensorBadInput, Creation) {
  int64_t shape[] = {2, 3};
  bc_tensor* t = kPoison;
  float data[6] = {};
  EXPECT_TRUE(Fails(bc_tensor_empty(BC_FLOAT32, shape, 2, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_tensor_empty(BC_FLOAT32, nullptr, 2, &t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  int64_t neg[] = {2, -1};
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_empty(BC_FLOAT32, neg, 2, &t), BC_ERR_INVALID_ARGUMENT,
                    "Trying to create tensor with negative dimension -1: [2, -1]"));
  EXPECT_EQ(t, nullptr);
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_zeros(BC_FLOAT32, neg, 2, &t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_from_data(BC_FLOAT32, neg, 2, data, &t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  // Unknown dtype.
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_empty(static_cast<bc_dtype>(10), shape, 2, &t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_zeros(static_cast<bc_dtype>(-1), shape, 2, &t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_from_data(static_cast<bc_dtype>(77), shape, 2, data, &t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  // NULL data with elements.
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_from_data(BC_FLOAT32, shape, 2, nullptr, &t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  // Too many dimensions.
  std::vector<int64_t> many(BC_MAX_DIMS + 1, 1);
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_empty(BC_FLOAT32, many.data(), many.size(), &t), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  ASSERT_EQ(bc_tensor_zeros(BC_FLOAT32, many.data(), BC_MAX_DIMS, &t), BC_OK);
  Tensor ok(t);
  EXPECT_EQ(bc_tensor_ndim(t), static_cast<size_t>(BC_MAX_DIMS));
}

TEST(TensorBadInput, OverflowingSizes) {
  bc_tensor* t = kPoison;
  int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};  // numel overflows int64
  EXPECT_TRUE(Fails(bc_tensor_empty(BC_FLOAT32, huge, 2, &t), BC_ERR_OVERFLOW));
  EXPECT_EQ(t, nullptr);
  int64_t max2[] = {std::numeric_limits<int64_t>::max(), 2};
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_zeros(BC_INT8, max2, 2, &t), BC_ERR_OVERFLOW));
  EXPECT_EQ(t, nullptr);
  int64_t bytes[] = {int64_t{1} << 62};  // numel fits, bytes do not
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_empty(BC_FLOAT64, bytes, 1, &t), BC_ERR_OVERFLOW));
  EXPECT_EQ(t, nullptr);
  // A zero anywhere makes the product 0, even next to a huge size.
  int64_t zero[] = {std::numeric_limits<int64_t>::max(), 0};
  ASSERT_EQ(bc_tensor_empty(BC_FLOAT32, zero, 2, &t), BC_OK) << bc_last_error();
  Tensor ok(t);
  EXPECT_EQ(bc_tensor_numel(t), 0);
}

TEST(TensorBadInput, Wrap) {
  alignas(8) unsigned char raw[64] = {};
  int64_t shape[] = {2, 3};
  bc_tensor* t = kPoison;
  DeleterLog log;
  // Strides leaving the buffer.
  int64_t strides[] = {4, 1};  // last element at 4 + 2 = 6 -> needs 7 floats
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_FLOAT32, shape, strides, 2, raw, 6 * 4, CountingDeleter, &log, &t),
                    BC_ERR_OUT_OF_BOUNDS));
  EXPECT_EQ(t, nullptr);
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, strides, 2, raw, 7 * 4, nullptr, nullptr, &t), BC_OK);
  bc_tensor_free(t);
  // Contiguous but too short.
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_FLOAT64, shape, nullptr, 2, raw, 47, CountingDeleter, &log, &t),
                    BC_ERR_OUT_OF_BOUNDS));
  EXPECT_EQ(t, nullptr);
  // A huge stride whose offset overflows.
  int64_t hugestr[] = {std::numeric_limits<int64_t>::max() / 2, 1};
  t = kPoison;
  bc_status st = bc_tensor_wrap(BC_FLOAT32, shape, hugestr, 2, raw, sizeof raw, CountingDeleter, &log, &t);
  EXPECT_TRUE(st == BC_ERR_OUT_OF_BOUNDS || st == BC_ERR_OVERFLOW) << bc_status_string(st);
  EXPECT_EQ(t, nullptr);
  // Negative strides are refused.
  int64_t negstr[] = {3, -1};
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_FLOAT32, shape, negstr, 2, raw, sizeof raw, CountingDeleter, &log, &t),
                    BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  // Misaligned data.
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 2, raw + 1, 32, CountingDeleter, &log, &t),
                    BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_INT64, shape, nullptr, 2, raw + 4, 56, CountingDeleter, &log, &t),
                    BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  // Bytes need no alignment.
  ASSERT_EQ(bc_tensor_wrap(BC_UINT8, shape, nullptr, 2, raw + 1, 6, nullptr, nullptr, &t), BC_OK);
  bc_tensor_free(t);
  // NULL data with elements, NULL shape, NULL out, unknown dtype, too many dims.
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 2, nullptr, 64, CountingDeleter, &log, &t),
                    BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_FLOAT32, nullptr, nullptr, 2, raw, 64, CountingDeleter, &log, &t),
                    BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 2, raw, 64, CountingDeleter, &log, nullptr),
                    BC_ERR_INVALID_ARGUMENT));
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(static_cast<bc_dtype>(12), shape, nullptr, 2, raw, 64, CountingDeleter, &log, &t),
                    BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  std::vector<int64_t> many(BC_MAX_DIMS + 1, 1);
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_UINT8, many.data(), nullptr, many.size(), raw, 64, CountingDeleter, &log, &t),
                    BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  int64_t negshape[] = {-2, 3};
  t = kPoison;
  EXPECT_TRUE(Fails(bc_tensor_wrap(BC_UINT8, negshape, nullptr, 2, raw, 64, CountingDeleter, &log, &t),
                    BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(t, nullptr);
  // The buffer is untouched and the deleter never ran.
  for (unsigned char c : raw) EXPECT_EQ(c, 0);
  EXPECT_EQ(log.calls, 0);
}

TEST(TensorBadInput, OpsRefuseNullHandles) {
  Tensor a = ToTensor(Iota(BC_FLOAT32, {3}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, nullptr, a.get(), &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  bc_error_detail d = LastDetail();
  EXPECT_EQ(d.dim, -1);
  EXPECT_EQ(d.size_a, -1);
  EXPECT_EQ(d.size_b, -1);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, a.get(), nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, a.get(), a.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, a.get(), a.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, nullptr, a.get()), BC_ERR_INVALID_ARGUMENT));
  out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(static_cast<bc_op>(BC_OP_COUNT), a.get(), a.get(), &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(static_cast<bc_op>(-1), a.get(), a.get(), &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  std::vector<unsigned char> before = RawBytes(a.get());
  EXPECT_TRUE(Fails(bc_binary_(static_cast<bc_op>(99), a.get(), a.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(RawBytes(a.get()), before);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_where(nullptr, a.get(), a.get(), &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_clamp(a.get(), nullptr, nullptr, &out), BC_ERR_INVALID_ARGUMENT,
                    "torch.clamp: At least one of 'min' or 'max' must not be None"));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_sum_to_shape(nullptr, nullptr, 0, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Fails(bc_copy_(nullptr, a.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_copy_(a.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(RawBytes(a.get()), before);
}

}  // namespace
}  // namespace bct
