//! The handle types: [`TensorRef`] (a borrowed handle), [`Tensor`] (an owned
//! one), [`TensorView`] and [`TensorViewMut`] (handles over borrowed memory).

use std::borrow::Borrow;
use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::fmt;
use std::marker::{PhantomData, PhantomPinned};
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::ptr::{self, NonNull};

use bcast_sys as sys;

use crate::dims::Dims;
use crate::dtype::{DType, Element};
use crate::error::{call, Error, ErrorCode, Result};

/// A tensor handle seen through a reference: `&TensorRef` reads (it is the
/// C library's `const bc_tensor*`), `&mut TensorRef` may also write.
///
/// Never held by value: [`Tensor`], [`TensorView`] and [`TensorViewMut`]
/// dereference to it, the way `String` dereferences to `str`. Every
/// operation is a method here, so it works on all three.
pub struct TensorRef {
    _opaque: UnsafeCell<()>,
    _not_send_sync_unpin: PhantomData<(*mut (), PhantomPinned)>,
}

// SAFETY: Sync — a `&TensorRef` only reaches the C library as a
// `const bc_tensor*`, which the header allows "from many threads at once";
// reading the element memory through `as_slice` is a shared read of memory
// that nothing writes while a `&` borrow of its handle lives (writes need
// `&mut TensorRef`, and every other handle over the same storage is a
// `TensorView` that borrows this one).
unsafe impl Sync for TensorRef {}
// SAFETY: Send — the library has no thread affinity (its only per-thread state,
// the last error, is read on the calling thread right after each call), so an
// exclusive `&mut TensorRef` may be handed to another thread and used there.
unsafe impl Send for TensorRef {}

impl TensorRef {
    /// Reborrows a raw handle.
    ///
    /// # Safety
    /// `ptr` must be a live, non-NULL handle that outlives `'a`, and nothing may
    /// write to its elements while the reference lives.
    pub unsafe fn from_ptr<'a>(ptr: *const sys::bc_tensor) -> &'a TensorRef {
        // SAFETY: TensorRef is a zero-sized stand-in for the pointee; the
        // caller guarantees the handle's validity.
        unsafe { &*(ptr as *const TensorRef) }
    }

    /// Reborrows a raw handle mutably.
    ///
    /// # Safety
    /// As [`TensorRef::from_ptr`], and no other handle over the same memory may
    /// be used while the reference lives.
    pub unsafe fn from_ptr_mut<'a>(ptr: *mut sys::bc_tensor) -> &'a mut TensorRef {
        // SAFETY: as in from_ptr; exclusivity is the caller's promise.
        unsafe { &mut *(ptr as *mut TensorRef) }
    }

    /// The raw handle, for calling the C API directly.
    pub fn as_ptr(&self) -> *const sys::bc_tensor {
        self as *const TensorRef as *const sys::bc_tensor
    }

    /// The raw handle, writable.
    pub fn as_mut_ptr(&mut self) -> *mut sys::bc_tensor {
        self as *mut TensorRef as *mut sys::bc_tensor
    }

    /// Number of dimensions (0 for a 0-dim tensor).
    pub fn ndim(&self) -> usize {
        // SAFETY: a live handle.
        unsafe { sys::bc_tensor_ndim(self.as_ptr()) }
    }

