// Errors inside the engine are thrown as bcast::Error and turned into a
// bc_status plus a thread-local message at the C boundary (src/capi).
#ifndef BCAST_CORE_ERROR_H_
#define BCAST_CORE_ERROR_H_

#include <cstdint>
#include <string>

#include "bcast/bcast.h"

namespace bcast {

struct Error {
  bc_status code;
  std::string message;
  int32_t dim = -1;
  int64_t size_a = -1;
  int64_t size_b = -1;
};

[[noreturn]] void Fail(bc_status code, std::string message);
[[noreturn]] void FailDim(bc_status code, std::string message, int32_t dim, int64_t a, int64_t b);

// Records `e` as this thread's last error and returns its code.
bc_status SetLastError(const Error& e);
// This thread's last error: never NULL, valid until its next error.
const char* LastErrorMessage();
bc_error_detail LastErrorDetail();

}  // namespace bcast

#endif  // BCAST_CORE_ERROR_H_
