//! Raw declarations of the bcast C ABI, `include/bcast/bcast.h`, written by
//! hand and checked against the header by `tests/header.rs`.
//!
//! Nothing here is safe to call without reading the header's contract; the
//! `bcast` crate wraps it. Enums are plain integers plus constants (as
//! bindgen emits them) because a C library may hand back values that a Rust
//! `enum` could not represent.
//!
//! Linking: `build.rs` uses, in this order, the CMake build directory named by
//! `BCAST_BUILD_DIR`, an installed bcast found with pkg-config, or builds the
//! in-tree sources with CMake. The `static` feature (or `BCAST_STATIC=1`)
//! links `libbcast.a` and its dependencies instead of `libbcast.so`.
#![no_std]
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};

/// The integer type C uses for this crate's enums (GCC and Clang pick
/// `unsigned int` for an enum without negative values, MSVC `int`).
#[cfg(not(target_env = "msvc"))]
pub type bc_enum_repr = core::ffi::c_uint;
/// The integer type C uses for this crate's enums.
#[cfg(target_env = "msvc")]
pub type bc_enum_repr = core::ffi::c_int;

// ---------------------------------------------------------------- status

/// `enum bc_status`: result of every fallible call.
pub type bc_status = bc_enum_repr;
pub const BC_OK: bc_status = 0;
pub const BC_ERR_INVALID_ARGUMENT: bc_status = 1;
pub const BC_ERR_NOT_BROADCASTABLE: bc_status = 2;
pub const BC_ERR_SHAPE_MISMATCH: bc_status = 3;
pub const BC_ERR_DTYPE: bc_status = 4;
pub const BC_ERR_OVERLAP: bc_status = 5;
pub const BC_ERR_OUT_OF_MEMORY: bc_status = 6;
pub const BC_ERR_OVERFLOW: bc_status = 7;
pub const BC_ERR_OUT_OF_BOUNDS: bc_status = 8;
pub const BC_ERR_DIVISION_BY_ZERO: bc_status = 9;
pub const BC_ERR_INTERNAL: bc_status = 10;
pub const BC_ERR_POLICY: bc_status = 11;

/// `struct bc_error_detail`: machine-readable part of the last error.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct bc_error_detail {
    pub code: bc_status,
    pub dim: i32,
    pub size_a: i64,
    pub size_b: i64,
}

// ---------------------------------------------------------------- tensors

/// `BC_MAX_DIMS`: maximum number of dimensions of a tensor.
pub const BC_MAX_DIMS: usize = 32;

/// `enum bc_dtype`: element types.
pub type bc_dtype = bc_enum_repr;
pub const BC_BOOL: bc_dtype = 0;
pub const BC_UINT8: bc_dtype = 1;
pub const BC_INT8: bc_dtype = 2;
pub const BC_INT16: bc_dtype = 3;
pub const BC_INT32: bc_dtype = 4;
pub const BC_INT64: bc_dtype = 5;
pub const BC_FLOAT16: bc_dtype = 6;
pub const BC_BFLOAT16: bc_dtype = 7;
pub const BC_FLOAT32: bc_dtype = 8;
pub const BC_FLOAT64: bc_dtype = 9;

