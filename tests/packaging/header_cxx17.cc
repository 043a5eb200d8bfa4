// The public headers compile as C++17 (and twice in one translation unit),
// declare C linkage, and the program links with a C99 translation unit that
// includes them too.
#include <bcast/bcast.h>
#include <bcast/bcast.h>
#include <bcast/dlpack.h>
#include <bcast/dlpack.h>

#include <cstddef>
#include <cstdio>
#include <type_traits>

extern "C" int header_c99_check(void);

static_assert(std::is_same<decltype(&bc_binary),
                           bc_status (*)(bc_op, const bc_tensor*, const bc_tensor*,
                                         bc_tensor**)>::value,
              "bc_binary keeps its signature");
static_assert(BC_OK == 0, "BC_OK is 0");
static_assert(sizeof(bc_error_detail) >= sizeof(int64_t) * 2, "detail holds two sizes");
// The DLPack ABI on 64-bit targets, as the specification lays it out.
static_assert(sizeof(void*) != 8 || (sizeof(DLTensor) == 48 && sizeof(DLManagedTensor) == 64 &&
                                     offsetof(DLManagedTensor, deleter) == 56),
              "DLTensor / DLManagedTensor layout");
static_assert(sizeof(void*) != 8 || (sizeof(DLManagedTensorVersioned) == 80 &&
                                     offsetof(DLManagedTensorVersioned, flags) == 24 &&
                                     offsetof(DLManagedTensorVersioned, dl_tensor) == 32),
              "DLManagedTensorVersioned layout");
static_assert(sizeof(DLDataType) == 4 && sizeof(DLDevice) == 8, "DLDataType / DLDevice");

int main() {
  const int64_t a[] = {5, 1, 4, 1}, b[] = {3, 1, 1};
  int64_t out[4];
  size_t n = 0;
  bool ok = bc_broadcast_shapes(a, 4, b, 3, out, sizeof out / sizeof out[0], &n) == BC_OK && n == 4 && out[1] == 3;
  ok = ok && header_c99_check();
  std::printf("%s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
