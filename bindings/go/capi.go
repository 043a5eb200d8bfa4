package bcast

/*
#include "gobc.h"
*/
import "C"

import "unsafe"

// shapeArg returns a C view of a Go shape for the duration of one cgo call.
// C does not keep it.
func shapeArg(shape []int64) (*C.int64_t, C.size_t) {
	if len(shape) == 0 {
		return nil, 0
	}
	return (*C.int64_t)(unsafe.Pointer(&shape[0])), C.size_t(len(shape))
}
