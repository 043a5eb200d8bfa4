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
func (c *Context) BroadcastShapes(a, b []int64) ([]int64, error) {
	out := make([]int64, max(len(a), len(b), 1))
	nout := new(C.size_t)
	pa, na := shapeArg(a)
	pb, nb := shapeArg(b)
	po, capOut := (*C.int64_t)(unsafe.Pointer(&out[0])), C.size_t(len(out))
	err := c.do(func(l *C.bc_ctx) C.bc_status {
		return C.bc_ctx_broadcast_shapes(l, pa, na, pb, nb, po, capOut, nout)
	})
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	if err != nil {
		return nil, err
	}
	return out[:*nout], nil
}

// BroadcastShapes is Default().BroadcastShapes.
func BroadcastShapes(a, b []int64) ([]int64, error) { return defaultContext.BroadcastShapes(a, b) }

// BroadcastShapesN returns the shape all the given shapes broadcast to, as
// torch.broadcast_shapes does; with no shapes it is the 0-dim shape. On
// failure the message is PyTorch 2.x's, e.g. "Attempting to broadcast a
// dimension of length 3 at -1! Mismatching argument at index 1 had (3,); but
// expected shape should be broadcastable to [2]".
func (c *Context) BroadcastShapesN(shapes ...[]int64) ([]int64, error) {
	total, longest := 0, 1
	for _, s := range shapes {
		total += len(s)
		longest = max(longest, len(s))
	}
	// C takes an array of pointers to the shapes, which Go may not hand it
	// when they point to Go memory: the shapes and the pointers go in one C
	// block instead.
	nptr := len(shapes) + 1
	ptrSize := unsafe.Sizeof((*C.int64_t)(nil))
	block := C.malloc(C.size_t(uintptr(nptr)*ptrSize + uintptr(total+1)*8))
	if block == nil {
		return nil, goError(ErrOutOfMemory, "cannot allocate the shapes")
	}
	defer C.free(block)
	ptrs := unsafe.Slice((**C.int64_t)(block), nptr)
	flat := unsafe.Slice((*C.int64_t)(unsafe.Add(block, uintptr(nptr)*ptrSize)), total+1)
	ndims := make([]C.size_t, nptr)
	off := 0
	for i, s := range shapes {
		ptrs[i] = &flat[off]
		ndims[i] = C.size_t(len(s))
		for _, d := range s {
			flat[off] = C.int64_t(d)
			off++
		}
	}
	out := make([]int64, longest)
	nout := new(C.size_t)
	pp, pn, count := &ptrs[0], &ndims[0], C.size_t(len(shapes))
	po, capOut := (*C.int64_t)(unsafe.Pointer(&out[0])), C.size_t(len(out))
	err := c.do(func(l *C.bc_ctx) C.bc_status {
		return C.bc_ctx_broadcast_shapes_n(l, pp, pn, count, po, capOut, nout)
	})
	if err != nil {
		return nil, err
	}
	return out[:*nout], nil
}

// BroadcastShapesN is Default().BroadcastShapesN.
func BroadcastShapesN(shapes ...[]int64) ([]int64, error) {
	return defaultContext.BroadcastShapesN(shapes...)
}

// Expand returns a zero-copy view of t with the given shape: broadcast
// dimensions get stride 0 and -1 keeps a size, as PyTorch's Tensor.expand.
// The view is read-only in practice: writing to it fails with ErrOverlap.
func (c *Context) Expand(t *Tensor, shape ...int64) (*Tensor, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	p, n := shapeArg(shape)
	v, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_expand(l, h, p, n, out)
	})
	runtime.KeepAlive(t)
	runtime.KeepAlive(shape)
	return v, err
}

// Expand is Default().Expand(t, shape...).
func (t *Tensor) Expand(shape ...int64) (*Tensor, error) { return defaultContext.Expand(t, shape...) }

// SumToShape sums t over broadcast dimensions so that the result has the
// given shape, which must broadcast to t's shape (PyTorch's sum_to_size, the
// gradient of broadcasting). Integer and bool tensors sum to Int64; floats
// keep their dtype.
func (c *Context) SumToShape(t *Tensor, shape ...int64) (*Tensor, error) {
	h, err := t.handle()
	if err != nil {
		return nil, err
	}
	p, n := shapeArg(shape)
	v, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_sum_to_shape(l, h, p, n, out)
	})
	runtime.KeepAlive(t)
	runtime.KeepAlive(shape)
	return v, err
}

// SumToShape is Default().SumToShape(t, shape...).
func (t *Tensor) SumToShape(shape ...int64) (*Tensor, error) {
	return defaultContext.SumToShape(t, shape...)
}

// BroadcastTensors returns zero-copy views of ts expanded to their common
// shape (torch.broadcast_tensors). The caller closes each view.
func (c *Context) BroadcastTensors(ts ...*Tensor) ([]*Tensor, error) {
	hs, err := handles(ts...)
	if err != nil {
		return nil, err
	}
	l, err := c.acquire()
	if err != nil {
		return nil, err
	}
	// C pointers only: a Go array of them may be handed to C.
	views := make([]*C.bc_tensor, len(ts)+1)
	hs = append(hs, nil)
	err = l.check(C.bc_ctx_broadcast_tensors(l.c, &hs[0], C.size_t(len(ts)), &views[0], C.size_t(len(views))))
	runtime.KeepAlive(ts) // and through it every tensor
	var out []*Tensor
	if err == nil {
		out = make([]*Tensor, len(ts))
		for i := range ts {
			l.meta.t = views[i]
			out[i] = l.wrap()
		}
	}
	c.release(l)
	return out, err
}

// BroadcastTensors is Default().BroadcastTensors.
func BroadcastTensors(ts ...*Tensor) ([]*Tensor, error) {
	return defaultContext.BroadcastTensors(ts...)
}