    /// Sizes of the dimensions.
    ///
    /// ```
    /// let t = bcast::Tensor::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(t.shape(), &[2, 3]);
    /// assert_eq!(t.strides(), &[3, 1]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn shape(&self) -> &[i64] {
        // SAFETY: the library returns ndim sizes (a non-NULL pointer even for
        // ndim 0) that live as long as the handle, which `&self` borrows.
        unsafe { raw_slice(sys::bc_tensor_shape(self.as_ptr()), self.ndim()) }
    }

    /// Strides of the dimensions, in elements (0 on broadcast dimensions).
    pub fn strides(&self) -> &[i64] {
        // SAFETY: as in shape().
        unsafe { raw_slice(sys::bc_tensor_strides(self.as_ptr()), self.ndim()) }
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        // SAFETY: a live handle.
        let raw = unsafe { sys::bc_tensor_dtype(self.as_ptr()) };
        DType::from_raw(raw).expect("bcast returned an unknown dtype")
    }

    /// Number of elements (1 for a 0-dim tensor).
    pub fn numel(&self) -> usize {
        // SAFETY: a live handle.
        let n = unsafe { sys::bc_tensor_numel(self.as_ptr()) };
        usize::try_from(n).expect("bcast returned a negative element count")
    }

    /// True if the elements are contiguous in row-major order.
    pub fn is_contiguous(&self) -> bool {
        // SAFETY: a live handle.
        unsafe { sys::bc_tensor_is_contiguous(self.as_ptr()) != 0 }
    }

    fn expect_dtype<T: Element>(&self) -> Result<()> {
        if self.dtype() == T::DTYPE {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::Dtype,
                format!(
                    "expected a tensor of dtype {} but got {}",
                    T::DTYPE.describe(),
                    self.dtype().describe()
                ),
            ))
        }
    }

    /// Copies the elements, in row-major order. `T` must match the dtype
    /// (convert first with [`TensorRef::to_dtype`] otherwise).
    ///
    /// ```
    /// use bcast::Tensor;
    /// let a = Tensor::from_slice(&[[1.0f32], [2.0], [3.0]].concat(), &[3, 1])?;
    /// let b = Tensor::from_slice(&[4.0f32, 5.0, 6.0, 7.0], &[1, 4])?;
    /// let c = a.add(&b)?;
    /// assert_eq!(c.shape(), &[3, 4]);
    /// assert_eq!(c.to_vec::<f32>()?, [5., 6., 7., 8., 6., 7., 8., 9., 7., 8., 9., 10.]);
    /// assert!(c.to_vec::<f64>().is_err());
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.expect_dtype::<T>()?;
        let n = self.numel();
        let mut out: Vec<T> = Vec::with_capacity(n);
        // SAFETY: the buffer has room for n elements of the tensor's dtype
        // (T has its exact layout); on success all n were written.
        unsafe {
            call(|ctx| {
                sys::bc_ctx_tensor_copy_to(
                    ctx,
                    self.as_ptr(),
                    out.as_mut_ptr().cast(),
                    n * std::mem::size_of::<T>(),
                )
            })?;
            out.set_len(n);
        }
        Ok(out)
    }

    /// The single element of a one-element tensor.
    pub fn item<T: Element>(&self) -> Result<T> {
        if self.numel() != 1 {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "a Tensor with {} elements cannot be converted to Scalar",
                    self.numel()
                ),
            ));
        }
        Ok(self.to_vec::<T>()?[0])
    }

    /// The elements as a slice, without copying, if the tensor is contiguous
    /// and `T` is its element type.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        if self.expect_dtype::<T>().is_err() || !self.is_contiguous() {
            return None;
        }
        // SAFETY: contiguous, so numel elements of T lie from the data pointer
        // on, aligned for T; nothing writes them while `self` is borrowed.
        Some(unsafe { raw_slice(self.data_ptr() as *const T, self.numel()) })
    }

    /// The elements as a mutable slice, without copying, if the tensor is
    /// contiguous and `T` is its element type.
    pub fn as_slice_mut<T: Element>(&mut self) -> Option<&mut [T]> {
        if self.expect_dtype::<T>().is_err() || !self.is_contiguous() {
            return None;
        }
        let n = self.numel();
        if n == 0 {
            return Some(&mut []);
        }
        // SAFETY: as in as_slice; `&mut self` makes the access exclusive.
        Some(unsafe { std::slice::from_raw_parts_mut(self.data_ptr() as *mut T, n) })
    }

    /// Address of the element at index (0, ..., 0).
    pub(crate) fn data_ptr(&self) -> *mut c_void {
        // SAFETY: a live handle.
        unsafe { sys::bc_tensor_data(self.as_ptr()) }
    }

    /// A new handle over the same elements (`bc_tensor_view`), read-only and
    /// borrowing `self`.
    pub fn view(&self) -> Result<TensorView<'_>> {
        let mut out = ptr::null_mut();
        // SAFETY: a live handle and a valid out pointer.
        call(|ctx| unsafe { sys::bc_ctx_tensor_view(ctx, self.as_ptr(), &mut out) })?;
        // SAFETY: on success `out` is a new handle we own.
        Ok(unsafe { TensorView::from_raw(out) })
    }

    /// A contiguous copy (`bc_tensor_clone`).
    pub fn to_tensor(&self) -> Result<Tensor> {
        let mut out = ptr::null_mut();
        // SAFETY: a live handle and a valid out pointer.
        call(|ctx| unsafe { sys::bc_ctx_tensor_clone(ctx, self.as_ptr(), &mut out) })?;
        // SAFETY: on success `out` is a new handle we own.
        Ok(unsafe { Tensor::from_raw(out) })
    }

    /// A contiguous copy converted to `dtype`: PyTorch's `x.to(dtype)`
    /// (`bc_to`; any conversion, as `copy_`). Unlike PyTorch's, the result is
    /// always a copy, also when `self` already has `dtype` (then it is
    /// [`TensorRef::to_tensor`]), so that it never shares memory with `self`.
    ///
    /// ```
    /// use bcast::{DType, Tensor};
    /// let t = Tensor::from_slice(&[1.5f32, -2.5], &[2])?;
    /// assert_eq!(t.to_dtype(DType::Int32)?.to_vec::<i32>()?, [1, -2]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn to_dtype(&self, dtype: DType) -> Result<Tensor> {
        if dtype == self.dtype() {
            // bc_to would return a handle on self's storage.
            return self.to_tensor();
        }
        let mut out = ptr::null_mut();
        // SAFETY: a live handle and a valid out pointer.
        let result =
            call(|ctx| unsafe { sys::bc_ctx_to(ctx, self.as_ptr(), dtype.raw(), &mut out) });
        new_tensor(result, out)
    }

    /// Writes `src`, broadcast to this tensor's shape and converted to its
    /// dtype, into this tensor (`bc_copy_`).
    pub fn copy_from(&mut self, src: &TensorRef) -> Result<()> {
        // SAFETY: live handles; `self` is exclusively borrowed.
        call(|ctx| unsafe { sys::bc_ctx_copy_(ctx, self.as_mut_ptr(), src.as_ptr()) })
    }

    /// Sets every element to `value` (converted to the dtype).
    pub fn fill<T: Element>(&mut self, value: T) -> Result<()> {
        let s = Tensor::scalar(value)?;
        self.copy_from(&s)
    }
}

