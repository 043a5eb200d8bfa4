//! Safe Rust binding of **bcast**: elementwise tensor operations with exactly
//! PyTorch's broadcasting semantics, type promotion and error messages.
//!
//! ```
//! use bcast::{DType, Tensor};
//!
//! let x = Tensor::zeros(DType::Float32, &[5, 1, 4, 1])?;
//! let y = Tensor::zeros(DType::Float32, &[3, 1, 1])?;
//! assert_eq!((&x + &y).shape(), &[5, 3, 4, 1]);
//!
//! let x = Tensor::zeros(DType::Float32, &[5, 2, 4, 1])?;
//! let err = x.add(&y).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
//! );
//! # Ok::<(), bcast::Error>(())
//! ```
//!
//! # Types
//!
//! - [`TensorRef`]: what every operation is a method of. `&TensorRef` reads,
//!   `&mut TensorRef` writes (in-place and `_out` forms).
//! - [`Tensor`]: an owned tensor; dereferences (mutably) to `TensorRef`.
//! - [`TensorView<'a>`](TensorView): read-only, over borrowed memory (a
//!   slice, or another tensor through [`TensorRef::view`],
//!   [`TensorRef::expand`], [`broadcast_tensors`]).
//! - [`TensorViewMut<'a>`](TensorViewMut): writable, over a mutably borrowed slice.
//!
//! Operands are anything implementing [`Operand`]: tensors of every kind,
//! borrowed or owned, and scalars. Operators (`+`, `-=`, ...) are in
//! [`operators`], and panic where the methods return an error.
//!
//! Unary ops ([`UnaryOp`]: `neg`, `exp`, `sigmoid`, `isnan`, ...) are methods
//! as well, `x.exp()`, `x.exp_out(&mut out)`, `x.exp_()`, with PyTorch's
//! defaults for an op's parameters; [`TensorRef::unary_with`] gives them
//! (`x.unary_with(UnaryOp::LeakyRelu, &[Some(0.2)])`).
//!
//! Reductions ([`ReduceOp`]: `sum`, `mean`, `amax`, `argmax`, `var`, ...)
//! take a list of dims and `keepdim`, `x.sum(&[0], true)`, or reduce every
//! dim, `x.sum_all()`; [`TensorRef::reduce_with`] adds PyTorch's `dtype=`
//! and `correction` ([`ReduceParams`]), and [`TensorRef::max_dim`] returns
//! values and indices.
//!
//! A host's own elementwise function runs on bcast's broadcasting, dtype
//! conversion and threads through [`iter`]: `iter::zip_map(&a, &b, dtype,
//! |a: &[f32], b: &[f32], out: &mut [f32]| ..)` calls a closure on
//! contiguous rows, and [`iter::Iter`] keeps the plan, with 2-D blocks,
//! per-operand dtypes, serial runs and pull mode.
//!
//! A chain of ops runs fused, in one pass over cache-sized blocks, through
//! [`expr`]: an [`expr::Expr`] built node by node or parsed from
//! `"where(x > 0, x, 0.1 * x)"`, bit for bit the result of the same ops run
//! one by one.
//!
//! # Threads
//!
//! The C library allows a `const` handle to be used from many threads at
//! once, and a written one from one thread at a time. Here that is `Sync`
//! for reads through `&TensorRef` and `&mut` for writes, so the borrow
//! checker enforces it. Every type is `Send` and `Sync`; each `unsafe impl`
//! states its reason. Errors are read right after the failing call from the
//! context it ran on, so they never mix between threads.
//!
//! # Contexts
//!
//! Settings ([`set_broadcast_warning`], [`set_broadcast_policy`],
//! [`set_warning_handler`], [`set_num_threads`], ...) are those of the C
//! library's default context: process-wide, and shared with every other user
//! of bcast in the process (another crate, a C or Go library linked into the
//! same program). A library or plugin should not change them; it creates its
//! own [`Context`], with settings, warning handler, thread budget, an
//! optional [`Scheduler`] (the host's thread pool) and last error of its
//! own, and runs its ops inside [`Context::scope`]:
//!
//! ```
//! use bcast::{Context, DType, Policy, Tensor};
//! let mut ctx = Context::new()?;
//! ctx.set_broadcast_policy(Policy::Warn);
//! ctx.set_warning_handler(|msg| eprintln!("my plugin: {msg}"));
//! let a = Tensor::zeros(DType::Float32, &[2, 1])?;
//! let sum = ctx.scope(|| a.add(&a.view()?.expand(&[2, 3])?))?;
//! assert_eq!(sum.shape(), &[2, 3]);
//! # Ok::<(), bcast::Error>(())
//! ```
//!
//! Every op, constructor and shape function runs on the calling thread's
//! current context: the innermost [`Context::scope`] on that thread, or the
//! default context outside any scope. A scope does not reach other threads
//! (spawned ones, rayon's pool): there, call the context's own methods,
//! `ctx.add(&a, &b)`, `ctx.binary(op, &a, &b)`, ..., which run on it from
//! any thread.
//!
//! # Features
//!
//! - `static`: link `libbcast.a` instead of `libbcast.so`.
//! - `ndarray`: conversions to and from `ndarray` arrays, zero-copy where the
//!   layout allows (`TensorRef::as_array`, which these docs show when built
//!   with the feature, as docs.rs builds them).
#![warn(
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks
)]

mod context;
mod dims;
mod dlpack;
mod dtype;
mod error;
pub mod expr;
pub mod iter;
#[cfg(feature = "ndarray")]
mod ndarray_support;
pub mod operators;
mod ops;
mod reduce;
mod settings;
mod shapes;
mod tensor;
mod types;
mod unary;

pub use bcast_sys as sys;
pub use context::{Context, Scheduler};
pub use dims::Dims;
pub use dtype::{DType, Element, BF16, F16};
pub use error::{Error, ErrorCode, ErrorDetail, Result};
pub use ops::{BinaryOp, Operand};
pub use reduce::{ReduceOp, ReduceParams};
pub use settings::{
    broadcast_policy, broadcast_warning, legacy_pointwise, num_threads, reset_warning_handler,
    set_broadcast_policy, set_broadcast_warning, set_legacy_pointwise, set_num_threads,
    set_simd_cap, set_warning_handler, set_warnings_as_errors, simd_target, version,
    version_string, warnings_as_errors, Policy,
};
pub use shapes::{broadcast_shapes, broadcast_shapes_n, broadcast_tensors};
pub use tensor::{Tensor, TensorRef, TensorView, TensorViewMut};
pub use types::{result_type, Scalar};
pub use unary::UnaryOp;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
