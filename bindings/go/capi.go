package bcast

// The C wrappers live in gobc.h: each makes one bc_ call and reads its error
// inside the same cgo call.

/*
#include "gobc.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// resultErr turns a wrapper's outcome into a Go error, freeing the C copy of
// the message.
func resultErr(r *C.gobc_result) error {
	if r.status == C.BC_OK {
		return nil
	}
	e := &Error{
		Code: Code(r.status),
		Detail: Detail{
			Dim:   int(r.detail.dim),
			SizeA: int64(r.detail.size_a),
			SizeB: int64(r.detail.size_b),
		},
	}
	if r.message != nil {
		e.Message = C.GoString(r.message)
		C.free(unsafe.Pointer(r.message))
		r.message = nil
	}
	return e
}

// resultTensor wraps the new handle of a successful wrapper call.
func resultTensor(r *C.gobc_result) (*Tensor, error) {
	if err := resultErr(r); err != nil {
		return nil, err
	}
	if r.t == nil {
		return nil, goError(ErrInternal, "call succeeded without returning a tensor")
	}
	n := int(r.ndim)
	shape := make([]int64, n)
	for i := 0; i < n; i++ {
		shape[i] = int64(r.shape[i])
	}
	t := &Tensor{dtype: DType(r.dtype), shape: shape}
	t.h = unsafe.Pointer(r.t)
	runtime.SetFinalizer(t, (*Tensor).finalize)
	return t, nil
}

// shapeArg returns a C view of a Go shape for the duration of one cgo call.
// C does not keep it.
func shapeArg(shape []int64) (*C.int64_t, C.size_t) {
	if len(shape) == 0 {
		return nil, 0
	}
	return (*C.int64_t)(unsafe.Pointer(&shape[0])), C.size_t(len(shape))
}