/// # Safety
/// `p` must point to `n` initialised `T` that outlive `'a` (or `n` is 0).
unsafe fn raw_slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if n == 0 {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(p, n) }
    }
}

impl fmt::Debug for TensorRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tensor")
            .field("dtype", &self.dtype())
            .field("shape", &self.shape())
            .field("strides", &self.strides())
            .finish()
    }
}

impl ToOwned for TensorRef {
    type Owned = Tensor;
    /// A contiguous copy; panics if memory runs out (as `Vec` does).
    fn to_owned(&self) -> Tensor {
        self.to_tensor().unwrap_or_else(|e| panic!("{e}"))
    }
}

fn check_len(len: usize, shape: &[i64]) -> Result<()> {
    let numel = shape.iter().try_fold(1usize, |acc, &d| {
        usize::try_from(d).ok().and_then(|d| acc.checked_mul(d))
    });
    match numel {
        Some(n) if n == len => Ok(()),
        Some(n) => Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("shape {shape:?} is invalid for input of size {len} (it needs {n} elements)"),
        )),
        None => Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("invalid shape {shape:?}"),
        )),
    }
}

/// Takes ownership of the handle an allocating call made, once [`call`]
/// says it succeeded.
pub(crate) fn new_tensor(result: Result<()>, out: *mut sys::bc_tensor) -> Result<Tensor> {
    result?;
    // SAFETY: on success the library hands us a new, owned handle.
    Ok(unsafe { Tensor::from_raw(out) })
}

