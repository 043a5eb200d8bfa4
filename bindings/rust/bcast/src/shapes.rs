//! Broadcast shapes, zero-copy expansion and its reverse (`sum_to_shape`).

use std::ptr;

use bcast_sys as sys;

use crate::dims::Dims;
use crate::error::{call, Error, ErrorCode, Result};
use crate::tensor::{new_tensor, Tensor, TensorRef, TensorView};

/// The broadcast shape of two shapes (PyTorch's rules).
///
/// ```
/// assert_eq!(bcast::broadcast_shapes(&[5, 1, 4, 1], &[3, 1, 1])?, [5, 3, 4, 1]);
/// let err = bcast::broadcast_shapes(&[5, 2, 4, 1], &[3, 1, 1]).unwrap_err();
/// assert_eq!(
///     err.message,
///     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
/// );
/// # Ok::<(), bcast::Error>(())
/// ```
pub fn broadcast_shapes(a: impl Dims, b: impl Dims) -> Result<Vec<i64>> {
    let (a, b) = (a.dims()?, b.dims()?);
    let mut out = vec![0i64; a.len().max(b.len())];
    let mut n = 0usize;
    // SAFETY: a and b hold their lengths' sizes; out has room for the longer.
    call(|ctx| unsafe {
        sys::bc_ctx_broadcast_shapes(
            ctx,
            a.as_ptr(),
            a.len(),
            b.as_ptr(),
            b.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut n,
        )
    })?;
    out.truncate(n);
    Ok(out)
}

/// The broadcast shape of any number of shapes (`torch.broadcast_shapes`).
///
/// ```
/// assert_eq!(bcast::broadcast_shapes_n(&[&[2, 1], &[3], &[1, 1, 1]])?, [1, 2, 3]);
/// let err = bcast::broadcast_shapes_n(&[&[2], &[3]]).unwrap_err();
/// assert_eq!(
///     err.message,
///     "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 \
///      had (3,); but expected shape should be broadcastable to [2]"
/// );
/// # Ok::<(), bcast::Error>(())
/// ```
pub fn broadcast_shapes_n(shapes: &[&[i64]]) -> Result<Vec<i64>> {
    let ptrs: Vec<*const i64> = shapes.iter().map(|s| s.as_ptr()).collect();
    let ndims: Vec<usize> = shapes.iter().map(|s| s.len()).collect();
    let mut out = vec![0i64; ndims.iter().copied().max().unwrap_or(0)];
    let mut n = 0usize;
    // SAFETY: ptrs[i] holds ndims[i] sizes; out has room for the longest.
    call(|ctx| unsafe {
        sys::bc_ctx_broadcast_shapes_n(
            ctx,
            ptrs.as_ptr(),
            ndims.as_ptr(),
            shapes.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut n,
        )
    })?;
    out.truncate(n);
    Ok(out)
}

/// Expands every tensor to their common shape, without copying; the views
/// borrow the tensors.
///
/// ```
/// use bcast::Tensor;
/// let a = Tensor::from_slice(&[1i32, 2, 3], &[3])?;
/// let b = Tensor::from_slice(&[10i32, 20], &[2, 1])?;
/// let v = bcast::broadcast_tensors(&[&a, &b])?;
/// assert_eq!((v[0].shape(), v[0].strides()), (&[2, 3][..], &[0, 1][..]));
/// assert_eq!(v[1].to_vec::<i32>()?, [10, 10, 10, 20, 20, 20]);
/// # Ok::<(), bcast::Error>(())
/// ```
pub fn broadcast_tensors<'a>(tensors: &[&'a TensorRef]) -> Result<Vec<TensorView<'a>>> {
    let ptrs: Vec<*const sys::bc_tensor> = tensors.iter().map(|t| t.as_ptr()).collect();
    let mut views: Vec<*mut sys::bc_tensor> = vec![ptr::null_mut(); tensors.len()];
    // SAFETY: live handles, and room for one view each.
    call(|ctx| unsafe {
        sys::bc_ctx_broadcast_tensors(
            ctx,
            ptrs.as_ptr(),
            ptrs.len(),
            views.as_mut_ptr(),
            views.len(),
        )
    })?;
    // SAFETY: on success each views[i] is a new handle over tensors[i]'s
    // memory, which stays borrowed (read-only) for 'a.
    Ok(views
        .into_iter()
        .map(|p| unsafe { TensorView::from_raw(p) })
        .collect())
}

impl TensorRef {
    /// A zero-copy view expanded to `shape` (stride 0 on broadcast
    /// dimensions; -1 keeps a size).
    ///
    /// ```
    /// use bcast::Tensor;
    /// let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3, 1])?;
    /// let e = t.expand(&[2, -1, 4])?;
    /// assert_eq!((e.shape(), e.strides()), (&[2, 3, 4][..], &[0, 1, 0][..]));
    /// let err = t.expand(&[2, 4]).unwrap_err();
    /// assert_eq!(
    ///     err.message,
    ///     "The expanded size of the tensor (2) must match the existing size (3) at non-singleton \
    ///      dimension 0.  Target sizes: [2, 4].  Tensor sizes: [3, 1]"
    /// );
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn expand(&self, shape: impl Dims) -> Result<TensorView<'_>> {
        let shape = shape.dims()?;
        let mut out = ptr::null_mut();
        // SAFETY: a live handle; shape holds shape.len() sizes.
        call(|ctx| unsafe {
            sys::bc_ctx_expand(ctx, self.as_ptr(), shape.as_ptr(), shape.len(), &mut out)
        })?;
        // SAFETY: a new handle over self's memory, borrowed read-only.
        Ok(unsafe { TensorView::from_raw(out) })
    }

    /// A view expanded to `other`'s shape (`expand_as`).
    pub fn expand_as(&self, other: &TensorRef) -> Result<TensorView<'_>> {
        self.expand(other.shape())
    }

    /// Sums over broadcast dimensions so that the result has `shape`, which
    /// must broadcast to this tensor's shape (PyTorch's `sum_to_size`, the
    /// gradient of broadcasting). Integers and bool sum to `Int64`.
    ///
    /// ```
    /// use bcast::{DType, Tensor};
    /// let t = Tensor::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let s = t.sum_to_shape(&[1, 3])?;
    /// assert_eq!((s.dtype(), s.to_vec::<i64>()?), (DType::Int64, vec![5, 7, 9]));
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn sum_to_shape(&self, shape: impl Dims) -> Result<Tensor> {
        let shape = shape.dims()?;
        let mut out = ptr::null_mut();
        // SAFETY: a live handle; shape holds shape.len() sizes; valid out.
        let result = call(|ctx| unsafe {
            sys::bc_ctx_sum_to_shape(ctx, self.as_ptr(), shape.as_ptr(), shape.len(), &mut out)
        });
        new_tensor(result, out)
    }

    /// A copy of this tensor materialised at `shape` (expand, then a
    /// contiguous copy).
    pub fn broadcast_to(&self, shape: impl Dims) -> Result<Tensor> {
        self.expand(shape)?.to_tensor()
    }
}

/// Checks that `shape` has no negative size; used by conversions that build
/// shapes on the Rust side.
#[allow(dead_code)]
pub(crate) fn to_usize_shape(shape: &[i64]) -> Result<Vec<usize>> {
    shape
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| {
                Error::new(
                    ErrorCode::InvalidArgument,
                    format!("negative size in {shape:?}"),
                )
            })
        })
        .collect()
}
