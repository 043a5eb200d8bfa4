//! Conversions to and from `ndarray` (feature `ndarray`). Both sides count
//! strides in elements, so any layout with non-negative strides converts
//! without copying; negative strides (reversed axes) are copied into an owned
//! tensor, and cannot be wrapped as a view.

use ndarray::{
    Array, ArrayBase, ArrayD, ArrayViewD, ArrayViewMutD, Data, DataMut, Dimension, IxDyn,
    ShapeBuilder,
};

use crate::dtype::Element;
use crate::error::{Error, ErrorCode, Result};
use crate::shapes::to_usize_shape;
use crate::tensor::{wrap, Tensor, TensorRef, TensorView, TensorViewMut};

fn shape_strides(shape: &[usize], strides: &[isize]) -> Result<(Vec<i64>, Vec<i64>)> {
    let shape = shape.iter().map(|&d| d as i64).collect();
    let strides = strides
        .iter()
        .map(|&s| {
            if s < 0 {
                Err(Error::new(
                    ErrorCode::InvalidArgument,
                    "an array with negative strides cannot be wrapped without a copy",
                ))
            } else {
                Ok(s as i64)
            }
        })
        .collect::<Result<_>>()?;
    Ok((shape, strides))
}

/// Elements spanned from the first element: 1 + the largest offset (0 if empty).
fn span(shape: &[usize], strides: &[isize]) -> usize {
    if shape.contains(&0) {
        return 0;
    }
    1 + shape
        .iter()
        .zip(strides)
        .map(|(&d, &s)| (d - 1) * s.unsigned_abs())
        .sum::<usize>()
}

/// True if no two indices reach the same element.
fn non_overlapping(shape: &[i64], strides: &[i64]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut dims: Vec<(i64, i64)> = shape
        .iter()
        .zip(strides)
        .filter(|(&d, _)| d > 1)
        .map(|(&d, &s)| (s, d))
        .collect();
    dims.sort_unstable();
    let mut extent = 0i64; // largest offset reachable with the dims so far
    for (stride, size) in dims {
        if stride <= extent {
            return false;
        }
        extent += (size - 1) * stride;
    }
    true
}

impl TensorRef {
    fn ndarray_layout<T: Element>(&self) -> Result<(IxDyn, IxDyn)> {
        if self.dtype() != T::DTYPE {
            return Err(Error::new(
                ErrorCode::Dtype,
                format!(
                    "expected a tensor of dtype {} but got {}",
                    T::DTYPE.describe(),
                    self.dtype().describe()
                ),
            ));
        }
        let shape = to_usize_shape(self.shape())?;
        // The library refuses negative strides, so these convert losslessly.
        let strides = to_usize_shape(self.strides())?;
        Ok((IxDyn(&shape), IxDyn(&strides)))
    }

    /// A zero-copy `ndarray` view of the elements (any strides, including the
    /// 0 strides of an expanded tensor). `T` must be the dtype's type.
    ///
    /// ```
    /// use bcast::Tensor;
    /// let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3, 1])?;
    /// let e = t.expand(&[3, 2])?;
    /// let a = e.as_array::<f32>()?;
    /// assert_eq!(a, ndarray::array![[1.0f32, 1.0], [2.0, 2.0], [3.0, 3.0]].into_dyn());
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn as_array<T: Element>(&self) -> Result<ArrayViewD<'_, T>> {
        let (shape, strides) = self.ndarray_layout::<T>()?;
        if self.numel() == 0 {
            return Ok(ArrayViewD::from_shape(shape, &[]).expect("empty shape"));
        }
        // SAFETY: the library guarantees every element lies in the tensor's
        // buffer, aligned for T (the dtype's type); strides are non-negative;
        // nothing writes the buffer while `self` is borrowed.
        Ok(unsafe {
            ArrayViewD::from_shape_ptr(shape.strides(strides), self.data_ptr() as *const T)
        })
    }

    /// A zero-copy, writable `ndarray` view. Fails ([`ErrorCode::Overlap`]) if
    /// two indices reach the same element (an expanded or self-overlapping
    /// layout).
    pub fn as_array_mut<T: Element>(&mut self) -> Result<ArrayViewMutD<'_, T>> {
        let (shape, strides) = self.ndarray_layout::<T>()?;
        if !non_overlapping(self.shape(), self.strides()) {
            return Err(Error::new(
                ErrorCode::Overlap,
                "more than one element of the tensor refers to a single memory location",
            ));
        }
        if self.numel() == 0 {
            return Ok(ArrayViewMutD::from_shape(shape, &mut []).expect("empty shape"));
        }
        // SAFETY: as in as_array, plus: indices reach distinct elements
        // (checked above) and `&mut self` makes the access exclusive.
        Ok(unsafe {
            ArrayViewMutD::from_shape_ptr(shape.strides(strides), self.data_ptr() as *mut T)
        })
    }

    /// A row-major copy as an owned `ndarray` array.
    pub fn to_array<T: Element>(&self) -> Result<ArrayD<T>> {
        let shape = to_usize_shape(self.shape())?;
        let v = self.to_vec::<T>()?;
        Ok(ArrayD::from_shape_vec(IxDyn(&shape), v).expect("numel matches shape"))
    }
}