/// An owned tensor handle; freed on drop. Clone makes a deep copy.
pub struct Tensor {
    ptr: NonNull<sys::bc_tensor>,
}

// SAFETY: Send — ownership of a handle may move to another thread: the library
// keeps no thread affinity, storage reference counts are atomic, and the only
// deleter this crate installs frees a `Vec` of `Send` elements.
unsafe impl Send for Tensor {}
// SAFETY: Sync — `&Tensor` only gives `&TensorRef`, which is Sync (see there).
unsafe impl Sync for Tensor {}

impl Tensor {
    /// Takes ownership of a raw handle.
    ///
    /// # Safety
    /// `ptr` must be a live, non-NULL handle that nothing else frees, and no
    /// other handle over the same memory may be written while this one is used
    /// (nor read while this one is written).
    pub unsafe fn from_raw(ptr: *mut sys::bc_tensor) -> Tensor {
        Tensor {
            ptr: NonNull::new(ptr).expect("NULL bc_tensor handle"),
        }
    }

    /// Gives up ownership of the handle; free it with `bc_tensor_free`.
    pub fn into_raw(self) -> *mut sys::bc_tensor {
        ManuallyDrop::new(self).ptr.as_ptr()
    }

    /// A tensor with uninitialised elements.
    ///
    /// # Safety
    /// Every element must be written (e.g. by an `_out` op or
    /// [`TensorRef::copy_from`]) before any is read, and the tensor must not
    /// be the output of a [`crate::iter`] loop before then: the loop gets its
    /// rows as `&mut [T]`, which must not point at uninitialised memory.
    pub unsafe fn empty(dtype: DType, shape: impl Dims) -> Result<Tensor> {
        let shape = shape.dims()?;
        let mut out = ptr::null_mut();
        // SAFETY: shape points to shape.len() sizes; out is valid.
        let result = call(|ctx| unsafe {
            sys::bc_ctx_tensor_empty(ctx, dtype.raw(), shape.as_ptr(), shape.len(), &mut out)
        });
        new_tensor(result, out)
    }

    /// A tensor of zeros.
    ///
    /// ```
    /// let t = bcast::Tensor::zeros(bcast::DType::Int16, &[2, 0, 3])?;
    /// assert_eq!((t.numel(), t.shape()), (0, &[2, 0, 3][..]));
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn zeros(dtype: DType, shape: impl Dims) -> Result<Tensor> {
        let shape = shape.dims()?;
        let mut out = ptr::null_mut();
        // SAFETY: shape points to shape.len() sizes; out is valid.
        let result = call(|ctx| unsafe {
            sys::bc_ctx_tensor_zeros(ctx, dtype.raw(), shape.as_ptr(), shape.len(), &mut out)
        });
        new_tensor(result, out)
    }

    /// A tensor with every element `value`.
    pub fn full<T: Element>(value: T, shape: impl Dims) -> Result<Tensor> {
        let mut t = Tensor::zeros(T::DTYPE, shape)?;
        t.fill(value)?;
        Ok(t)
    }

    /// A 0-dim tensor holding `value`.
    ///
    /// ```
    /// let s = bcast::Tensor::scalar(2.5f64)?;
    /// assert_eq!((s.ndim(), s.item::<f64>()?), (0, 2.5));
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn scalar<T: Element>(value: T) -> Result<Tensor> {
        Tensor::from_slice(&[value], &[])
    }

