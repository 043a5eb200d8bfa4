//! `std::ops` operators: `+ - * / % & | ^ << >>` and their `*Assign` forms,
//! and the unary `-` ([`UnaryOp::Neg`]) and `!` ([`UnaryOp::BitwiseNot`],
//! PyTorch's `~`: bitwise not of integers, logical not of `Bool`).
//!
//! Every owned/borrowed combination works (`a + b`, `a + &b`, `&a + b`,
//! `&a + &b`, for [`Tensor`], [`TensorView`], [`TensorViewMut`] and
//! `&TensorRef`), and so does a number on either side, as PyTorch's Python
//! number (see [`Operand`]; on the left a number is a `bool`, `i64` or `f64`,
//! so that plain literals work: `1.0 - &t`, `2 * &t`, computed as
//! `torch.sub(1.0, t)`, `torch.mul(2, t)`). Semantics are PyTorch's: `/` is true division
//! (integers give `Float32`) and `%` is Python's remainder (the sign of the
//! divisor), not Rust's. `-` refuses `Bool` and `!` floating tensors, as
//! PyTorch's `-` and `~` do.
//!
//! # Panics
//!
//! An operator cannot return a `Result`: when the library refuses the
//! operation (shapes that do not broadcast, an in-place result that would
//! change shape, an unsafe cast, integer division by zero, ...) the operator
//! panics with the library's message. Use the methods (`add`, `add_`, ...) to
//! get the [`Error`](crate::Error) instead.
//!
//! ```
//! use bcast::Tensor;
//! let a = Tensor::from_slice(&[1i64, 2, 3], &[3, 1])?;
//! let b = Tensor::from_slice(&[10i64, 20], &[2])?;
//! let c = &a * &b + 1;
//! assert_eq!(c.shape(), &[3, 2]);
//! assert_eq!(c.to_vec::<i64>()?, [11, 21, 21, 41, 31, 61]);
//! assert_eq!((-7 % Tensor::from_slice(&[3i64], &[1])?).to_vec::<i64>()?, [2]);
//! # Ok::<(), bcast::Error>(())
//! ```
//!
//! ```should_panic
//! use bcast::{DType, Tensor};
//! // panics: "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]"
//! let mut x = Tensor::zeros(DType::Float32, &[1, 3, 1]).unwrap();
//! x += Tensor::zeros(DType::Float32, &[3, 1, 7]).unwrap();
//! ```

use std::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Not, Rem, RemAssign, Shl, ShlAssign, Shr, ShrAssign, Sub, SubAssign,
};

use crate::error::Result;
use crate::ops::{BinaryOp, Operand};
use crate::tensor::{Tensor, TensorRef, TensorView, TensorViewMut};
use crate::unary::UnaryOp;

// No closure here: `#[track_caller]` does not reach into one, and a panic
// inside `unwrap_or_else` would point at this file instead of the caller's line.
#[track_caller]
fn unwrap<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

macro_rules! tensor_lhs {
    ($Trait:ident, $method:ident, $op:ident; $($lhs:ty),*) => {$(
        impl<R: Operand> $Trait<R> for $lhs {
            type Output = Tensor;
            /// Panics with the library's message if the operation fails.
            #[track_caller]
            fn $method(self, rhs: R) -> Tensor {
                unwrap(TensorRef::binary(&self, BinaryOp::$op, rhs))
            }
        }
    )*};
}

macro_rules! scalar_lhs {
    ($Trait:ident, $method:ident, $op:ident; $($s:ty),*) => {$(
        scalar_lhs!(@one $Trait, $method, $op, $s; Tensor, &Tensor, &TensorRef, TensorView<'_>, &TensorView<'_>);
    )*};
    (@one $Trait:ident, $method:ident, $op:ident, $s:ty; $($rhs:ty),*) => {$(
        impl $Trait<$rhs> for $s {
            type Output = Tensor;
            /// Panics with the library's message if the operation fails.
            #[track_caller]
            fn $method(self, rhs: $rhs) -> Tensor {
                unwrap(TensorRef::rbinary(&rhs, BinaryOp::$op, self))
            }
        }
    )*};
}

macro_rules! assign {
    ($Trait:ident, $method:ident, $op:ident; $($lhs:ty),*) => {$(
        impl<R: Operand> $Trait<R> for $lhs {
            /// In place; panics with the library's message if the operation fails.
            #[track_caller]
            fn $method(&mut self, rhs: R) {
                unwrap(TensorRef::binary_(self, BinaryOp::$op, rhs))
            }
        }
    )*};
}

macro_rules! operator {
    ($Trait:ident, $method:ident, $Assign:ident, $assign:ident, $op:ident) => {
        tensor_lhs!($Trait, $method, $op;
            Tensor, &Tensor, &TensorRef, TensorView<'_>, &TensorView<'_>, TensorViewMut<'_>, &TensorViewMut<'_>);
        // One type per kind on the left, so that `1.0 - &t` and `2 * &t` infer
        // (the dtype a scalar takes depends only on its kind).
        scalar_lhs!($Trait, $method, $op; bool, i64, f64);
        assign!($Assign, $assign, $op; Tensor, TensorViewMut<'_>, TensorRef);
    };
}

operator!(Add, add, AddAssign, add_assign, Add);
operator!(Sub, sub, SubAssign, sub_assign, Sub);
operator!(Mul, mul, MulAssign, mul_assign, Mul);
operator!(Div, div, DivAssign, div_assign, Div);
operator!(Rem, rem, RemAssign, rem_assign, Remainder);
operator!(BitAnd, bitand, BitAndAssign, bitand_assign, BitwiseAnd);
operator!(BitOr, bitor, BitOrAssign, bitor_assign, BitwiseOr);
operator!(BitXor, bitxor, BitXorAssign, bitxor_assign, BitwiseXor);
operator!(Shl, shl, ShlAssign, shl_assign, ShiftLeft);
operator!(Shr, shr, ShrAssign, shr_assign, ShiftRight);

macro_rules! unary_operator {
    ($Trait:ident, $method:ident, $op:ident; $($t:ty),*) => {$(
        impl $Trait for $t {
            type Output = Tensor;
            /// Panics with the library's message if the operation fails.
            #[track_caller]
            fn $method(self) -> Tensor {
                unwrap(TensorRef::unary(&self, UnaryOp::$op))
            }
        }
    )*};
}

unary_operator!(Neg, neg, Neg;
    Tensor, &Tensor, &TensorRef, TensorView<'_>, &TensorView<'_>, TensorViewMut<'_>, &TensorViewMut<'_>);
unary_operator!(Not, not, BitwiseNot;
    Tensor, &Tensor, &TensorRef, TensorView<'_>, &TensorView<'_>, TensorViewMut<'_>, &TensorViewMut<'_>);
