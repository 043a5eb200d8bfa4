// The C entry points of the settings and of the last error; the state
// itself lives in core/settings.cc and core/error.cc.
#include <cstring>
#include <string>

#include "bcast/bcast.h"
#include "core/error.h"
#include "core/settings.h"

extern "C" {

BC_API void bc_set_broadcast_warning(int enabled) { bcast::SetBroadcastWarning(enabled != 0); }
BC_API int bc_get_broadcast_warning(void) { return bcast::BroadcastWarningOn() ? 1 : 0; }
BC_API void bc_set_legacy_pointwise(int enabled) { bcast::SetLegacyPointwise(enabled != 0); }
BC_API int bc_get_legacy_pointwise(void) { return bcast::LegacyPointwiseOn() ? 1 : 0; }
BC_API void bc_set_warnings_as_errors(int enabled) { bcast::SetWarningsAsErrors(enabled != 0); }
BC_API int bc_get_warnings_as_errors(void) { return bcast::WarningsAsErrors() ? 1 : 0; }

BC_API bc_status bc_set_broadcast_policy(bc_policy policy) {
  // Read as an int: an out-of-range enum object is undefined behaviour in C++.
  int raw;
  std::memcpy(&raw, &policy, sizeof raw);
  if (raw != BC_POLICY_ALLOW && raw != BC_POLICY_WARN && raw != BC_POLICY_ERROR) {
    return bcast::SetLastError({BC_ERR_INVALID_ARGUMENT,
                                "unknown broadcast policy " + std::to_string(raw)});
  }
  bcast::SetPolicy(static_cast<bc_policy>(raw));
  return BC_OK;
}
BC_API bc_policy bc_get_broadcast_policy(void) { return bcast::Policy(); }

BC_API void bc_set_warning_handler(bc_warning_fn fn, void* user) {
  bcast::SetWarningHandler(fn, user);
}

BC_API int bc_get_num_threads(void) { return bcast::NumThreads(); }
BC_API bc_status bc_set_num_threads(int n) {
  bcast::SetNumThreads(n);
  return BC_OK;
}

BC_API const char* bc_last_error(void) { return bcast::LastErrorMessage(); }

BC_API bc_status bc_last_error_detail(bc_error_detail* out) {
  if (out == nullptr) return BC_ERR_INVALID_ARGUMENT;
  *out = bcast::LastErrorDetail();
  return out->code;
}

}  // extern "C"
