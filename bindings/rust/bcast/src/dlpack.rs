//! DLPack interchange (`bcast/dlpack.h`): tensors shared with other
//! libraries (PyTorch, NumPy, JAX, ...) without copying. bcast treats the
//! managed tensors as opaque pointers; a DLPack crate or an FFI layer on the
//! other side gives or takes them.

use std::ptr::{self, NonNull};

use crate::error::call;
use crate::tensor::new_tensor;
use crate::{sys, Result, Tensor, TensorRef};

impl TensorRef {
    /// Exports the tensor as an unversioned DLPack managed tensor sharing its
    /// memory (`bc_tensor_to_dlpack`). The managed tensor keeps the memory
    /// alive on its own; the receiver (a DLPack consumer) owns it and calls
    /// its deleter once. A read-only tensor is refused
    /// ([`ErrorCode::InvalidArgument`](crate::ErrorCode)): this form cannot
    /// say so; use [`to_dlpack_versioned`](Self::to_dlpack_versioned).
    ///
    /// Writes through the managed tensor are writes to this tensor's
    /// elements: whoever makes them must not race with Rust's use of it. A
    /// view over borrowed memory ([`TensorView::from_slice`](crate::TensorView::from_slice)
    /// and the like) lends that memory only for its lifetime: the managed
    /// tensor must not be used after it.
    pub fn to_dlpack(&self) -> Result<NonNull<sys::DLManagedTensor>> {
        self.export(sys::bc_ctx_tensor_to_dlpack)
    }

    /// Exports the tensor as a DLPack 1.x versioned managed tensor sharing
    /// its memory (`bc_tensor_to_dlpack_versioned`), flagged read-only when
    /// the tensor is; as [`to_dlpack`](Self::to_dlpack) otherwise.
    pub fn to_dlpack_versioned(&self) -> Result<NonNull<sys::DLManagedTensorVersioned>> {
        self.export(sys::bc_ctx_tensor_to_dlpack_versioned)
    }

    /// Runs one of the C exports on this tensor.
    fn export<M>(&self, f: Export<M>) -> Result<NonNull<M>> {
        let mut out = ptr::null_mut();
        // SAFETY: a live handle and a valid out pointer.
        call(|ctx| unsafe { f(ctx, self.as_ptr(), &mut out) })?;
        Ok(NonNull::new(out).expect("a DLPack export returned BC_OK and NULL"))
    }
}

/// `bc_ctx_tensor_to_dlpack` or its versioned form.
type Export<M> =
    unsafe extern "C" fn(*mut sys::bc_ctx, *const sys::bc_tensor, *mut *mut M) -> sys::bc_status;
/// `bc_ctx_tensor_from_dlpack` or its versioned form.
type Import<M> =
    unsafe extern "C" fn(*mut sys::bc_ctx, *mut M, *mut *mut sys::bc_tensor) -> sys::bc_status;

impl Tensor {
    /// Imports an unversioned DLPack managed tensor without copying
    /// (`bc_tensor_from_dlpack`). On success the tensor owns `src` and calls
    /// its deleter when it and every view of it are gone; on failure (memory
    /// not on the host, a dtype bcast lacks, negative strides, ...) `src`
    /// stays the caller's, its deleter not called.
    ///
    /// # Safety
    /// `src` must point to a valid `DLManagedTensor` whose memory stays valid
    /// until its deleter runs, and, as for [`Tensor::from_raw`], nothing may
    /// write that memory while the tensor is used (nor read it while the
    /// tensor is written).
    pub unsafe fn from_dlpack(src: NonNull<sys::DLManagedTensor>) -> Result<Tensor> {
        // SAFETY: the caller vouches for `src`.
        unsafe { Self::import(src, sys::bc_ctx_tensor_from_dlpack) }
    }

    /// Imports a DLPack 1.x versioned managed tensor without copying
    /// (`bc_tensor_from_dlpack_versioned`); one flagged read-only gives a
    /// read-only tensor, into which every write fails. As
    /// [`from_dlpack`](Self::from_dlpack) otherwise.
    ///
    /// # Safety
    /// As for [`from_dlpack`](Self::from_dlpack).
    pub unsafe fn from_dlpack_versioned(
        src: NonNull<sys::DLManagedTensorVersioned>,
    ) -> Result<Tensor> {
        // SAFETY: the caller vouches for `src`.
        unsafe { Self::import(src, sys::bc_ctx_tensor_from_dlpack_versioned) }
    }

    /// Runs one of the C imports on `src`.
    ///
    /// # Safety
    /// As for [`from_dlpack`](Self::from_dlpack).
    unsafe fn import<M>(src: NonNull<M>, f: Import<M>) -> Result<Tensor> {
        let mut out = ptr::null_mut();
        // SAFETY: the caller vouches for `src`; `out` is a valid out pointer.
        let result = call(|ctx| unsafe { f(ctx, src.as_ptr(), &mut out) });
        new_tensor(result, out)
    }
}
