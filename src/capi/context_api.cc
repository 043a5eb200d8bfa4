// The C entry points of contexts: creation, settings, the warning handler,
// the host scheduler and the last error. The process-wide setters are the
// default context's (a NULL bc_ctx*). State lives in core/context.cc.
#include <string>

#include "bcast/bcast.h"
#include "capi/guard.h"
#include "core/context.h"

using bcast::Fail;

namespace {

bc_ctx& Mutable(bc_ctx* ctx) { return ctx != nullptr ? *ctx : bcast::DefaultContext(); }

bool IsToggle(int64_t v) { return v == 0 || v == 1; }

void SetOption(bc_ctx& c, int option, int64_t value) {
  const auto bad_value = [&](const char* what) {
    Fail(BC_ERR_INVALID_ARGUMENT, std::string(what) + " " + std::to_string(value));
  };
  switch (option) {
    case BC_OPT_BROADCAST_WARNING:
      if (!IsToggle(value)) bad_value("BC_OPT_BROADCAST_WARNING takes 0 or 1, not");
      c.broadcast_warning = value != 0;
      return;
    case BC_OPT_LEGACY_POINTWISE:
      if (!IsToggle(value)) bad_value("BC_OPT_LEGACY_POINTWISE takes 0 or 1, not");
      c.legacy_pointwise = value != 0;
      return;
    case BC_OPT_WARNINGS_AS_ERRORS:
      if (!IsToggle(value)) bad_value("BC_OPT_WARNINGS_AS_ERRORS takes 0 or 1, not");
      c.warnings_as_errors = value != 0;
      return;
    case BC_OPT_POLICY:
      if (value != BC_POLICY_ALLOW && value != BC_POLICY_WARN && value != BC_POLICY_ERROR)
        bad_value("unknown broadcast policy");
      c.policy = static_cast<int>(value);
      return;
    case BC_OPT_NUM_THREADS:
      bcast::SetNumThreads(c, value);
      return;
  }
  Fail(BC_ERR_INVALID_ARGUMENT, "unknown option " + std::to_string(option));
}

int64_t GetOption(const bc_ctx& c, int option) {
  switch (option) {
    case BC_OPT_BROADCAST_WARNING: return c.broadcast_warning.load() ? 1 : 0;
    case BC_OPT_LEGACY_POINTWISE: return c.legacy_pointwise.load() ? 1 : 0;
    case BC_OPT_WARNINGS_AS_ERRORS: return c.warnings_as_errors.load() ? 1 : 0;
    case BC_OPT_POLICY: return c.policy.load();
    case BC_OPT_NUM_THREADS: return bcast::NumThreads(c);
  }
  Fail(BC_ERR_INVALID_ARGUMENT, "unknown option " + std::to_string(option));
}

// The legacy getters and setters cannot fail; they act on the default context.
int64_t DefaultOption(int option) { return GetOption(bcast::DefaultContext(), option); }
void SetDefaultToggle(int option, int enabled) {
  SetOption(bcast::DefaultContext(), option, enabled != 0 ? 1 : 0);
}

void SetWarningHandler(bc_ctx* ctx, bc_warning_fn fn, void* user) {
  bc_ctx& c = Mutable(ctx);
  std::lock_guard<std::mutex> lock(c.handler_mu);
  c.handler = fn;
  c.handler_user = fn != nullptr ? user : nullptr;
}

bc_status LastErrorDetail(const bc_ctx* ctx, bc_error_detail* out) {
  if (out == nullptr) return BC_ERR_INVALID_ARGUMENT;
  *out = bcast::ErrorSlotOf(ctx).detail;
  return out->code;
}

}  // namespace

