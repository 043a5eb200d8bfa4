//! Elementwise operations as methods of [`TensorRef`], each in three forms:
//! allocating (`add`), out= (`add_out`, writing into an existing tensor of the
//! broadcast shape) and in place (`add_`, writing into `self`, whose shape may
//! not change).

use std::ptr;

use bcast_sys as sys;

use crate::dtype::{Category, DType, Element, BF16, F16};
use crate::error::{check, static_str, Result};
use crate::tensor::{new_tensor, Tensor, TensorRef, TensorView, TensorViewMut};

/// The binary operations (`bc_op`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
// `as u32` is a no-op where C enums are unsigned, a conversion where they are
// `int` (MSVC).
#[allow(clippy::unnecessary_cast)]
#[repr(u32)]
pub enum BinaryOp {
    /// `a + b`.
    Add = sys::BC_ADD as u32,
    /// `a - b`.
    Sub = sys::BC_SUB as u32,
    /// `a * b`.
    Mul = sys::BC_MUL as u32,
    /// True division; integers give `Float32`.
    Div = sys::BC_DIV as u32,
    /// Division rounded toward zero.
    DivTrunc = sys::BC_DIV_TRUNC as u32,
    /// Division rounded toward -infinity.
    DivFloor = sys::BC_DIV_FLOOR as u32,
    /// Python-style remainder (sign of the divisor).
    Remainder = sys::BC_REMAINDER as u32,
    /// C-style remainder (sign of the dividend).
    Fmod = sys::BC_FMOD as u32,
    /// `a` to the power `b`.
    Pow = sys::BC_POW as u32,
    /// Larger of the two, NaN-propagating.
    Maximum = sys::BC_MAXIMUM as u32,
    /// Smaller of the two, NaN-propagating.
    Minimum = sys::BC_MINIMUM as u32,
    /// Larger of the two, NaN-ignoring.
    Fmax = sys::BC_FMAX as u32,
    /// Smaller of the two, NaN-ignoring.
    Fmin = sys::BC_FMIN as u32,
    /// `atan2(a, b)`.
    Atan2 = sys::BC_ATAN2 as u32,
    /// `sqrt(a² + b²)`.
    Hypot = sys::BC_HYPOT as u32,
    /// Magnitude of `a`, sign of `b`.
    Copysign = sys::BC_COPYSIGN as u32,
    /// `a == b` (gives `Bool`).
    Eq = sys::BC_EQ as u32,
    /// `a != b`.
    Ne = sys::BC_NE as u32,
    /// `a < b`.
    Lt = sys::BC_LT as u32,
    /// `a <= b`.
    Le = sys::BC_LE as u32,
    /// `a > b`.
    Gt = sys::BC_GT as u32,
    /// `a >= b`.
    Ge = sys::BC_GE as u32,
    /// Logical and (nonzero is true; gives `Bool`).
    LogicalAnd = sys::BC_LOGICAL_AND as u32,
    /// Logical or.
    LogicalOr = sys::BC_LOGICAL_OR as u32,
    /// Logical exclusive or.
    LogicalXor = sys::BC_LOGICAL_XOR as u32,
    /// Bitwise and (integers and bool only).
    BitwiseAnd = sys::BC_BITWISE_AND as u32,
    /// Bitwise or.
    BitwiseOr = sys::BC_BITWISE_OR as u32,
    /// Bitwise exclusive or.
    BitwiseXor = sys::BC_BITWISE_XOR as u32,
    /// `a << b`.
    ShiftLeft = sys::BC_SHIFT_LEFT as u32,
    /// `a >> b` (arithmetic for signed types).
    ShiftRight = sys::BC_SHIFT_RIGHT as u32,
}

impl BinaryOp {
    /// Every op, in `bc_op` order.
    pub const ALL: [BinaryOp; sys::BC_OP_COUNT] = {
        use BinaryOp::*;
        [
            Add, Sub, Mul, Div, DivTrunc, DivFloor, Remainder, Fmod, Pow, Maximum, Minimum, Fmax,
            Fmin, Atan2, Hypot, Copysign, Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor,
            BitwiseAnd, BitwiseOr, BitwiseXor, ShiftLeft, ShiftRight,
        ]
    };

