//! Errors: the library's status code, message and detail, read from the
//! context the failing call ran on.

use std::any::Any;
use std::cell::RefCell;
use std::ffi::CStr;
use std::fmt;

use bcast_sys as sys;

/// Result of every fallible call of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a call failed: the C library's `bc_status` (never `BC_OK`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// NULL pointer, bad enum, negative size, bad stride, wrong element count...
    InvalidArgument,
    /// Shapes cannot be broadcast together.
    NotBroadcastable,
    /// out=/in-place tensor has the wrong shape; bad expand.
    ShapeMismatch,
    /// Dtype not supported by the op, or unsafe cast to the output.
    Dtype,
    /// Written tensor overlaps itself or an input.
    Overlap,
    /// An allocation failed.
    OutOfMemory,
    /// Element or byte count overflows.
    Overflow,
    /// An element would fall outside a buffer.
    OutOfBounds,
    /// Integer division or remainder by zero.
    DivisionByZero,
    /// A bug in bcast.
    Internal,
    /// Refused by the broadcast policy, or a warning raised as an error.
    Policy,
    /// A status this binding does not know (from a newer library).
    Unknown(u32),
}

impl ErrorCode {
    /// The code for a raw status, `None` for `BC_OK`.
    #[allow(clippy::unnecessary_cast)] // a conversion where C enums are `int` (MSVC)
    pub fn from_raw(status: sys::bc_status) -> Option<ErrorCode> {
        Some(match status {
            sys::BC_OK => return None,
            sys::BC_ERR_INVALID_ARGUMENT => ErrorCode::InvalidArgument,
            sys::BC_ERR_NOT_BROADCASTABLE => ErrorCode::NotBroadcastable,
            sys::BC_ERR_SHAPE_MISMATCH => ErrorCode::ShapeMismatch,
            sys::BC_ERR_DTYPE => ErrorCode::Dtype,
            sys::BC_ERR_OVERLAP => ErrorCode::Overlap,
            sys::BC_ERR_OUT_OF_MEMORY => ErrorCode::OutOfMemory,
            sys::BC_ERR_OVERFLOW => ErrorCode::Overflow,
            sys::BC_ERR_OUT_OF_BOUNDS => ErrorCode::OutOfBounds,
            sys::BC_ERR_DIVISION_BY_ZERO => ErrorCode::DivisionByZero,
            sys::BC_ERR_INTERNAL => ErrorCode::Internal,
            sys::BC_ERR_POLICY => ErrorCode::Policy,
            other => ErrorCode::Unknown(other as u32),
        })
    }

    /// The raw `bc_status` value.
    #[allow(clippy::unnecessary_cast)] // a conversion where C enums are `int` (MSVC)
    pub fn raw(self) -> sys::bc_status {
        match self {
            ErrorCode::InvalidArgument => sys::BC_ERR_INVALID_ARGUMENT,
            ErrorCode::NotBroadcastable => sys::BC_ERR_NOT_BROADCASTABLE,
            ErrorCode::ShapeMismatch => sys::BC_ERR_SHAPE_MISMATCH,
            ErrorCode::Dtype => sys::BC_ERR_DTYPE,
            ErrorCode::Overlap => sys::BC_ERR_OVERLAP,
            ErrorCode::OutOfMemory => sys::BC_ERR_OUT_OF_MEMORY,
            ErrorCode::Overflow => sys::BC_ERR_OVERFLOW,
            ErrorCode::OutOfBounds => sys::BC_ERR_OUT_OF_BOUNDS,
            ErrorCode::DivisionByZero => sys::BC_ERR_DIVISION_BY_ZERO,
            ErrorCode::Internal => sys::BC_ERR_INTERNAL,
            ErrorCode::Policy => sys::BC_ERR_POLICY,
            ErrorCode::Unknown(v) => v as sys::bc_status,
        }
    }

    /// The library's name for the code, e.g. `"BC_ERR_NOT_BROADCASTABLE"`.
    ///
    /// ```
    /// assert_eq!(bcast::ErrorCode::Overlap.name(), "BC_ERR_OVERLAP");
    /// ```
    pub fn name(self) -> &'static str {
        // SAFETY: bc_status_string accepts any value and returns a static,
        // NUL-terminated string that is never NULL.
        unsafe { static_str(sys::bc_status_string(self.raw())) }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Machine-readable part of an error (`bc_error_detail`); `None` where a
/// field does not apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ErrorDetail {
    /// Failing dimension as PyTorch numbers it in the message.
    pub dim: Option<i32>,
    /// First conflicting size (tensor a / expanded size).
    pub size_a: Option<i64>,
    /// Second conflicting size (tensor b / existing size).
    pub size_b: Option<i64>,
}