// The process-wide forms share these bodies with the bc_ctx_ forms; no
// public entry point calls another (each records its errors once).
extern "C" {

BC_API bc_status bc_ctx_create(bc_ctx** out) {
  if (out != nullptr) *out = nullptr;
  return bcast::Guarded(nullptr, [&] {
    bcast::NotNull(out, "out");
    *out = new bc_ctx;
  });
}

BC_API void bc_ctx_free(bc_ctx* ctx) { delete ctx; }

BC_API bc_status bc_ctx_set_option(bc_ctx* ctx, bc_option option, int64_t value) {
  return bcast::Guarded(ctx, [&] { SetOption(Mutable(ctx), bcast::RawEnum(option), value); });
}

BC_API bc_status bc_ctx_get_option(const bc_ctx* ctx, bc_option option, int64_t* value) {
  return bcast::Guarded(ctx, [&] {
    bcast::NotNull(value, "value");
    *value = GetOption(bcast::Resolve(ctx), bcast::RawEnum(option));
  });
}

BC_API bc_status bc_ctx_set_warning_handler(bc_ctx* ctx, bc_warning_fn fn, void* user) {
  SetWarningHandler(ctx, fn, user);
  return BC_OK;
}

BC_API bc_status bc_ctx_set_scheduler(bc_ctx* ctx, const bc_scheduler* scheduler) {
  return bcast::Guarded(ctx, [&] {
    bcast::NotNull(ctx, "ctx (the default context always uses OpenMP)");
    if (scheduler != nullptr && (scheduler->num_threads == nullptr || scheduler->run == nullptr))
      Fail(BC_ERR_INVALID_ARGUMENT, "scheduler's num_threads and run must not be NULL");
    ctx->scheduler = scheduler != nullptr ? *scheduler : bc_scheduler{};
  });
}

BC_API const char* bc_ctx_last_error(const bc_ctx* ctx) {
  return bcast::ErrorSlotOf(ctx).message;
}

BC_API bc_status bc_ctx_last_error_detail(const bc_ctx* ctx, bc_error_detail* out) {
  return LastErrorDetail(ctx, out);
}

BC_API const char* bc_last_error(void) { return bcast::ErrorSlotOf(nullptr).message; }
BC_API bc_status bc_last_error_detail(bc_error_detail* out) {
  return LastErrorDetail(nullptr, out);
}

BC_API void bc_set_broadcast_warning(int enabled) {
  SetDefaultToggle(BC_OPT_BROADCAST_WARNING, enabled);
}
BC_API int bc_get_broadcast_warning(void) {
  return static_cast<int>(DefaultOption(BC_OPT_BROADCAST_WARNING));
}
BC_API void bc_set_legacy_pointwise(int enabled) {
  SetDefaultToggle(BC_OPT_LEGACY_POINTWISE, enabled);
}
BC_API int bc_get_legacy_pointwise(void) {
  return static_cast<int>(DefaultOption(BC_OPT_LEGACY_POINTWISE));
}
BC_API void bc_set_warnings_as_errors(int enabled) {
  SetDefaultToggle(BC_OPT_WARNINGS_AS_ERRORS, enabled);
}
BC_API int bc_get_warnings_as_errors(void) {
  return static_cast<int>(DefaultOption(BC_OPT_WARNINGS_AS_ERRORS));
}
BC_API bc_status bc_set_broadcast_policy(bc_policy policy) {
  return bcast::Guarded(nullptr, [&] {
    SetOption(bcast::DefaultContext(), BC_OPT_POLICY, bcast::RawEnum(policy));
  });
}
BC_API bc_policy bc_get_broadcast_policy(void) {
  return static_cast<bc_policy>(DefaultOption(BC_OPT_POLICY));
}
BC_API void bc_set_warning_handler(bc_warning_fn fn, void* user) {
  SetWarningHandler(nullptr, fn, user);
}
BC_API int bc_get_num_threads(void) {
  return static_cast<int>(DefaultOption(BC_OPT_NUM_THREADS));
}
BC_API bc_status bc_set_num_threads(int n) {
  return bcast::Guarded(nullptr, [&] { SetOption(bcast::DefaultContext(), BC_OPT_NUM_THREADS, n); });
}

}  // extern "C"