    /// A contiguous tensor with a copy of `data` (row-major), which must have
    /// exactly as many elements as `shape`.
    pub fn from_slice<T: Element>(data: &[T], shape: impl Dims) -> Result<Tensor> {
        let shape = &shape.dims()?[..];
        check_len(data.len(), shape)?;
        let mut out = ptr::null_mut();
        // SAFETY: data holds numel(shape) elements of T's dtype; the library
        // copies them and keeps no pointer.
        let result = call(|ctx| unsafe {
            sys::bc_ctx_tensor_from_data(
                ctx,
                T::DTYPE.raw(),
                shape.as_ptr(),
                shape.len(),
                data.as_ptr().cast(),
                &mut out,
            )
        });
        new_tensor(result, out)
    }

    /// A tensor that takes over `data`'s buffer without copying; the buffer
    /// is freed when the tensor (and every view of it) is gone.
    ///
    /// ```
    /// let t = bcast::Tensor::from_vec(vec![1u8, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(t.as_slice::<u8>(), Some(&[1u8, 2, 3, 4][..]));
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn from_vec<T: Element>(data: Vec<T>, shape: impl Dims) -> Result<Tensor> {
        let shape = &shape.dims()?[..];
        check_len(data.len(), shape)?;
        // SAFETY: the logical first element is the buffer's first, and the
        // contiguous shape covers exactly data.len() elements.
        unsafe { Tensor::from_vec_parts(data, 0, shape, None) }
    }

    /// Wraps an owned buffer without copying; the tensor's first element is
    /// `data[offset]`. On failure the buffer is dropped.
    ///
    /// # Safety
    /// `offset` must be within `data` (or equal to its length when empty); the
    /// library checks that every element lies inside the buffer.
    pub(crate) unsafe fn from_vec_parts<T: Element>(
        data: Vec<T>,
        offset: usize,
        shape: &[i64],
        strides: Option<&[i64]>,
    ) -> Result<Tensor> {
        struct Owned<T> {
            base: *mut T,
            cap: usize,
        }
        unsafe extern "C" fn free_vec<T>(_data: *mut c_void, ctx: *mut c_void) {
            // SAFETY: ctx is the Box<Owned<T>> leaked below, and (base, cap)
            // a Vec<T> leaked there; length 0 is fine because T is Copy.
            let owned = unsafe { Box::from_raw(ctx as *mut Owned<T>) };
            // SAFETY: see above.
            drop(unsafe { Vec::from_raw_parts(owned.base, 0, owned.cap) });
        }
        let mut data = ManuallyDrop::new(data);
        let (base, len, cap) = (data.as_mut_ptr(), data.len(), data.capacity());
        let deleter_ctx = Box::into_raw(Box::new(Owned { base, cap }));
        let mut out = ptr::null_mut();
        // SAFETY: base+offset is in (or one past) the buffer, aligned for T;
        // the library checks the elements against the remaining bytes, and
        // frees the buffer through free_vec::<T> once the last handle goes.
        let result = call(|ctx| unsafe {
            sys::bc_ctx_tensor_wrap(
                ctx,
                T::DTYPE.raw(),
                shape.as_ptr(),
                strides.map_or(ptr::null(), <[i64]>::as_ptr),
                shape.len(),
                base.add(offset).cast(),
                (len - offset) * std::mem::size_of::<T>(),
                Some(free_vec::<T>),
                deleter_ctx.cast(),
                &mut out,
            )
        });
        if let Err(e) = result {
            // The library does not call the deleter when wrapping fails.
            // SAFETY: buffer and box are still ours, as leaked above.
            unsafe {
                drop(Box::from_raw(deleter_ctx));
                drop(Vec::from_raw_parts(base, len, cap));
            }
            return Err(e);
        }
        // SAFETY: a new, owned handle.
        Ok(unsafe { Tensor::from_raw(out) })
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        // SAFETY: we own the handle and free it once.
        unsafe { sys::bc_tensor_free(self.ptr.as_ptr()) }
    }
}

impl Deref for Tensor {
    type Target = TensorRef;
    fn deref(&self) -> &TensorRef {
        // SAFETY: a live handle owned by self.
        unsafe { TensorRef::from_ptr(self.ptr.as_ptr()) }
    }
}