    /// The raw `bc_op` value.
    pub fn raw(self) -> sys::bc_op {
        self as u32 as sys::bc_op
    }

    /// The library's name of the op ("add", "div_floor", ...).
    pub fn name(self) -> &'static str {
        // SAFETY: any value is accepted; returns a static string.
        unsafe { static_str(sys::bc_op_name(self.raw())) }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Something usable as an operand: any tensor (owned or borrowed) or a
/// scalar of an [`Element`] type.
///
/// A scalar becomes a 0-dim tensor of the other tensor's dtype, unless its
/// kind is higher (bool < integer < floating), in which case it takes the
/// default dtype of its kind (`Int64` for integers, `Float32` for floats) —
/// the way PyTorch treats a Python number. So `int_tensor + 2` stays an
/// integer tensor and `int_tensor + 2.5` gives `Float32`.
///
/// ```
/// use bcast::{DType, Tensor};
/// let t = Tensor::from_slice(&[1i32, 2, 3], &[3])?;
/// assert_eq!(t.add(2)?.dtype(), DType::Int32);
/// assert_eq!(t.add(2.5)?.to_vec::<f32>()?, [3.5, 4.5, 5.5]);
/// # Ok::<(), bcast::Error>(())
/// ```
pub trait Operand: Sized + sealed::Sealed {
    /// Runs `f` with this operand as a tensor; `like` is the dtype of the
    /// tensor it meets (it decides a scalar's dtype).
    #[doc(hidden)]
    fn with_tensor<R>(self, like: DType, f: impl FnOnce(&TensorRef) -> Result<R>) -> Result<R>;
}

macro_rules! tensor_operand {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Operand for $t {
            fn with_tensor<R>(self, _: DType, f: impl FnOnce(&TensorRef) -> Result<R>) -> Result<R> {
                f(&self)
            }
        }
    )*};
}

tensor_operand!(&TensorRef, &Tensor, &TensorView<'_>, &TensorViewMut<'_>, Tensor, TensorView<'_>, TensorViewMut<'_>);

/// The dtype a scalar of dtype `scalar` takes next to a tensor of dtype `like`.
pub(crate) fn scalar_dtype(scalar: DType, like: DType) -> DType {
    if scalar.category() <= like.category() {
        like
    } else if scalar.category() == Category::Floating {
        DType::Float32
    } else {
        DType::Int64
    }
}

pub(crate) fn scalar_tensor<T: Element>(value: T, like: DType) -> Result<Tensor> {
    let s = Tensor::scalar(value)?;
    let target = scalar_dtype(T::DTYPE, like);
    if target == T::DTYPE {
        Ok(s)
    } else {
        s.to_dtype(target)
    }
}

macro_rules! scalar_operand {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Operand for $t {
            fn with_tensor<R>(self, like: DType, f: impl FnOnce(&TensorRef) -> Result<R>) -> Result<R> {
                let t = scalar_tensor(self, like)?;
                f(&t)
            }
        }
    )*};
}

scalar_operand!(bool, u8, i8, i16, i32, i64, F16, BF16, f32, f64);

fn out_ptr() -> *mut sys::bc_tensor {
    ptr::null_mut()
}

impl TensorRef {
    /// `op(self, other)` in a new tensor of the broadcast shape and promoted dtype.
    pub fn binary(&self, op: BinaryOp, other: impl Operand) -> Result<Tensor> {
        other.with_tensor(self.dtype(), |o| {
            let mut out = out_ptr();
            // SAFETY: live handles and a valid out pointer.
            let status = unsafe { sys::bc_binary(op.raw(), self.as_ptr(), o.as_ptr(), &mut out) };
            new_tensor(status, out)
        })
    }

