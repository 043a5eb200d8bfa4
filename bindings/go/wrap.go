package bcast

/*
#include "gobc.h"

// Buffers wrapped from Go whose last handle is not freed yet (for tests).
// The deleter may run on any thread that frees a handle, C's included, so
// it only counts: it never calls Go, and the memory stays Go's.
static int64_t gobc_wrapped;
static void gobc_unwrap(void* data, void* ctx) {
	(void)data;
	(void)ctx;
	__atomic_sub_fetch(&gobc_wrapped, 1, __ATOMIC_RELAXED);
}
static int64_t gobc_wrapped_live(void) { return __atomic_load_n(&gobc_wrapped, __ATOMIC_RELAXED); }

// Wraps m->data, a pinned Go slice that Go stored there.
static inline bc_status gobc_wrap(bc_ctx* ctx, gobc_meta* m, bc_dtype dtype, const int64_t* shape,
                                  const int64_t* strides, size_t ndim, size_t nbytes,
                                  bc_tensor** out) {
	bc_status st = bc_ctx_tensor_wrap(ctx, dtype, shape, strides, ndim, m->data, nbytes,
	                                  gobc_unwrap, NULL, out);
	if (st == BC_OK) __atomic_add_fetch(&gobc_wrapped, 1, __ATOMIC_RELAXED);
	return st;
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// WrapSlice returns a tensor that views data, a Go slice, without copying
// it (see WrapSliceOn).
func WrapSlice[T Element](p *runtime.Pinner, data []T, shape ...int64) (*Tensor, error) {
	return WrapSliceOn(defaultContext, p, data, shape...)
}

// WrapSliceOn returns a contiguous tensor of T's dtype and the given shape
// that views data without copying: len(data) must be the product of the
// sizes (1 for a 0-dim tensor). Reads of the tensor read data, and every op
// that writes it (an Out or InPlace form, Copy, an iterator's output)
// writes data. Errors are reported on c.
//
// The slice's array is pinned with p (runtime.Pinner), which is what lets C
// keep a pointer to it. The rules, which the caller keeps:
//   - Close the tensor, and every tensor derived from it that shares its
//     memory (View, Expand, BroadcastTensors, an Iter made on it, the
//     output handles of such an Iter), before p.Unpin: after Unpin the
//     garbage collector may free or reuse the array while C still points to
//     it. Copies (Clone, To, the result of an op) are C memory and may live
//     on.
//   - Never use the tensor, or anything derived from it, after p.Unpin;
//     their finalizers only free handles and never read the memory, so a
//     forgotten one is harmless.
//   - Do not let Go code write the slice while an op or an iterator reads
//     or writes the tensor: for the race detector C's accesses are
//     invisible.
//   - Reslicing data or appending to it does not move the wrapped elements,
//     but an append that grows the slice gives a new array the tensor does
//     not see.
//
// One Pinner may pin any number of slices, and Unpin unpins them all. With
// GOEXPERIMENT=cgocheck2 the runtime checks that the pointer the binding
// hands C is pinned (the binding stores it in C memory from Go first), as
// the package's test.sh does.
func WrapSliceOn[T Element](c *Context, p *runtime.Pinner, data []T, shape ...int64) (*Tensor, error) {
	if want, ok := countElements(shape); ok && want != int64(len(data)) {
		unit := "elements"
		if want == 1 {
			unit = "element"
		}
		return nil, goError(ErrInvalidArgument, fmt.Sprintf(
			"%d values given for shape %s (%d %s)", len(data), formatShape(shape), want, unit))
	}
	return wrapSlice(c, p, data, shape, nil)
}

// WrapSliceStrided returns a tensor that views data with the given element
// strides (see WrapSliceStridedOn).
func WrapSliceStrided[T Element](p *runtime.Pinner, data []T, shape, strides []int64) (*Tensor, error) {
	return WrapSliceStridedOn(defaultContext, p, data, shape, strides)
}

// WrapSliceStridedOn is WrapSliceOn with element strides, one per dim, none
// negative: element (i, j, ...) is data[i*strides[0] + j*strides[1] + ...],
// so a transposed matrix or every other column of one can be wrapped. Every
// element must lie inside data (else ErrOutOfBounds); strides of 0 and
// overlapping elements give a tensor that may be read but not written.
func WrapSliceStridedOn[T Element](c *Context, p *runtime.Pinner, data []T, shape, strides []int64) (*Tensor, error) {
	if len(strides) != len(shape) {
		return nil, goError(ErrInvalidArgument, fmt.Sprintf(
			"%d strides given for %d dims", len(strides), len(shape)))
	}
	if len(strides) == 0 {
		strides = nil // 0-dim: C reads no stride
	}
	return wrapSlice(c, p, data, shape, strides)
}

func wrapSlice[T Element](c *Context, p *runtime.Pinner, data []T, shape, strides []int64) (*Tensor, error) {
	if p == nil {
		return nil, goError(ErrInvalidArgument, "WrapSlice needs a *runtime.Pinner")
	}
	var ptr unsafe.Pointer
	if len(data) > 0 {
		p.Pin(&data[0]) // pins the whole array
		ptr = unsafe.Pointer(&data[0])
	}
	var zero T
	nbytes := C.size_t(uintptr(len(data)) * unsafe.Sizeof(zero))
	ps, nd := shapeArg(shape)
	var pst *C.int64_t
	if strides != nil {
		pst = (*C.int64_t)(unsafe.Pointer(&strides[0]))
	}
	dtype := C.bc_dtype(DTypeOf[T]())
	l, err := c.acquire()
	if err != nil {
		return nil, err
	}
	// A Go pointer stored in C memory: cgocheck2 checks it is pinned.
	l.meta.data = ptr
	t, err := l.makeTensor(func(cc *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.gobc_wrap(cc, l.meta, dtype, ps, pst, nd, nbytes, out)
	})
	l.meta.data = nil
	c.release(l)
	runtime.KeepAlive(shape)
	runtime.KeepAlive(strides)
	runtime.KeepAlive(data)
	return t, err
}

// wrappedLive returns the number of wrapped Go buffers that some C handle
// still refers to (for tests).
func wrappedLive() int64 { return int64(C.gobc_wrapped_live()) }