/// A failed call: the code, the library's message (byte-identical to
/// PyTorch's where PyTorch has one) and the detail.
///
/// ```
/// use bcast::{ErrorCode, Tensor};
/// let a = Tensor::zeros(bcast::DType::Float32, &[5, 2, 4, 1])?;
/// let b = Tensor::zeros(bcast::DType::Float32, &[3, 1, 1])?;
/// let err = a.add(&b).unwrap_err();
/// assert_eq!(err.code, ErrorCode::NotBroadcastable);
/// assert_eq!(
///     err.message,
///     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
/// );
/// assert_eq!((err.detail.dim, err.detail.size_a, err.detail.size_b), (Some(1), Some(2), Some(3)));
/// # Ok::<(), bcast::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What kind of failure.
    pub code: ErrorCode,
    /// The message.
    pub message: String,
    /// Dimension and sizes, where they apply.
    pub detail: ErrorDetail,
}

impl Error {
    /// An error raised by this binding itself (not by the C library).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            detail: ErrorDetail::default(),
        }
    }

    /// Reads the last error of `ctx` (NULL: this thread's, of the default
    /// context). Must run right after the failing call on `ctx`, before any
    /// other call on it (for NULL: on the same thread, before any other bcast
    /// call).
    pub(crate) fn from_ctx(ctx: *const sys::bc_ctx, status: sys::bc_status) -> Error {
        let code = ErrorCode::from_raw(status).unwrap_or(ErrorCode::Internal);
        // SAFETY: bc_ctx_last_error never returns NULL; the string lives until
        // the next call on `ctx` and is copied before that.
        let message = unsafe { CStr::from_ptr(sys::bc_ctx_last_error(ctx)) }
            .to_string_lossy()
            .into_owned();
        let mut raw = sys::bc_error_detail {
            code: sys::BC_OK,
            dim: -1,
            size_a: -1,
            size_b: -1,
        };
        // SAFETY: `raw` is a valid, writable bc_error_detail.
        unsafe { sys::bc_ctx_last_error_detail(ctx, &mut raw) };
        let opt = |v: i64| (v >= 0).then_some(v);
        let detail = ErrorDetail {
            dim: (raw.dim >= 0).then_some(raw.dim),
            size_a: opt(raw.size_a),
            size_b: opt(raw.size_b),
        };
        Error {
            code,
            message,
            detail,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            f.write_str(self.code.name())
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for Error {}

thread_local! {
    /// A panic caught in the warning handler during the current call, to be
    /// resumed once the call has returned (panics must not cross the FFI).
    static PENDING_PANIC: RefCell<Option<Box<dyn Any + Send>>> = const { RefCell::new(None) };
}

pub(crate) fn stash_panic(payload: Box<dyn Any + Send>) {
    // try_with: during thread teardown the slot may be gone; the panic is
    // then dropped rather than aborting the process.
    let _ = PENDING_PANIC.try_with(|p| {
        let mut slot = p.borrow_mut();
        if slot.is_none() {
            *slot = Some(payload);
        }
    });
}

/// Runs one fallible C call on the calling thread's current context (the
/// innermost [`Context::scope`](crate::Context::scope)'s, or NULL for the
/// default context) and turns its status into a Result, reading the error
/// from that same context. Every `bc_ctx_*` call of the crate goes through
/// here.
pub(crate) fn call(f: impl FnOnce(*mut sys::bc_ctx) -> sys::bc_status) -> Result<()> {
    let ctx = crate::context::current_raw();
    let status = f(ctx);
    check_in(ctx, status)
}

/// Turns the status of a call on `ctx` into a Result, reading the error at
/// once, and resumes a panic that a warning handler or scheduler raised
/// during the call.
pub(crate) fn check_in(ctx: *mut sys::bc_ctx, status: sys::bc_status) -> Result<()> {
    let result = if status == sys::BC_OK {
        Ok(())
    } else {
        Err(Error::from_ctx(ctx, status))
    };
    if let Some(payload) = PENDING_PANIC
        .try_with(|p| p.borrow_mut().take())
        .ok()
        .flatten()
    {
        std::panic::resume_unwind(payload);
    }
    result
}

/// [`check_in`] for the calls that have no context form (process-wide
/// settings, bc_ctx_create): the error is this thread's.
pub(crate) fn check_default(status: sys::bc_status) -> Result<()> {
    check_in(std::ptr::null_mut(), status)
}

/// # Safety
/// `p` must be a non-NULL, NUL-terminated string that lives forever.
pub(crate) unsafe fn static_str(p: *const std::ffi::c_char) -> &'static str {
    // SAFETY: guaranteed by the caller; the library's static names are ASCII.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .unwrap_or("<non-UTF-8>")
}