    /// Writes `op(self, other)` into `out`, which must have the broadcast
    /// shape and a dtype the result can be cast to.
    pub fn binary_out(&self, op: BinaryOp, other: impl Operand, out: &mut TensorRef) -> Result<()> {
        other.with_tensor(self.dtype(), |o| {
            // SAFETY: live handles; `out` is exclusively borrowed.
            check(unsafe { sys::bc_binary_out(op.raw(), self.as_ptr(), o.as_ptr(), out.as_mut_ptr()) })
        })
    }

    /// `self = op(self, other)`; `other` must broadcast to `self`'s shape.
    pub fn binary_(&mut self, op: BinaryOp, other: impl Operand) -> Result<()> {
        other.with_tensor(self.dtype(), |o| {
            // SAFETY: live handles; `self` is exclusively borrowed.
            check(unsafe { sys::bc_binary_(op.raw(), self.as_mut_ptr(), o.as_ptr()) })
        })
    }

    /// `self + alpha * other` ([`BinaryOp::Add`]) or `self - alpha * other`
    /// ([`BinaryOp::Sub`]); other ops are [`ErrorCode::InvalidArgument`](crate::ErrorCode).
    pub fn binary_alpha(&self, op: BinaryOp, other: impl Operand, alpha: f64) -> Result<Tensor> {
        other.with_tensor(self.dtype(), |o| {
            let mut out = out_ptr();
            // SAFETY: live handles and a valid out pointer.
            let status = unsafe { sys::bc_binary_alpha(op.raw(), self.as_ptr(), o.as_ptr(), alpha, &mut out) };
            new_tensor(status, out)
        })
    }

    /// out= form of [`TensorRef::binary_alpha`].
    pub fn binary_alpha_out(&self, op: BinaryOp, other: impl Operand, alpha: f64, out: &mut TensorRef) -> Result<()> {
        other.with_tensor(self.dtype(), |o| {
            // SAFETY: live handles; `out` is exclusively borrowed.
            check(unsafe { sys::bc_binary_alpha_out(op.raw(), self.as_ptr(), o.as_ptr(), alpha, out.as_mut_ptr()) })
        })
    }

    /// In-place form of [`TensorRef::binary_alpha`].
    pub fn binary_alpha_(&mut self, op: BinaryOp, other: impl Operand, alpha: f64) -> Result<()> {
        other.with_tensor(self.dtype(), |o| {
            // SAFETY: live handles; `self` is exclusively borrowed.
            check(unsafe { sys::bc_binary_alpha_(op.raw(), self.as_mut_ptr(), o.as_ptr(), alpha) })
        })
    }

    /// `self + alpha * other` (PyTorch's `add(other, alpha=...)`).
    ///
    /// ```
    /// let a = bcast::Tensor::from_slice(&[1.0f64, 2.0], &[2])?;
    /// assert_eq!(a.add_scaled(&a, 10.0)?.to_vec::<f64>()?, [11.0, 22.0]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn add_scaled(&self, other: impl Operand, alpha: f64) -> Result<Tensor> {
        self.binary_alpha(BinaryOp::Add, other, alpha)
    }
    /// out= form of [`TensorRef::add_scaled`].
    pub fn add_scaled_out(&self, other: impl Operand, alpha: f64, out: &mut TensorRef) -> Result<()> {
        self.binary_alpha_out(BinaryOp::Add, other, alpha, out)
    }
    /// In-place form of [`TensorRef::add_scaled`].
    pub fn add_scaled_(&mut self, other: impl Operand, alpha: f64) -> Result<()> {
        self.binary_alpha_(BinaryOp::Add, other, alpha)
    }
    /// `self - alpha * other` (PyTorch's `sub(other, alpha=...)`).
    pub fn sub_scaled(&self, other: impl Operand, alpha: f64) -> Result<Tensor> {
        self.binary_alpha(BinaryOp::Sub, other, alpha)
    }
    /// out= form of [`TensorRef::sub_scaled`].
    pub fn sub_scaled_out(&self, other: impl Operand, alpha: f64, out: &mut TensorRef) -> Result<()> {
        self.binary_alpha_out(BinaryOp::Sub, other, alpha, out)
    }
    /// In-place form of [`TensorRef::sub_scaled`].
    pub fn sub_scaled_(&mut self, other: impl Operand, alpha: f64) -> Result<()> {
        self.binary_alpha_(BinaryOp::Sub, other, alpha)
    }
}

