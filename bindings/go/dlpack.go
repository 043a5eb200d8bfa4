package bcast

/*
#include "gobc.h"
#include "bcast/dlpack.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// DLPack interchange (bcast/dlpack.h): tensors shared with other libraries
// (PyTorch, NumPy, JAX, ...) without copying. The managed tensors are C
// memory, passed as unsafe.Pointer: a DLManagedTensor* (unversioned) or a
// DLManagedTensorVersioned* (DLPack 1.x).

// FromDLPack imports an unversioned DLPack managed tensor (a
// DLManagedTensor*) without copying. On success the Tensor owns it and calls
// its deleter once the Tensor and every view of it are closed; on failure
// (memory not on the host, a dtype bcast lacks, negative strides, ...) it
// stays the caller's, its deleter not called. p must point to a valid
// managed tensor whose memory stays valid until its deleter runs.
func (c *Context) FromDLPack(p unsafe.Pointer) (*Tensor, error) {
	return c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_tensor_from_dlpack(l, (*C.DLManagedTensor)(p), out)
	})
}

// FromDLPack is Default().FromDLPack.
func FromDLPack(p unsafe.Pointer) (*Tensor, error) { return defaultContext.FromDLPack(p) }

// FromDLPackVersioned imports a DLPack 1.x managed tensor (a
// DLManagedTensorVersioned*) without copying; one flagged read-only gives a
// read-only Tensor, into which every write fails. As FromDLPack otherwise.
func (c *Context) FromDLPackVersioned(p unsafe.Pointer) (*Tensor, error) {
	return c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_tensor_from_dlpack_versioned(l, (*C.DLManagedTensorVersioned)(p), out)
	})
}

// FromDLPackVersioned is Default().FromDLPackVersioned.
func FromDLPackVersioned(p unsafe.Pointer) (*Tensor, error) {
	return defaultContext.FromDLPackVersioned(p)
}

// ToDLPack exports t as an unversioned DLPack managed tensor (a
// DLManagedTensor*) sharing its memory. The managed tensor keeps the memory
// alive on its own (t may be closed first); the receiver, a DLPack
// consumer, owns it and calls its deleter once. A read-only tensor is
// refused (ErrInvalidArgument): this form cannot say so; use
// ToDLPackVersioned. Writes through the managed tensor are writes to t's
// elements.
func (c *Context) ToDLPack(t *Tensor) (unsafe.Pointer, error) {
	return c.toDLPack(t, func(l *C.bc_ctx, h *C.bc_tensor, out *unsafe.Pointer) C.bc_status {
		return C.bc_ctx_tensor_to_dlpack(l, h, (**C.DLManagedTensor)(unsafe.Pointer(out)))
	})
}

// ToDLPack is Default().ToDLPack(t).
func (t *Tensor) ToDLPack() (unsafe.Pointer, error) { return defaultContext.ToDLPack(t) }

// ToDLPackVersioned exports t as a DLPack 1.x managed tensor (a
// DLManagedTensorVersioned*) sharing its memory, flagged read-only when t
// is; as ToDLPack otherwise.
func (c *Context) ToDLPackVersioned(t *Tensor) (unsafe.Pointer, error) {
	return c.toDLPack(t, func(l *C.bc_ctx, h *C.bc_tensor, out *unsafe.Pointer) C.bc_status {
		return C.bc_ctx_tensor_to_dlpack_versioned(l, h, (**C.DLManagedTensorVersioned)(unsafe.Pointer(out)))
	})
}

// toDLPack runs export, which writes the address of a new managed tensor
// made of t's handle into *out, on a lane of c.
func (c *Context) toDLPack(t *Tensor, export func(l *C.bc_ctx, h *C.bc_tensor, out *unsafe.Pointer) C.bc_status) (unsafe.Pointer, error) {
	h, err := handles(t)
	if err != nil {
		return nil, err
	}
	var out unsafe.Pointer
	err = c.do(func(l *C.bc_ctx) C.bc_status { return export(l, h[0], &out) })
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ToDLPackVersioned is Default().ToDLPackVersioned(t).
func (t *Tensor) ToDLPackVersioned() (unsafe.Pointer, error) {
	return defaultContext.ToDLPackVersioned(t)
}