impl DerefMut for Tensor {
    fn deref_mut(&mut self) -> &mut TensorRef {
        // SAFETY: a live handle owned by self, exclusively borrowed.
        unsafe { TensorRef::from_ptr_mut(self.ptr.as_ptr()) }
    }
}

impl AsRef<TensorRef> for Tensor {
    fn as_ref(&self) -> &TensorRef {
        self
    }
}

impl Borrow<TensorRef> for Tensor {
    fn borrow(&self) -> &TensorRef {
        self
    }
}

impl Clone for Tensor {
    /// A deep, contiguous copy; panics if memory runs out.
    fn clone(&self) -> Tensor {
        (**self).to_owned()
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: Element> From<Vec<T>> for Tensor {
    /// A 1-D tensor over the vector's buffer (no copy).
    fn from(v: Vec<T>) -> Tensor {
        let n = v.len() as i64;
        Tensor::from_vec(v, &[n]).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl<T: Element> From<&[T]> for Tensor {
    /// A 1-D tensor with a copy of the slice.
    fn from(v: &[T]) -> Tensor {
        Tensor::from_slice(v, &[v.len() as i64]).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// A read-only tensor over memory borrowed for `'a`: a caller's slice
/// ([`TensorView::from_slice`]) or another tensor ([`TensorRef::view`],
/// [`TensorRef::expand`], [`broadcast_tensors`](crate::broadcast_tensors)).
/// It cannot be written: it does not dereference mutably.
///
/// The borrow checker holds the rules the C library states. A view cannot
/// outlive what it borrows:
///
/// ```compile_fail
/// let v;
/// {
///     let data = vec![1.0f32, 2.0];
///     v = bcast::TensorView::from_slice(&data, &[2]).unwrap();
/// }
/// println!("{:?}", v.shape());
/// ```
///
/// It cannot be written:
///
/// ```compile_fail
/// let data = [1.0f32, 2.0];
/// let mut v = bcast::TensorView::from_slice(&data, &[2]).unwrap();
/// v.add_(1.0f32).unwrap();
/// ```
///
/// And the tensor it views cannot be written while it lives:
///
/// ```compile_fail
/// let mut t = bcast::Tensor::zeros(bcast::DType::Float32, &[2]).unwrap();
/// let v = t.expand(&[3, 2]).unwrap();
/// t.add_(1.0f32).unwrap();
/// drop(v);
/// ```
pub struct TensorView<'a> {
    ptr: NonNull<sys::bc_tensor>,
    _borrow: PhantomData<&'a [u8]>,
}

// SAFETY: Send and Sync — a TensorView is a shared borrow of memory, like
// `&'a [T]` for an element type T that is Sync; its handle only reaches the
// library as `const bc_tensor*` (usable from many threads), and freeing it
// from another thread is fine (atomic reference counts, no thread affinity).
unsafe impl Send for TensorView<'_> {}
// SAFETY: see above.
unsafe impl Sync for TensorView<'_> {}

impl<'a> TensorView<'a> {
    /// Takes ownership of a raw handle whose memory is borrowed for `'a`.
    ///
    /// # Safety
    /// `ptr` must be a live handle that nothing else frees, over memory that
    /// nothing writes during `'a`.
    pub unsafe fn from_raw(ptr: *mut sys::bc_tensor) -> TensorView<'a> {
        TensorView {
            ptr: NonNull::new(ptr).expect("NULL bc_tensor handle"),
            _borrow: PhantomData,
        }
    }

    /// Wraps `data` (row-major, exactly as many elements as `shape`) without
    /// copying.
    ///
    /// ```
    /// let data = [1i64, 2, 3];
    /// let v = bcast::TensorView::from_slice(&data, &[3, 1])?;
    /// let sum = v.add(&v)?; // broadcasting a view with itself is fine
    /// assert_eq!(sum.to_vec::<i64>()?, [2, 4, 6]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn from_slice<T: Element>(data: &'a [T], shape: impl Dims) -> Result<TensorView<'a>> {
        let shape = &shape.dims()?[..];
        check_len(data.len(), shape)?;
        // SAFETY: a read-only wrap of memory borrowed for 'a; a TensorView is
        // never written through.
        unsafe {
            wrap(data.as_ptr() as *mut T, data.len(), shape, None).map(|p| TensorView::from_raw(p))
        }
    }

    /// Wraps `data` with explicit element strides (non-negative; 0 repeats an
    /// element). Every element must lie inside `data` (else
    /// [`ErrorCode::OutOfBounds`]).
    ///
    /// ```
    /// let data = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    /// let t = bcast::TensorView::from_slice_strided(&data, &[3, 2], &[1, 3])?; // a transpose
    /// assert_eq!(t.to_vec::<f32>()?, [1., 4., 2., 5., 3., 6.]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn from_slice_strided<T: Element>(
        data: &'a [T],
        shape: &[i64],
        strides: &[i64],
    ) -> Result<TensorView<'a>> {
        check_strides(shape, strides)?;
        // SAFETY: as in from_slice; the library checks the bounds.
        unsafe {
            wrap(data.as_ptr() as *mut T, data.len(), shape, Some(strides))
                .map(|p| TensorView::from_raw(p))
        }
    }
}

impl Drop for TensorView<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the handle and free it once.
        unsafe { sys::bc_tensor_free(self.ptr.as_ptr()) }
    }
}