macro_rules! binary_methods {
    ($($op:ident: $name:ident, $out:ident, $inplace:ident;)*) => {
        impl TensorRef {$(
            #[doc = concat!("[`BinaryOp::", stringify!($op), "`] of `self` and `other`, in a new tensor.")]
            pub fn $name(&self, other: impl Operand) -> Result<Tensor> {
                self.binary(BinaryOp::$op, other)
            }
            #[doc = concat!("out= form of [`TensorRef::", stringify!($name), "`].")]
            pub fn $out(&self, other: impl Operand, out: &mut TensorRef) -> Result<()> {
                self.binary_out(BinaryOp::$op, other, out)
            }
            #[doc = concat!("In-place form of [`TensorRef::", stringify!($name), "`].")]
            pub fn $inplace(&mut self, other: impl Operand) -> Result<()> {
                self.binary_(BinaryOp::$op, other)
            }
        )*}
    };
}

binary_methods! {
    Add: add, add_out, add_;
    Sub: sub, sub_out, sub_;
    Mul: mul, mul_out, mul_;
    Div: div, div_out, div_;
    DivTrunc: div_trunc, div_trunc_out, div_trunc_;
    DivFloor: div_floor, div_floor_out, div_floor_;
    Remainder: remainder, remainder_out, remainder_;
    Fmod: fmod, fmod_out, fmod_;
    Pow: pow, pow_out, pow_;
    Maximum: maximum, maximum_out, maximum_;
    Minimum: minimum, minimum_out, minimum_;
    Fmax: fmax, fmax_out, fmax_;
    Fmin: fmin, fmin_out, fmin_;
    Atan2: atan2, atan2_out, atan2_;
    Hypot: hypot, hypot_out, hypot_;
    Copysign: copysign, copysign_out, copysign_;
    Eq: eq, eq_out, eq_;
    Ne: ne, ne_out, ne_;
    Lt: lt, lt_out, lt_;
    Le: le, le_out, le_;
    Gt: gt, gt_out, gt_;
    Ge: ge, ge_out, ge_;
    LogicalAnd: logical_and, logical_and_out, logical_and_;
    LogicalOr: logical_or, logical_or_out, logical_or_;
    LogicalXor: logical_xor, logical_xor_out, logical_xor_;
    BitwiseAnd: bitwise_and, bitwise_and_out, bitwise_and_;
    BitwiseOr: bitwise_or, bitwise_or_out, bitwise_or_;
    BitwiseXor: bitwise_xor, bitwise_xor_out, bitwise_xor_;
    ShiftLeft: shift_left, shift_left_out, shift_left_;
    ShiftRight: shift_right, shift_right_out, shift_right_;
}

