package bcast

/*
#include <stdlib.h>
#include "gobc.h"
*/
import "C"

import "unsafe"

// Version returns the runtime library version as MAJOR*10000 + MINOR*100 +
// PATCH.
func Version() int { return int(C.bc_version()) }

// VersionString returns the runtime library version, "MAJOR.MINOR.PATCH".
func VersionString() string { return C.GoString(C.bc_version_string()) }

// HeaderVersion returns the version of the bcast.h this package was compiled
// against, in the form of Version; a mismatch means the library found at run
// time is not the one built against.
func HeaderVersion() int { return int(C.BC_VERSION_NUMBER) }

// SIMDTarget returns the name of the SIMD target chosen for this CPU
// ("AVX3", "AVX2", "SSE4", "EMU128", ...).
func SIMDTarget() string { return C.GoString(C.bc_simd_target()) }

// SetSIMDCap restricts SIMD dispatch to targets no better than the one named
// (as SIMDTarget spells it); "" removes the cap. Process-wide, for every
// Context and every C caller; for tests and benchmarks, not to be called
// while ops run.
func SetSIMDCap(target string) error {
	var name *C.char
	if target != "" {
		name = C.CString(target)
		defer C.free(unsafe.Pointer(name))
	}
	return threadCall(func() C.bc_status { return C.bc_set_simd_cap(name) })
}

// NumThreads is Default().NumThreads: the number of threads a
// package-level op may use.
func NumThreads() int { return defaultContext.NumThreads() }

// SetNumThreads is Default().SetNumThreads: the number of threads a
// package-level op may use; n <= 0 restores the default.
func SetNumThreads(n int) error { return defaultContext.SetNumThreads(n) }
