package bcast

/*
#include "gobc.h"

// The trampoline hands the handler's cgo.Handle back to Go as an integer.
void goBcastWarning(char* message, uintptr_t handle);
static void gobc_warning_trampoline(const char* message, void* user) {
	goBcastWarning((char*)message, (uintptr_t)user);
}
static void gobc_set_warning_handler(uintptr_t handle) {
	if (handle == 0) bc_set_warning_handler(NULL, NULL);
	else bc_set_warning_handler(gobc_warning_trampoline, (void*)handle);
}
*/
import "C"

import (
	"runtime/cgo"
	"strconv"
	"sync"
)

// Settings are process-wide, off by default, and safe to change from any
// goroutine at any time; they affect every goroutine's calls, and C
// callers' too.

// SetBroadcastWarning turns on the backwards-compatibility warning: an op
// whose operands differ in shape, are broadcastable and have the same number
// of elements still broadcasts, and warns "self and other do not have the
// same shape, but are broadcastable, and have the same number of elements.
// Changing behavior in a backwards incompatible manner to broadcasting
// rather than viewing as 1-dimensional."
func SetBroadcastWarning(on bool) { C.bc_set_broadcast_warning(cbool(on)) }

// BroadcastWarning reports the SetBroadcastWarning setting.
func BroadcastWarning() bool { return C.bc_get_broadcast_warning() != 0 }

// SetLegacyPointwise turns on the deprecated pointwise behaviour: operands
// that are not broadcastable but have the same number of elements are
// computed as 1-D sequences in row-major order, the result takes the first
// operand's shape, and the op warns "other is not broadcastable to self, but
// they have the same number of elements. Falling back to deprecated
// pointwise behavior."
func SetLegacyPointwise(on bool) { C.bc_set_legacy_pointwise(cbool(on)) }

// LegacyPointwise reports the SetLegacyPointwise setting.
func LegacyPointwise() bool { return C.bc_get_legacy_pointwise() != 0 }

// Policy is the implicit-broadcast policy.
type Policy int32

// Broadcast policies, with the values of the C enum bc_policy.
const (
	PolicyAllow Policy = 0 // broadcast silently (PyTorch, NumPy)
	PolicyWarn  Policy = 1 // broadcast, and warn each time operand shapes differ
	PolicyError Policy = 2 // fail with ErrPolicy unless all operand shapes are equal; 0-dim operands are exempt
)

// String returns "allow", "warn" or "error".
func (p Policy) String() string {
	switch p {
	case PolicyAllow:
		return "allow"
	case PolicyWarn:
		return "warn"
	case PolicyError:
		return "error"
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// SetBroadcastPolicy sets the implicit-broadcast policy; an unknown value
// fails with ErrInvalidArgument.
func SetBroadcastPolicy(p Policy) error {
	r := C.gobc_set_broadcast_policy(C.int(p))
	return resultErr(&r)
}

// BroadcastPolicy returns the current policy.
func BroadcastPolicy() Policy { return Policy(C.bc_get_broadcast_policy()) }

// SetWarningsAsErrors makes every warning fail its op with ErrPolicy and the
// warning text as the message, before anything is written; the handler is
// not called.
func SetWarningsAsErrors(on bool) { C.bc_set_warnings_as_errors(cbool(on)) }

// WarningsAsErrors reports the SetWarningsAsErrors setting.
func WarningsAsErrors() bool { return C.bc_get_warnings_as_errors() != 0 }

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// The installed handler is known to C only by its cgo.Handle. A call in
// flight on another thread may still reach the previous handler just after
// it was replaced, so the previous handle stays valid until the next change,
// and the callback checks every handle against the two live ones instead of
// trusting it.
var (
	setHandlerMu sync.Mutex // serialises SetWarningHandler
	handlers     struct {
		sync.RWMutex
		cur, prev cgo.Handle // 0: none
	}
)

// SetWarningHandler sends every warning to fn, on the goroutine whose call
// raised it (possibly several at once); fn may call bcast. A panic in fn is
// recovered and reported on stderr, and never reaches C. nil restores the
// default, which writes "bcast warning: <message>" to stderr. A warning
// raised by a call that runs while the handler changes may go to the old
// handler.
func SetWarningHandler(fn func(message string)) {
	setHandlerMu.Lock()
	defer setHandlerMu.Unlock()
	var h cgo.Handle
	if fn != nil {
		h = cgo.NewHandle(fn)
	}
	handlers.Lock()
	stale := handlers.prev
	handlers.prev, handlers.cur = handlers.cur, h
	handlers.Unlock()
	// Outside the lock: the library may call the handler while it swaps.
	C.gobc_set_warning_handler(C.uintptr_t(h))
	if stale != 0 {
		stale.Delete()
	}
}

// handlerFor returns the Go function behind a handle C passed back, or nil
// if that handle is no longer live.
func handlerFor(h cgo.Handle) func(string) {
	handlers.RLock()
	defer handlers.RUnlock()
	if h == 0 || (h != handlers.cur && h != handlers.prev) {
		return nil
	}
	return h.Value().(func(string))
}
