// Errors inside the engine are thrown as bcast::Error and turned into a
// bc_status plus a message in an ErrorSlot at the C boundary (src/capi): the
// context's, or the calling thread's for the default context.
#ifndef BCAST_CORE_ERROR_H_
#define BCAST_CORE_ERROR_H_

#include <cstdint>
#include <cstring>
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

// The last error of a context or thread. The message is a fixed array so
// that recording an out-of-memory error never allocates.
struct ErrorSlot {
  char message[4096] = "";
  bc_error_detail detail = {BC_OK, -1, -1, -1};

  // Records `e` and returns its code.
  bc_status Record(const Error& e);
};

// This thread's slot, the default context's last error.
ErrorSlot& ThreadErrorSlot();

// The integer a caller passed for an enum. C callers may pass any int; in
// C++ reading an enum object outside its range is undefined, so parameters
// are looked at through their bytes until validated.
template <typename E>
int RawEnum(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "bcast's enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

}  // namespace bcast

#endif  // BCAST_CORE_ERROR_H_
