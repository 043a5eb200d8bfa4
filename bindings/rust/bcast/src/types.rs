//! Type queries: [`Scalar`] (a number that is not a tensor), [`result_type`]
//! (the dtype an op over tensors and scalars produces) and
//! [`DType::can_cast_to`]; the rules are the C library's (PyTorch's).

use bcast_sys as sys;

use crate::dtype::DType;
use crate::error::{call, Error, ErrorCode, Result};
use crate::tensor::TensorRef;

/// A number that is not a tensor: PyTorch's wrapped Python `bool`, `int` or
/// `float` (`bc_scalar`). In promotion it is weaker than every tensor, 0-dim
/// ones included: it raises only the category (bool < integer < floating),
/// and a float with integer tensors gives `Float32`.
///
/// ```
/// use bcast::Scalar;
/// assert_eq!(Scalar::from(2.5), Scalar::Float(2.5));
/// assert_eq!(Scalar::from(3i32), Scalar::Int(3));
/// assert_eq!(Scalar::from(true), Scalar::Bool(true));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// Python's `bool`.
    Bool(bool),
    /// Python's `int`, within `i64`.
    Int(i64),
    /// Python's `float`.
    Float(f64),
}

impl Scalar {
    /// The C value.
    pub fn raw(self) -> sys::bc_scalar {
        match self {
            Scalar::Bool(b) => {
                // Zero the whole union first, as bc_scalar_bool() does.
                let mut v = sys::bc_scalar_value { i: 0 };
                v.b = b.into();
                sys::bc_scalar {
                    kind: sys::BC_SCALAR_BOOL,
                    v,
                }
            }
            Scalar::Int(i) => sys::bc_scalar {
                kind: sys::BC_SCALAR_INT,
                v: sys::bc_scalar_value { i },
            },
            Scalar::Float(f) => sys::bc_scalar {
                kind: sys::BC_SCALAR_FLOAT,
                v: sys::bc_scalar_value { f },
            },
        }
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Self {
        Scalar::Bool(v)
    }
}

macro_rules! scalar_from {
    ($variant:ident, $as:ty; $($t:ty),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Self {
                Scalar::$variant(<$as>::from(v))
            }
        }
    )*};
}
scalar_from!(Int, i64; u8, i8, i16, u16, i32, u32, i64);
scalar_from!(Float, f64; f32, f64);

/// The dtype PyTorch gives an op over these tensors and scalars
/// (`torch.result_type`, for any number of operands): dimensioned tensors
/// rank above 0-dim tensors, which rank above scalars; a lower rank counts
/// only when its category is higher. Ops with their own rules (true
/// division, comparisons) apply them on top.
///
/// ```
/// use bcast::{DType, Scalar, Tensor};
/// let x = Tensor::from_slice(&[1i32, 2, 3], &[3])?;
/// assert_eq!(bcast::result_type(&[&x], &[Scalar::Float(0.5)])?, DType::Float32);
/// let h = Tensor::zeros(DType::Float16, &[2])?;
/// assert_eq!(bcast::result_type(&[&h], &[2.5.into()])?, DType::Float16);
/// let z = Tensor::scalar(1.0f64)?; // 0-dim float64
/// assert_eq!(bcast::result_type(&[&x, &z], &[])?, DType::Float64);
/// # Ok::<(), bcast::Error>(())
/// ```
///
/// # Errors
/// [`ErrorCode::InvalidArgument`] when there is no operand at all.
pub fn result_type(tensors: &[&TensorRef], scalars: &[Scalar]) -> Result<DType> {
    let ptrs: Vec<*const sys::bc_tensor> = tensors.iter().map(|t| t.as_ptr()).collect();
    let raw: Vec<sys::bc_scalar> = scalars.iter().map(|s| s.raw()).collect();
    let mut out: sys::bc_dtype = 0;
    // SAFETY: ptrs holds live handles, raw valid scalars, both with their
    // lengths; out is a valid place for one dtype. Nothing is kept.
    call(|ctx| unsafe {
        sys::bc_ctx_result_type(
            ctx,
            ptrs.as_ptr(),
            ptrs.len(),
            raw.as_ptr(),
            raw.len(),
            &mut out,
        )
    })?;
    DType::from_raw(out).ok_or_else(|| Error {
        code: ErrorCode::Internal,
        message: format!("bc_result_type returned unknown dtype {out}"),
        detail: Default::default(),
    })
}

impl DType {
    /// Whether a value of this dtype may be written into a tensor of `to`
    /// (`torch.can_cast`): all but floating to integer or bool, and integer
    /// to bool.
    ///
    /// ```
    /// use bcast::DType;
    /// assert!(DType::Int32.can_cast_to(DType::Float16));
    /// assert!(!DType::Float32.can_cast_to(DType::Int64));
    /// ```
    pub fn can_cast_to(self, to: DType) -> bool {
        // SAFETY: any values are accepted; these are valid.
        unsafe { sys::bc_can_cast(self.raw(), to.raw()) != 0 }
    }
}

impl TensorRef {
    /// Whether bcast may write into this tensor: false for one imported
    /// read-only (DLPack's read-only flag) and its views, whose every write
    /// fails with [`ErrorCode::InvalidArgument`].
    pub fn is_writable(&self) -> bool {
        // SAFETY: a live handle.
        unsafe { sys::bc_tensor_is_writable(self.as_ptr()) != 0 }
    }
}