impl Deref for TensorView<'_> {
    type Target = TensorRef;
    fn deref(&self) -> &TensorRef {
        // SAFETY: a live handle owned by self.
        unsafe { TensorRef::from_ptr(self.ptr.as_ptr()) }
    }
}

impl AsRef<TensorRef> for TensorView<'_> {
    fn as_ref(&self) -> &TensorRef {
        self
    }
}

impl Clone for TensorView<'_> {
    /// Another handle over the same memory; panics if memory runs out.
    fn clone(&self) -> Self {
        let v = self.view().unwrap_or_else(|e| panic!("{e}"));
        let v = ManuallyDrop::new(v);
        TensorView {
            ptr: v.ptr,
            _borrow: PhantomData,
        }
    }
}

impl fmt::Debug for TensorView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// A writable tensor over a caller's slice borrowed mutably for `'a`:
/// in-place and `_out` ops write straight into the slice.
/// The slice cannot be touched while the tensor lives:
///
/// ```compile_fail
/// let mut data = [1.0f32, 2.0];
/// let mut t = bcast::TensorViewMut::from_slice(&mut data, &[2]).unwrap();
/// println!("{}", data[0]);
/// t.mul_(2.0f32).unwrap();
/// ```
///
///
/// ```
/// let mut data = [1.0f32, 2.0, 3.0, 4.0];
/// {
///     let mut t = bcast::TensorViewMut::from_slice(&mut data, &[2, 2])?;
///     t.mul_(10.0)?;
/// }
/// assert_eq!(data, [10.0, 20.0, 30.0, 40.0]);
/// # Ok::<(), bcast::Error>(())
/// ```
pub struct TensorViewMut<'a> {
    ptr: NonNull<sys::bc_tensor>,
    _borrow: PhantomData<&'a mut [u8]>,
}

// SAFETY: Send and Sync — an exclusive borrow, like `&'a mut [T]`: it may move
// to another thread, and `&TensorViewMut` only allows reads (see TensorRef).
unsafe impl Send for TensorViewMut<'_> {}
// SAFETY: see above.
unsafe impl Sync for TensorViewMut<'_> {}