impl TensorRef {
    /// `where(cond, self, other)`: `self`'s element where `cond` (a `Bool`
    /// tensor) is true, else `other`'s; all three broadcast together.
    ///
    /// ```
    /// use bcast::Tensor;
    /// let cond = Tensor::from_slice(&[true, false, true], &[3])?;
    /// let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    /// assert_eq!(a.where_cond(&cond, 0.0)?.to_vec::<f32>()?, [1.0, 0.0, 3.0]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn where_cond(&self, cond: impl Operand, other: impl Operand) -> Result<Tensor> {
        let like = self.dtype();
        cond.with_tensor(DType::Bool, |c| {
            other.with_tensor(like, |o| {
                let mut out = out_ptr();
                // SAFETY: live handles and a valid out pointer.
                let status = unsafe { sys::bc_where(c.as_ptr(), self.as_ptr(), o.as_ptr(), &mut out) };
                new_tensor(status, out)
            })
        })
    }

    /// out= form of [`TensorRef::where_cond`].
    pub fn where_cond_out(&self, cond: impl Operand, other: impl Operand, out: &mut TensorRef) -> Result<()> {
        let like = self.dtype();
        cond.with_tensor(DType::Bool, |c| {
            other.with_tensor(like, |o| {
                // SAFETY: live handles; `out` is exclusively borrowed.
                check(unsafe { sys::bc_where_out(c.as_ptr(), self.as_ptr(), o.as_ptr(), out.as_mut_ptr()) })
            })
        })
    }

    /// In place: `self = where(cond, self, other)`.
    pub fn where_cond_(&mut self, cond: impl Operand, other: impl Operand) -> Result<()> {
        let like = self.dtype();
        cond.with_tensor(DType::Bool, |c| {
            other.with_tensor(like, |o| {
                // SAFETY: live handles; `self` is exclusively borrowed.
                check(unsafe { sys::bc_where_(self.as_mut_ptr(), c.as_ptr(), o.as_ptr()) })
            })
        })
    }

    /// `self + value * t1 * t2`.
    ///
    /// ```
    /// use bcast::Tensor;
    /// let s = Tensor::from_slice(&[1.0f32, 1.0], &[2, 1])?;
    /// let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    /// let r = s.addcmul(&t, &t, 0.5)?;
    /// assert_eq!(r.shape(), &[2, 3]);
    /// assert_eq!(r.to_vec::<f32>()?, [1.5, 3.0, 5.5, 1.5, 3.0, 5.5]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn addcmul(&self, t1: impl Operand, t2: impl Operand, value: f64) -> Result<Tensor> {
        self.ternary_value(sys::bc_addcmul, t1, t2, value)
    }
    /// out= form of [`TensorRef::addcmul`].
    pub fn addcmul_out(&self, t1: impl Operand, t2: impl Operand, value: f64, out: &mut TensorRef) -> Result<()> {
        self.ternary_value_out(sys::bc_addcmul_out, t1, t2, value, out)
    }
    /// In-place form of [`TensorRef::addcmul`].
    pub fn addcmul_(&mut self, t1: impl Operand, t2: impl Operand, value: f64) -> Result<()> {
        self.ternary_value_(sys::bc_addcmul_, t1, t2, value)
    }
    /// `self + value * t1 / t2` (integer `t1` and `t2` are refused, as in PyTorch).
    pub fn addcdiv(&self, t1: impl Operand, t2: impl Operand, value: f64) -> Result<Tensor> {
        self.ternary_value(sys::bc_addcdiv, t1, t2, value)
    }
    /// out= form of [`TensorRef::addcdiv`].
    pub fn addcdiv_out(&self, t1: impl Operand, t2: impl Operand, value: f64, out: &mut TensorRef) -> Result<()> {
        self.ternary_value_out(sys::bc_addcdiv_out, t1, t2, value, out)
    }
    /// In-place form of [`TensorRef::addcdiv`].
    pub fn addcdiv_(&mut self, t1: impl Operand, t2: impl Operand, value: f64) -> Result<()> {
        self.ternary_value_(sys::bc_addcdiv_, t1, t2, value)
    }

    fn ternary_value(
        &self,
        f: unsafe extern "C" fn(*const sys::bc_tensor, *const sys::bc_tensor, *const sys::bc_tensor, f64, *mut *mut sys::bc_tensor) -> sys::bc_status,
        t1: impl Operand,
        t2: impl Operand,
        value: f64,
    ) -> Result<Tensor> {
        let like = self.dtype();
        t1.with_tensor(like, |a| {
            t2.with_tensor(like, |b| {
                let mut out = out_ptr();
                // SAFETY: f is one of the library's allocating ternary ops;
                // live handles and a valid out pointer.
                let status = unsafe { f(self.as_ptr(), a.as_ptr(), b.as_ptr(), value, &mut out) };
                new_tensor(status, out)
            })
        })
    }

    fn ternary_value_out(
        &self,
        f: unsafe extern "C" fn(*const sys::bc_tensor, *const sys::bc_tensor, *const sys::bc_tensor, f64, *mut sys::bc_tensor) -> sys::bc_status,
        t1: impl Operand,
        t2: impl Operand,
        value: f64,
        out: &mut TensorRef,
    ) -> Result<()> {
        let like = self.dtype();
        t1.with_tensor(like, |a| {
            t2.with_tensor(like, |b| {
                // SAFETY: f is one of the library's out= ternary ops; live
                // handles; `out` is exclusively borrowed.
                check(unsafe { f(self.as_ptr(), a.as_ptr(), b.as_ptr(), value, out.as_mut_ptr()) })
            })
        })
    }

    fn ternary_value_(
        &mut self,
        f: unsafe extern "C" fn(*mut sys::bc_tensor, *const sys::bc_tensor, *const sys::bc_tensor, f64) -> sys::bc_status,
        t1: impl Operand,
        t2: impl Operand,
        value: f64,
    ) -> Result<()> {
        let like = self.dtype();
        t1.with_tensor(like, |a| {
            t2.with_tensor(like, |b| {
                // SAFETY: f is one of the library's in-place ternary ops; live
                // handles; `self` is exclusively borrowed.
                check(unsafe { f(self.as_mut_ptr(), a.as_ptr(), b.as_ptr(), value) })
            })
        })
    }

    /// `self + weight * (end - self)`; floating dtypes only, all the same.
    ///
    /// ```
    /// use bcast::Tensor;
    /// let a = Tensor::from_slice(&[0.0f64, 10.0], &[2])?;
    /// let b = Tensor::from_slice(&[10.0f64, 20.0], &[2])?;
    /// assert_eq!(a.lerp(&b, 0.25)?.to_vec::<f64>()?, [2.5, 12.5]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn lerp(&self, end: impl Operand, weight: impl Operand) -> Result<Tensor> {
        let like = self.dtype();
        end.with_tensor(like, |e| {
            weight.with_tensor(like, |w| {
                let mut out = out_ptr();
                // SAFETY: live handles and a valid out pointer.
                let status = unsafe { sys::bc_lerp(self.as_ptr(), e.as_ptr(), w.as_ptr(), &mut out) };
                new_tensor(status, out)
            })
        })
    }

    /// out= form of [`TensorRef::lerp`].
    pub fn lerp_out(&self, end: impl Operand, weight: impl Operand, out: &mut TensorRef) -> Result<()> {
        let like = self.dtype();
        end.with_tensor(like, |e| {
            weight.with_tensor(like, |w| {
                // SAFETY: live handles; `out` is exclusively borrowed.
                check(unsafe { sys::bc_lerp_out(self.as_ptr(), e.as_ptr(), w.as_ptr(), out.as_mut_ptr()) })
            })
        })
    }

    /// In-place form of [`TensorRef::lerp`].
    pub fn lerp_(&mut self, end: impl Operand, weight: impl Operand) -> Result<()> {
        let like = self.dtype();
        end.with_tensor(like, |e| {
            weight.with_tensor(like, |w| {
                // SAFETY: live handles; `self` is exclusively borrowed.
                check(unsafe { sys::bc_lerp_(self.as_mut_ptr(), e.as_ptr(), w.as_ptr()) })
            })
        })
    }

    /// `min(max(self, lo), hi)`, NaN-propagating, all three broadcast together.
    ///
    /// ```
    /// use bcast::Tensor;
    /// let x = Tensor::from_slice(&[-5i32, 0, 5], &[3])?;
    /// let hi = Tensor::from_slice(&[1i32, 2], &[2, 1])?;
    /// let r = x.clamp(-1, &hi)?;
    /// assert_eq!(r.shape(), &[2, 3]);
    /// assert_eq!(r.to_vec::<i32>()?, [-1, 0, 1, -1, 0, 2]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    pub fn clamp(&self, lo: impl Operand, hi: impl Operand) -> Result<Tensor> {
        let like = self.dtype();
        lo.with_tensor(like, |l| hi.with_tensor(like, |h| self.clamp_raw(l.as_ptr(), h.as_ptr())))
    }
    /// out= form of [`TensorRef::clamp`].
    pub fn clamp_out(&self, lo: impl Operand, hi: impl Operand, out: &mut TensorRef) -> Result<()> {
        let like = self.dtype();
        lo.with_tensor(like, |l| hi.with_tensor(like, |h| self.clamp_raw_out(l.as_ptr(), h.as_ptr(), out)))
    }
    /// In-place form of [`TensorRef::clamp`].
    pub fn clamp_(&mut self, lo: impl Operand, hi: impl Operand) -> Result<()> {
        let like = self.dtype();
        lo.with_tensor(like, |l| hi.with_tensor(like, |h| self.clamp_raw_(l.as_ptr(), h.as_ptr())))
    }
    /// `max(self, lo)` (clamp with no upper bound).
    pub fn clamp_min(&self, lo: impl Operand) -> Result<Tensor> {
        lo.with_tensor(self.dtype(), |l| self.clamp_raw(l.as_ptr(), ptr::null()))
    }
    /// out= form of [`TensorRef::clamp_min`].
    pub fn clamp_min_out(&self, lo: impl Operand, out: &mut TensorRef) -> Result<()> {
        lo.with_tensor(self.dtype(), |l| self.clamp_raw_out(l.as_ptr(), ptr::null(), out))
    }
    /// In-place form of [`TensorRef::clamp_min`].
    pub fn clamp_min_(&mut self, lo: impl Operand) -> Result<()> {
        lo.with_tensor(self.dtype(), |l| self.clamp_raw_(l.as_ptr(), ptr::null()))
    }
    /// `min(self, hi)` (clamp with no lower bound).
    pub fn clamp_max(&self, hi: impl Operand) -> Result<Tensor> {
        hi.with_tensor(self.dtype(), |h| self.clamp_raw(ptr::null(), h.as_ptr()))
    }
    /// out= form of [`TensorRef::clamp_max`].
    pub fn clamp_max_out(&self, hi: impl Operand, out: &mut TensorRef) -> Result<()> {
        hi.with_tensor(self.dtype(), |h| self.clamp_raw_out(ptr::null(), h.as_ptr(), out))
    }
    /// In-place form of [`TensorRef::clamp_max`].
    pub fn clamp_max_(&mut self, hi: impl Operand) -> Result<()> {
        hi.with_tensor(self.dtype(), |h| self.clamp_raw_(ptr::null(), h.as_ptr()))
    }

    // lo/hi: live handles or NULL (the callers pass borrowed handles).
    fn clamp_raw(&self, lo: *const sys::bc_tensor, hi: *const sys::bc_tensor) -> Result<Tensor> {
        let mut out = out_ptr();
        // SAFETY: live handles (or NULL bounds) and a valid out pointer.
        let status = unsafe { sys::bc_clamp(self.as_ptr(), lo, hi, &mut out) };
        new_tensor(status, out)
    }
    fn clamp_raw_out(&self, lo: *const sys::bc_tensor, hi: *const sys::bc_tensor, out: &mut TensorRef) -> Result<()> {
        // SAFETY: live handles (or NULL bounds); `out` is exclusively borrowed.
        check(unsafe { sys::bc_clamp_out(self.as_ptr(), lo, hi, out.as_mut_ptr()) })
    }
    fn clamp_raw_(&mut self, lo: *const sys::bc_tensor, hi: *const sys::bc_tensor) -> Result<()> {
        // SAFETY: live handles (or NULL bounds); `self` is exclusively borrowed.
        check(unsafe { sys::bc_clamp_(self.as_mut_ptr(), lo, hi) })
    }
}
