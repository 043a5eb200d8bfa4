#include "core/error.h"

#include <cstring>
#include <utility>

namespace bcast {

namespace {
// The message buffer is a fixed array so that recording an out-of-memory
// error never allocates.
struct LastError {
  char message[4096] = "";
  bc_error_detail detail = {BC_OK, -1, -1, -1};
};
thread_local LastError tls_error;
}  // namespace

void Fail(bc_status code, std::string message) { throw Error{code, std::move(message)}; }

void FailDim(bc_status code, std::string message, int32_t dim, int64_t a, int64_t b) {
  throw Error{code, std::move(message), dim, a, b};
}

bc_status SetLastError(const Error& e) {
  size_t n = e.message.size() < sizeof(tls_error.message) - 1 ? e.message.size()
                                                               : sizeof(tls_error.message) - 1;
  std::memcpy(tls_error.message, e.message.data(), n);
  tls_error.message[n] = '\0';
  tls_error.detail = {e.code, e.dim, e.size_a, e.size_b};
  return e.code;
}

const char* LastErrorMessage() { return tls_error.message; }
bc_error_detail LastErrorDetail() { return tls_error.detail; }

}  // namespace bcast