impl<'a> TensorViewMut<'a> {
    /// Wraps `data` (row-major, exactly as many elements as `shape`) without
    /// copying.
    pub fn from_slice<T: Element>(
        data: &'a mut [T],
        shape: impl Dims,
    ) -> Result<TensorViewMut<'a>> {
        let shape = &shape.dims()?[..];
        check_len(data.len(), shape)?;
        // SAFETY: memory exclusively borrowed for 'a, so writes through the
        // handle race with nothing.
        unsafe {
            wrap(data.as_mut_ptr(), data.len(), shape, None).map(|p| TensorViewMut::from_raw(p))
        }
    }

    /// Wraps `data` with explicit element strides (non-negative). A stride of
    /// 0 on a dimension longer than 1 makes a tensor that every write refuses
    /// ([`ErrorCode::Overlap`]).
    pub fn from_slice_strided<T: Element>(
        data: &'a mut [T],
        shape: &[i64],
        strides: &[i64],
    ) -> Result<TensorViewMut<'a>> {
        check_strides(shape, strides)?;
        // SAFETY: as in from_slice; the library checks the bounds.
        unsafe {
            wrap(data.as_mut_ptr(), data.len(), shape, Some(strides))
                .map(|p| TensorViewMut::from_raw(p))
        }
    }

    /// Takes ownership of a raw handle over memory exclusively borrowed for `'a`.
    ///
    /// # Safety
    /// `ptr` must be a live handle that nothing else frees, over memory that
    /// nothing else reads or writes during `'a`.
    pub unsafe fn from_raw(ptr: *mut sys::bc_tensor) -> TensorViewMut<'a> {
        TensorViewMut {
            ptr: NonNull::new(ptr).expect("NULL bc_tensor handle"),
            _borrow: PhantomData,
        }
    }
}

impl Drop for TensorViewMut<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the handle and free it once.
        unsafe { sys::bc_tensor_free(self.ptr.as_ptr()) }
    }
}

impl Deref for TensorViewMut<'_> {
    type Target = TensorRef;
    fn deref(&self) -> &TensorRef {
        // SAFETY: a live handle owned by self.
        unsafe { TensorRef::from_ptr(self.ptr.as_ptr()) }
    }
}

impl DerefMut for TensorViewMut<'_> {
    fn deref_mut(&mut self) -> &mut TensorRef {
        // SAFETY: a live handle owned by self, exclusively borrowed.
        unsafe { TensorRef::from_ptr_mut(self.ptr.as_ptr()) }
    }
}

impl AsRef<TensorRef> for TensorViewMut<'_> {
    fn as_ref(&self) -> &TensorRef {
        self
    }
}

impl fmt::Debug for TensorViewMut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

fn check_strides(shape: &[i64], strides: &[i64]) -> Result<()> {
    if shape.len() != strides.len() {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("shape {shape:?} and strides {strides:?} differ in length"),
        ));
    }
    Ok(())
}

/// Wraps `len` elements at `data` without a deleter.
///
/// # Safety
/// `data` must be valid for `len` elements for as long as the handle lives,
/// and the caller's wrapper type must enforce the right aliasing rules.
pub(crate) unsafe fn wrap<T: Element>(
    data: *mut T,
    len: usize,
    shape: &[i64],
    strides: Option<&[i64]>,
) -> Result<*mut sys::bc_tensor> {
    // SAFETY: len elements of T are len * size_of::<T>() bytes, aligned for T's dtype.
    unsafe {
        wrap_raw(
            T::DTYPE,
            data.cast(),
            len * std::mem::size_of::<T>(),
            shape,
            strides,
        )
    }
}

/// # Safety
/// As [`wrap`], with `nbytes` bytes at `data`, aligned for `dtype`.
pub(crate) unsafe fn wrap_raw(
    dtype: DType,
    data: *mut c_void,
    nbytes: usize,
    shape: &[i64],
    strides: Option<&[i64]>,
) -> Result<*mut sys::bc_tensor> {
    let mut out = ptr::null_mut();
    // SAFETY: shape/strides hold shape.len() values; the buffer is the
    // caller's promise; no deleter, so the memory stays the caller's.
    call(|ctx| unsafe {
        sys::bc_ctx_tensor_wrap(
            ctx,
            dtype.raw(),
            shape.as_ptr(),
            strides.map_or(ptr::null(), <[i64]>::as_ptr),
            shape.len(),
            data,
            nbytes,
            None,
            ptr::null_mut(),
            &mut out,
        )
    })?;
    Ok(out)
}