/// `struct bc_tensor`: opaque tensor handle, only ever used behind a pointer.
#[repr(C)]
pub struct bc_tensor {
    _opaque: [u8; 0],
    // Neither Send, Sync nor Unpin: what a handle allows is the wrapper's call.
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// `bc_deleter`: called once when the last handle over a wrapped buffer is freed.
pub type bc_deleter = Option<unsafe extern "C" fn(data: *mut c_void, ctx: *mut c_void)>;

// ---------------------------------------------------------------- ops

/// `enum bc_op`: binary ops.
pub type bc_op = bc_enum_repr;
pub const BC_ADD: bc_op = 0;
pub const BC_SUB: bc_op = 1;
pub const BC_MUL: bc_op = 2;
pub const BC_DIV: bc_op = 3;
pub const BC_DIV_TRUNC: bc_op = 4;
pub const BC_DIV_FLOOR: bc_op = 5;
pub const BC_REMAINDER: bc_op = 6;
pub const BC_FMOD: bc_op = 7;
pub const BC_POW: bc_op = 8;
pub const BC_MAXIMUM: bc_op = 9;
pub const BC_MINIMUM: bc_op = 10;
pub const BC_FMAX: bc_op = 11;
pub const BC_FMIN: bc_op = 12;
pub const BC_ATAN2: bc_op = 13;
pub const BC_HYPOT: bc_op = 14;
pub const BC_COPYSIGN: bc_op = 15;
pub const BC_EQ: bc_op = 16;
pub const BC_NE: bc_op = 17;
pub const BC_LT: bc_op = 18;
pub const BC_LE: bc_op = 19;
pub const BC_GT: bc_op = 20;
pub const BC_GE: bc_op = 21;
pub const BC_LOGICAL_AND: bc_op = 22;
pub const BC_LOGICAL_OR: bc_op = 23;
pub const BC_LOGICAL_XOR: bc_op = 24;
pub const BC_BITWISE_AND: bc_op = 25;
pub const BC_BITWISE_OR: bc_op = 26;
pub const BC_BITWISE_XOR: bc_op = 27;
pub const BC_SHIFT_LEFT: bc_op = 28;
pub const BC_SHIFT_RIGHT: bc_op = 29;
/// `BC_OP_COUNT`: number of `bc_op` values.
pub const BC_OP_COUNT: usize = 30;

// ---------------------------------------------------------------- compat

/// `bc_warning_fn`: receives each warning; `message` is valid only during the call.
pub type bc_warning_fn = Option<unsafe extern "C" fn(message: *const c_char, user: *mut c_void)>;

/// `enum bc_policy`: implicit-broadcast policy.
pub type bc_policy = bc_enum_repr;
pub const BC_POLICY_ALLOW: bc_policy = 0;
pub const BC_POLICY_WARN: bc_policy = 1;
pub const BC_POLICY_ERROR: bc_policy = 2;

/// Declares the functions and records their names in [`FUNCTION_NAMES`], so
/// that the header test can tell a missing declaration from a stale one.
macro_rules! functions {
    ($( $(#[$attr:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?; )*) => {
        extern "C" {
            $( $(#[$attr])* pub fn $name($($arg: $ty),*) $(-> $ret)?; )*
        }

        /// Names of every function declared by this crate, in header order.
        pub const FUNCTION_NAMES: &[&str] = &[$(stringify!($name)),*];

        /// Addresses of every declared function. Taking them makes the linker
        /// resolve each symbol, so a test calling this proves that the library
        /// exports the whole header.
        #[doc(hidden)]
        pub fn function_addresses() -> [*const c_void; FUNCTION_NAMES.len()] {
            [$($name as *const c_void),*]
        }
    };
}

functions! {
    // status
    /// Static English name of a status; never NULL.
    pub fn bc_status_string(code: bc_status) -> *const c_char;
    /// This thread's last error message; never NULL; valid until the next bcast call on this thread.
    pub fn bc_last_error() -> *const c_char;
    /// Copies this thread's last error detail into `*out`.
    pub fn bc_last_error_detail(out: *mut bc_error_detail) -> bc_status;

    // version
    /// Runtime version as MAJOR*10000 + MINOR*100 + PATCH.
    pub fn bc_version() -> c_int;
    /// Runtime version as a static "MAJOR.MINOR.PATCH" string.
    pub fn bc_version_string() -> *const c_char;
    /// Name of the SIMD target chosen for this CPU.
    pub fn bc_simd_target() -> *const c_char;
    /// Caps SIMD dispatch at the named target; NULL or "" removes the cap.
    pub fn bc_set_simd_cap(target_name: *const c_char) -> bc_status;
    /// Number of threads ops may use.
    pub fn bc_get_num_threads() -> c_int;
    /// Sets the number of threads ops may use; n <= 0 restores the default.
    pub fn bc_set_num_threads(n: c_int) -> bc_status;

    // tensors
    /// Size in bytes of one element of `dtype`, or 0.
    pub fn bc_dtype_size(dtype: bc_dtype) -> usize;
    /// Static PyTorch-style name of `dtype`, or "Unknown".
    pub fn bc_dtype_name(dtype: bc_dtype) -> *const c_char;
    /// Allocates a contiguous tensor with uninitialised contents.
    pub fn bc_tensor_empty(dtype: bc_dtype, shape: *const i64, ndim: usize, out: *mut *mut bc_tensor) -> bc_status;
    /// Allocates a contiguous zero-filled tensor.
    pub fn bc_tensor_zeros(dtype: bc_dtype, shape: *const i64, ndim: usize, out: *mut *mut bc_tensor) -> bc_status;
    /// Allocates a contiguous tensor and copies row-major `data` into it.
    pub fn bc_tensor_from_data(dtype: bc_dtype, shape: *const i64, ndim: usize, data: *const c_void, out: *mut *mut bc_tensor) -> bc_status;
    /// Wraps the caller's buffer without copying.
    pub fn bc_tensor_wrap(dtype: bc_dtype, shape: *const i64, strides: *const i64, ndim: usize, data: *mut c_void, nbytes: usize, deleter: bc_deleter, ctx: *mut c_void, out: *mut *mut bc_tensor) -> bc_status;
    /// Releases a handle; NULL is a no-op.
    pub fn bc_tensor_free(t: *mut bc_tensor);
    /// New handle sharing `t`'s storage, shape and strides.
    pub fn bc_tensor_view(t: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// New contiguous tensor with a copy of `t`'s elements.
    pub fn bc_tensor_clone(t: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// Number of dimensions.
    pub fn bc_tensor_ndim(t: *const bc_tensor) -> usize;
    /// Borrowed pointer to ndim sizes.
    pub fn bc_tensor_shape(t: *const bc_tensor) -> *const i64;
    /// Borrowed pointer to ndim strides, in elements.
    pub fn bc_tensor_strides(t: *const bc_tensor) -> *const i64;
    /// Element type.
    pub fn bc_tensor_dtype(t: *const bc_tensor) -> bc_dtype;
    /// Number of elements.
    pub fn bc_tensor_numel(t: *const bc_tensor) -> i64;
    /// Borrowed pointer to the element at index (0, ..., 0).
    pub fn bc_tensor_data(t: *const bc_tensor) -> *mut c_void;
    /// 1 if the tensor is contiguous row-major, else 0.
    pub fn bc_tensor_is_contiguous(t: *const bc_tensor) -> c_int;
    /// Copies the elements, in row-major order, into `dst`.
    pub fn bc_tensor_copy_to(t: *const bc_tensor, dst: *mut c_void, nbytes: usize) -> bc_status;

    // shapes
    /// Broadcast shape of two shapes.
    pub fn bc_broadcast_shapes(a: *const i64, na: usize, b: *const i64, nb: usize, out: *mut i64, nout: *mut usize) -> bc_status;
    /// Broadcast shape of `count` shapes.
    pub fn bc_broadcast_shapes_n(shapes: *const *const i64, ndims: *const usize, count: usize, out: *mut i64, nout: *mut usize) -> bc_status;
    /// Zero-copy view of `t` expanded to `shape`.
    pub fn bc_expand(t: *const bc_tensor, shape: *const i64, ndim: usize, view: *mut *mut bc_tensor) -> bc_status;
    /// Expands `count` tensors to their common shape.
    pub fn bc_broadcast_tensors(tensors: *const *const bc_tensor, count: usize, views: *mut *mut bc_tensor) -> bc_status;
    /// Sums `t` over broadcast dimensions down to `shape`.
    pub fn bc_sum_to_shape(t: *const bc_tensor, shape: *const i64, ndim: usize, out: *mut *mut bc_tensor) -> bc_status;

    // ops
    /// Static name of a binary op, or "unknown".
    pub fn bc_op_name(op: bc_op) -> *const c_char;
    /// out = op(a, b), allocated.
    pub fn bc_binary(op: bc_op, a: *const bc_tensor, b: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// Writes op(a, b) into `out`.
    pub fn bc_binary_out(op: bc_op, a: *const bc_tensor, b: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// self = op(self, other) in place.
    pub fn bc_binary_(op: bc_op, self_: *mut bc_tensor, other: *const bc_tensor) -> bc_status;
    /// a +/- alpha*b, allocated.
    pub fn bc_binary_alpha(op: bc_op, a: *const bc_tensor, b: *const bc_tensor, alpha: f64, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_binary_alpha().
    pub fn bc_binary_alpha_out(op: bc_op, a: *const bc_tensor, b: *const bc_tensor, alpha: f64, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_binary_alpha().
    pub fn bc_binary_alpha_(op: bc_op, self_: *mut bc_tensor, other: *const bc_tensor, alpha: f64) -> bc_status;
    /// where(cond, a, b), allocated.
    pub fn bc_where(cond: *const bc_tensor, a: *const bc_tensor, b: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_where().
    pub fn bc_where_out(cond: *const bc_tensor, a: *const bc_tensor, b: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// self = where(cond, self, other) in place.
    pub fn bc_where_(self_: *mut bc_tensor, cond: *const bc_tensor, other: *const bc_tensor) -> bc_status;
    /// self + value * t1 * t2, allocated.
    pub fn bc_addcmul(self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_addcmul().
    pub fn bc_addcmul_out(self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_addcmul().
    pub fn bc_addcmul_(self_: *mut bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64) -> bc_status;
    /// self + value * t1 / t2, allocated.
    pub fn bc_addcdiv(self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_addcdiv().
    pub fn bc_addcdiv_out(self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_addcdiv().
    pub fn bc_addcdiv_(self_: *mut bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64) -> bc_status;
    /// start + weight * (end - start), allocated.
    pub fn bc_lerp(start: *const bc_tensor, end: *const bc_tensor, weight: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_lerp().
    pub fn bc_lerp_out(start: *const bc_tensor, end: *const bc_tensor, weight: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_lerp().
    pub fn bc_lerp_(self_: *mut bc_tensor, end: *const bc_tensor, weight: *const bc_tensor) -> bc_status;
    /// min(max(x, lo), hi), allocated; lo or hi may be NULL, not both.
    pub fn bc_clamp(x: *const bc_tensor, lo: *const bc_tensor, hi: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_clamp().
    pub fn bc_clamp_out(x: *const bc_tensor, lo: *const bc_tensor, hi: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_clamp().
    pub fn bc_clamp_(self_: *mut bc_tensor, lo: *const bc_tensor, hi: *const bc_tensor) -> bc_status;
    /// dst = src broadcast to dst's shape, converted to dst's dtype.
    pub fn bc_copy_(dst: *mut bc_tensor, src: *const bc_tensor) -> bc_status;

    // compat
    /// Turns the backwards-compatibility broadcast warning on or off.
    pub fn bc_set_broadcast_warning(enabled: c_int);
    /// Current broadcast-warning setting.
    pub fn bc_get_broadcast_warning() -> c_int;
    /// Turns the deprecated 1-D pointwise fallback on or off.
    pub fn bc_set_legacy_pointwise(enabled: c_int);
    /// Current legacy-pointwise setting.
    pub fn bc_get_legacy_pointwise() -> c_int;
    /// Sets the implicit-broadcast policy.
    pub fn bc_set_broadcast_policy(policy: bc_policy) -> bc_status;
    /// Current implicit-broadcast policy.
    pub fn bc_get_broadcast_policy() -> bc_policy;
    /// Turns warnings-as-errors on or off.
    pub fn bc_set_warnings_as_errors(enabled: c_int);
    /// Current warnings-as-errors setting.
    pub fn bc_get_warnings_as_errors() -> c_int;
    /// Installs the warning handler; NULL restores the default.
    pub fn bc_set_warning_handler(fn_: bc_warning_fn, user: *mut c_void);
}

/// True when `build.rs` linked `libbcast.a` rather than `libbcast.so`.
pub const LINKED_STATICALLY: bool = matches!(env!("BCAST_SYS_STATIC").as_bytes(), b"1");
