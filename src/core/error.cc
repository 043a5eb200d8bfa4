#include "core/error.h"

#include <cstring>
#include <utility>

namespace bcast {

void Fail(bc_status code, std::string message) { throw Error{code, std::move(message)}; }

void FailDim(bc_status code, std::string message, int32_t dim, int64_t a, int64_t b) {
  throw Error{code, std::move(message), dim, a, b};
}

bc_status ErrorSlot::Record(const Error& e) {
  const size_t n = e.message.size() < sizeof(message) - 1 ? e.message.size() : sizeof(message) - 1;
  std::memcpy(message, e.message.data(), n);
  message[n] = '\0';
  detail = {e.code, e.dim, e.size_a, e.size_b};
  return e.code;
}

ErrorSlot& ThreadErrorSlot() {
  thread_local ErrorSlot slot;
  return slot;
}

}  // namespace bcast
