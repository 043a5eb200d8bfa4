package bcast

import "strconv"

// The package-level settings are those of Default(): they apply to the
// package-level functions (Add, Where, ...) of every goroutine, and to
// nothing else. They are safe to change from any goroutine at any time. A
// Context made with NewContext has its own.

// SetBroadcastWarning is Default().SetBroadcastWarning: an op whose
// operands differ in shape, are broadcastable and have the same number of
// elements still broadcasts, and warns "self and other do not have the same
// shape, but are broadcastable, and have the same number of elements.
// Changing behavior in a backwards incompatible manner to broadcasting
// rather than viewing as 1-dimensional."
func SetBroadcastWarning(on bool) { defaultContext.SetBroadcastWarning(on) }

// BroadcastWarning reports the SetBroadcastWarning setting.
func BroadcastWarning() bool { return defaultContext.BroadcastWarning() }

// SetLegacyPointwise is Default().SetLegacyPointwise: operands that are not
// broadcastable but have the same number of elements are computed as 1-D
// sequences in row-major order, the result takes the first operand's shape,
// and the op warns "other is not broadcastable to self, but they have the
// same number of elements. Falling back to deprecated pointwise behavior."
func SetLegacyPointwise(on bool) { defaultContext.SetLegacyPointwise(on) }

// LegacyPointwise reports the SetLegacyPointwise setting.
func LegacyPointwise() bool { return defaultContext.LegacyPointwise() }

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

// SetBroadcastPolicy is Default().SetBroadcastPolicy; an unknown value
// fails with ErrInvalidArgument.
func SetBroadcastPolicy(p Policy) error { return defaultContext.SetBroadcastPolicy(p) }

// BroadcastPolicy returns the policy of Default().
func BroadcastPolicy() Policy { return defaultContext.BroadcastPolicy() }

// SetWarningsAsErrors is Default().SetWarningsAsErrors: every warning fails
// its op with ErrPolicy and the warning text as the message, before
// anything is written; the handler is not called.
func SetWarningsAsErrors(on bool) { defaultContext.SetWarningsAsErrors(on) }

// WarningsAsErrors reports the SetWarningsAsErrors setting.
func WarningsAsErrors() bool { return defaultContext.WarningsAsErrors() }

// SetWarningHandler is Default().SetWarningHandler: every warning of a
// package-level call goes to fn, on the goroutine whose call raised it
// (possibly several at once); fn may call bcast. A panic in fn is recovered
// and reported on stderr, and never reaches C. nil restores the default,
// which writes "bcast warning: <message>" to stderr.
func SetWarningHandler(fn func(message string)) { defaultContext.SetWarningHandler(fn) }

func cbool(b bool) int {
	if b {
		return 1
	}
	return 0
}
