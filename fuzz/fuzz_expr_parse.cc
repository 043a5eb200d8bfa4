// Fuzzes bc_expr_parse with arbitrary text over the names x, y and z, and
// evaluates what parses on three small inputs of different dtypes and
// shapes. Any status is fine; a crash, a leak, undefined behaviour, a
// failure without a message or a result left set on failure is not.
#include "fuzz_common.h"

namespace {

bc_tensor* MakeInput(bc_dtype dtype, std::vector<int64_t> shape, const void* data) {
  bc_tensor* t = nullptr;
  FUZZ_CHECK(bc_tensor_from_data(dtype, shape.data(), shape.size(), data, &t) == BC_OK, "input");
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // bc_expr_parse reads a NUL-terminated string; bytes after an inner NUL
  // are not seen, as for any C caller.
  const std::string text(reinterpret_cast<const char*>(data), size);
  const char* names[] = {"x", "y", "z"};
  bc_expr* e = reinterpret_cast<bc_expr*>(0x10);
  const bc_status s = bc_expr_parse(text.c_str(), names, 3, &e);
  bcfuzz::CheckFailure(s, "bc_expr_parse");
  if (s != BC_OK) {
    FUZZ_CHECK(e == nullptr, "e not NULL on failure");
    FUZZ_CHECK(s == BC_ERR_INVALID_ARGUMENT || s == BC_ERR_OUT_OF_MEMORY, "status %s", bc_status_string(s));
    if (s == BC_ERR_INVALID_ARGUMENT)
      FUZZ_CHECK(std::strncmp(bc_last_error(), "at column ", 10) == 0, "message without a column");
    return 0;
  }
  const size_t nodes = bc_expr_num_nodes(e);
  FUZZ_CHECK(nodes >= 1 && nodes <= BC_EXPR_MAX_NODES, "%zu nodes", nodes);

  const float xs[] = {-1.5f, 0.0f, 2.0f};
  const int64_t ys[] = {-3, 0, 1, 7};
  const uint8_t zs[] = {1};
  bc_tensor* inputs[] = {MakeInput(BC_FLOAT32, {3, 1}, xs), MakeInput(BC_INT64, {4}, ys),
                         MakeInput(BC_BOOL, {}, zs)};
  bc_tensor* out = reinterpret_cast<bc_tensor*>(0x10);
  const bc_status es = bc_expr_eval(e, inputs, 3, &out);
  if (es == BC_OK) {
    // Read the result back, so that a wrong shape or size shows under ASan.
    const int64_t n = bc_tensor_numel(out);
    FUZZ_CHECK(n >= 0 && n <= 12, "result of %lld elements", static_cast<long long>(n));
    std::vector<unsigned char> bytes(static_cast<size_t>(n) * 8 + 1);
    FUZZ_CHECK(bc_tensor_copy_to(out, bytes.data(), bytes.size()) == BC_OK, "copy_to");
    bc_tensor_free(out);
  } else {
    bcfuzz::CheckFailure(es, "bc_expr_eval");
    FUZZ_CHECK(out == nullptr, "out not NULL on failure");
    FUZZ_CHECK(bc_last_error()[0] != '\0', "eval failed without a message");
  }
  for (bc_tensor* t : inputs) bc_tensor_free(t);
  bc_expr_free(e);
  return 0;
}