impl Tensor {
    /// A tensor that takes over the array's buffer without copying, whatever
    /// its strides, unless some are negative (then the elements are copied).
    ///
    /// ```
    /// use ndarray::{array, Axis};
    /// let mut a = array![[1i32, 2, 3], [4, 5, 6]];
    /// a.swap_axes(0, 1); // a transpose: strides [1, 3]
    /// let t = bcast::Tensor::from_array(a)?;
    /// assert_eq!((t.shape(), t.strides()), (&[3, 2][..], &[1, 3][..]));
    /// assert_eq!(t.to_vec::<i32>()?, [1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn from_array<T: Element, D: Dimension>(array: Array<T, D>) -> Result<Tensor> {
        let shape_usize = array.shape().to_vec();
        let Ok((shape, strides)) = shape_strides(array.shape(), array.strides()) else {
            let v: Vec<T> = array.iter().copied().collect();
            let shape: Vec<i64> = shape_usize.iter().map(|&d| d as i64).collect();
            return Tensor::from_vec(v, &shape);
        };
        let (v, offset) = array.into_raw_vec_and_offset();
        let offset = offset.unwrap_or(0);
        // SAFETY: ndarray guarantees offset + the strided elements lie inside
        // v; the library checks it again.
        unsafe { Tensor::from_vec_parts(v, offset, &shape, Some(&strides)) }
    }
}

impl<'a> TensorView<'a> {
    /// A read-only tensor over the array's elements, without copying.
    /// Negative strides are refused.
    ///
    /// ```
    /// let a = ndarray::array![[1.0f64, 2.0], [3.0, 4.0]];
    /// let v = bcast::TensorView::from_array(&a)?;
    /// assert_eq!(v.mul(2.0)?.to_vec::<f64>()?, [2.0, 4.0, 6.0, 8.0]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn from_array<T, S, D>(array: &'a ArrayBase<S, D>) -> Result<TensorView<'a>>
    where
        T: Element,
        S: Data<Elem = T>,
        D: Dimension,
    {
        let (shape, strides) = shape_strides(array.shape(), array.strides())?;
        let n = span(array.shape(), array.strides());
        // SAFETY: with non-negative strides, as_ptr() is the lowest element
        // and n elements from it cover the array; it is borrowed for 'a and a
        // TensorView never writes.
        unsafe {
            wrap(array.as_ptr() as *mut T, n, &shape, Some(&strides))
                .map(|p| TensorView::from_raw(p))
        }
    }
}

impl<'a> TensorViewMut<'a> {
    /// A writable tensor over the array's elements, without copying.
    /// Negative strides are refused.
    ///
    /// ```
    /// let mut a = ndarray::Array2::<f32>::ones((2, 3));
    /// bcast::TensorViewMut::from_array(&mut a)?.mul_(4.0)?;
    /// assert_eq!(a.sum(), 24.0);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn from_array<T, S, D>(array: &'a mut ArrayBase<S, D>) -> Result<TensorViewMut<'a>>
    where
        T: Element,
        S: DataMut<Elem = T>,
        D: Dimension,
    {
        let (shape, strides) = shape_strides(array.shape(), array.strides())?;
        let n = span(array.shape(), array.strides());
        // SAFETY: as in TensorView::from_array; the array is exclusively
        // borrowed for 'a (as_mut_ptr also makes shared storage unique).
        unsafe {
            wrap(array.as_mut_ptr(), n, &shape, Some(&strides)).map(|p| TensorViewMut::from_raw(p))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_check() {
        assert!(non_overlapping(&[2, 3], &[3, 1]));
        assert!(non_overlapping(&[3, 2], &[1, 3]));
        assert!(!non_overlapping(&[2, 3], &[0, 1]));
        assert!(!non_overlapping(&[2, 2], &[1, 1]));
        assert!(non_overlapping(&[1, 5], &[0, 1]));
        assert!(non_overlapping(&[0, 5], &[0, 0]));
        assert!(!non_overlapping(&[2, 2, 2], &[4, 2, 3]));
    }
}
