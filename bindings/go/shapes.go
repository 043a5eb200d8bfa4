package bcast

/*
#include "gobc.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// BroadcastShapes returns the shape two operands of shapes a and b broadcast
// to. On failure the error is the one an op on such operands gives
// ("The size of tensor a (2) must match the size of tensor b (3) at
// non-singleton dimension 1", ErrNotBroadcastable, with Detail set).
func BroadcastShapes(a, b []int64) ([]int64, error) {
	out := make([]int64, max(len(a), len(b), 1))
	var nout C.size_t
	pa, na := shapeArg(a)
	pb, nb := shapeArg(b)
	r := C.gobc_broadcast_shapes(pa, na, pb, nb, (*C.int64_t)(unsafe.Pointer(&out[0])), &nout)
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	if err := resultErr(&r); err != nil {
		return nil, err
	}
	return out[:nout], nil
}

// BroadcastShapesN returns the shape all the given shapes broadcast to, as
// torch.broadcast_shapes does; with no shapes it is the 0-dim shape. On
// failure the message is PyTorch 2.x's, e.g. "Attempting to broadcast a
// dimension of length 3 at -1! Mismatching argument at index 1 had (3,); but
// expected shape should be broadcastable to [2]".
func BroadcastShapesN(shapes ...[]int64) ([]int64, error) {
	var flat []int64
	ndims := make([]C.size_t, len(shapes)+1)
	longest := 1
	for i, s := range shapes {
		flat = append(flat, s...)
		ndims[i] = C.size_t(len(s))
		longest = max(longest, len(s))
	}
	flat = append(flat, 0) // never empty, so &flat[0] exists
	out := make([]int64, longest)
	var nout C.size_t
	r := C.gobc_broadcast_shapes_n((*C.int64_t)(unsafe.Pointer(&flat[0])), &ndims[0],
		C.size_t(len(shapes)), (*C.int64_t)(unsafe.Pointer(&out[0])), &nout)
	runtime.KeepAlive(flat)
	runtime.KeepAlive(ndims)
	if err := resultErr(&r); err != nil {
		return nil, err
	}
	return out[:nout], nil
}

// Expand returns a zero-copy view of t with the given shape: broadcast
// dimensions get stride 0 and -1 keeps a size, as PyTorch's Tensor.expand.
// The view is read-only in practice: writing to it fails with ErrOverlap.
func (t *Tensor) Expand(shape ...int64) (*Tensor, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	p, n := shapeArg(shape)
	r := C.gobc_expand(h, p, n)
	runtime.KeepAlive(t)
	runtime.KeepAlive(shape)
	return resultTensor(&r)
}

// SumToShape sums t over broadcast dimensions so that the result has the
// given shape, which must broadcast to t's shape (PyTorch's sum_to_size, the
// gradient of broadcasting). Integer and bool tensors sum to Int64; floats
// keep their dtype.
func (t *Tensor) SumToShape(shape ...int64) (*Tensor, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	p, n := shapeArg(shape)
	r := C.gobc_sum_to_shape(h, p, n)
	runtime.KeepAlive(t)
	runtime.KeepAlive(shape)
	return resultTensor(&r)
}

// BroadcastTensors returns zero-copy views of ts expanded to their common
// shape (torch.broadcast_tensors). The caller closes each view.
func BroadcastTensors(ts ...*Tensor) ([]*Tensor, error) {
	hs, err := handles(ts...)
	if err != nil {
		return nil, err
	}
	// C pointers only: a Go array of them may be handed to C.
	views := make([]*C.bc_tensor, len(ts)+1)
	hs = append(hs, nil)
	r := C.gobc_broadcast_tensors(&hs[0], C.size_t(len(ts)), &views[0])
	runtime.KeepAlive(ts) // and through it every tensor
	if err := resultErr(&r); err != nil {
		return nil, err
	}
	out := make([]*Tensor, len(ts))
	for i := range ts {
		ri := C.gobc_info(views[i])
		out[i], _ = resultTensor(&ri)
	}
	return out, nil
}
