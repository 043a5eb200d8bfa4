//! Shape arguments: sizes as `i64` (the C library's type, and what
//! [`TensorRef::shape`](crate::TensorRef::shape) returns) or `usize`
//! (ndarray's and candle's, and [`TensorRef::numel`](crate::TensorRef::numel)'s).

use std::borrow::Cow;

use crate::error::{Error, ErrorCode, Result};

mod sealed {
    pub trait Sealed {}
}

/// A shape: a slice, array or `Vec` of sizes as `i64` or `usize` (or `i32`,
/// the type of an array of bare literals such as `&[3, 1]`).
///
/// ```
/// use bcast::{DType, Tensor};
/// let n: usize = 4;
/// let a = Tensor::zeros(DType::Float32, &[n, 2])?; // usize
/// let b = Tensor::zeros(DType::Float32, a.shape())?; // &[i64]
/// let c = Tensor::zeros(DType::Float32, &vec![4usize, 2])?;
/// let d = Tensor::zeros(DType::Float32, &[])?; // 0-dim
/// assert_eq!((a.shape(), c.shape(), d.ndim()), (b.shape(), b.shape(), 0));
/// # Ok::<(), bcast::Error>(())
/// ```
///
/// A `usize` size above `i64::MAX` is [`ErrorCode::Overflow`]; negative
/// sizes reach the library, which refuses them in its own words.
pub trait Dims: sealed::Sealed {
    /// The sizes as the library takes them.
    #[doc(hidden)]
    fn dims(&self) -> Result<Cow<'_, [i64]>>;
}

fn from_usize(sizes: &[usize]) -> Result<Cow<'static, [i64]>> {
    sizes
        .iter()
        .map(|&d| {
            i64::try_from(d).map_err(|_| {
                Error::new(
                    ErrorCode::Overflow,
                    format!("size {d} does not fit in a tensor dimension (at most i64::MAX)"),
                )
            })
        })
        .collect::<Result<Vec<i64>>>()
        .map(Cow::Owned)
}

fn from_i32(sizes: &[i32]) -> Result<Cow<'static, [i64]>> {
    Ok(Cow::Owned(sizes.iter().map(|&d| i64::from(d)).collect()))
}

impl sealed::Sealed for &[i64] {}
impl Dims for &[i64] {
    fn dims(&self) -> Result<Cow<'_, [i64]>> {
        Ok(Cow::Borrowed(self))
    }
}
impl sealed::Sealed for &Vec<i64> {}
impl Dims for &Vec<i64> {
    fn dims(&self) -> Result<Cow<'_, [i64]>> {
        Ok(Cow::Borrowed(self.as_slice()))
    }
}
// Every length for i64, so that `&[]` (a 0-dim shape) has one impl to infer
// its element type from.
impl<const N: usize> sealed::Sealed for &[i64; N] {}
impl<const N: usize> Dims for &[i64; N] {
    fn dims(&self) -> Result<Cow<'_, [i64]>> {
        Ok(Cow::Borrowed(&self[..]))
    }
}

macro_rules! other_sizes {
    ($t:ty, $conv:ident; $($n:literal)*) => {
        impl sealed::Sealed for &[$t] {}
        impl Dims for &[$t] {
            fn dims(&self) -> Result<Cow<'_, [i64]>> {
                $conv(self)
            }
        }
        impl sealed::Sealed for &Vec<$t> {}
        impl Dims for &Vec<$t> {
            fn dims(&self) -> Result<Cow<'_, [i64]>> {
                $conv(self)
            }
        }
        // Lengths from 1 only: `&[]` is i64's (see above).
        $(
            impl sealed::Sealed for &[$t; $n] {}
            impl Dims for &[$t; $n] {
                fn dims(&self) -> Result<Cow<'_, [i64]>> {
                    $conv(&self[..])
                }
            }
        )*
    };
}

other_sizes!(usize, from_usize; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
other_sizes!(i32, from_i32; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
