// What every C entry point shares: the exception guard that turns a thrown
// bcast::Error into a status and a message in the context's error slot, and
// the checks of raw C arguments.
#ifndef BCAST_CAPI_GUARD_H_
#define BCAST_CAPI_GUARD_H_

#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "bcast/bcast.h"
#include "core/context.h"
#include "core/error.h"

namespace bcast {

// Runs `f` (returning void, or a bc_status) and maps every exception to a
// status recorded on `ctx` (NULL: the calling thread's slot).
template <class F>
bc_status Guarded(const bc_ctx* ctx, F&& f) noexcept {
  try {
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      return BC_OK;
    } else {
      return f();
    }
  } catch (const Error& e) {
    return ErrorSlotOf(ctx).Record(e);
  } catch (const std::bad_alloc&) {
    return ErrorSlotOf(ctx).Record({BC_ERR_OUT_OF_MEMORY, "out of memory"});
  } catch (const std::exception& e) {
    return ErrorSlotOf(ctx).Record({BC_ERR_INTERNAL, std::string("internal error: ") + e.what()});
  } catch (...) {
    return ErrorSlotOf(ctx).Record({BC_ERR_INTERNAL, "internal error"});
  }
}

inline void NotNull(const void* p, const char* what) {
  if (p == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL");
}

}  // namespace bcast

// The plain and context forms of an entry point, from its `Do_<name>(ctx,
// ...)`: bc_<name>(...) runs on the default context, bc_ctx_<name>(ctx, ...)
// on the caller's.
#define BC_UNPAREN(...) __VA_ARGS__
#define BC_FORMS(name, params, args)                                                \
  BC_API bc_status bc_##name params { return Do_##name(nullptr, BC_UNPAREN args); } \
  BC_API bc_status bc_ctx_##name(bc_ctx* ctx, BC_UNPAREN params) {                 \
    return Do_##name(ctx, BC_UNPAREN args);                                         \
  }

#endif  // BCAST_CAPI_GUARD_H_
