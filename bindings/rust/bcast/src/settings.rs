//! Process-wide settings: backwards-compatibility warnings, the broadcast
//! policy, the warning handler, threads and SIMD; and version queries.
//!
//! These are the settings of the default context: global to the process,
//! shared with every other user of bcast in it (other crates, C or Go code),
//! and changeable from any thread at any time. Ops inside a
//! [`Context::scope`](crate::Context::scope) use that context's settings
//! instead; a library or plugin should create its own
//! [`Context`](crate::Context).

use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, PoisonError, RwLock};

use bcast_sys as sys;

use crate::error::{check_default, stash_panic, static_str, Error, ErrorCode, Result};

/// When on, an op whose operands differ in shape but are broadcastable and
/// have the same number of elements broadcasts and warns ("self and other do
/// not have the same shape, but are broadcastable, ...").
pub fn set_broadcast_warning(enabled: bool) {
    // SAFETY: a plain setter.
    unsafe { sys::bc_set_broadcast_warning(enabled.into()) }
}

/// The current broadcast-warning setting.
pub fn broadcast_warning() -> bool {
    // SAFETY: a plain getter.
    unsafe { sys::bc_get_broadcast_warning() != 0 }
}

/// When on, operands that are not broadcastable but have the same number of
/// elements are computed as 1-D sequences (row-major), the result taking the
/// first operand's shape, with a deprecation warning.
pub fn set_legacy_pointwise(enabled: bool) {
    // SAFETY: a plain setter.
    unsafe { sys::bc_set_legacy_pointwise(enabled.into()) }
}

/// The current legacy-pointwise setting.
pub fn legacy_pointwise() -> bool {
    // SAFETY: a plain getter.
    unsafe { sys::bc_get_legacy_pointwise() != 0 }
}

/// What an implicit broadcast does (`bc_policy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Broadcast silently (PyTorch, NumPy). The default.
    #[default]
    Allow,
    /// Broadcast, and warn each time operand shapes differ.
    Warn,
    /// Refuse ([`ErrorCode::Policy`]) unless all operand shapes are equal;
    /// 0-dim operands are exempt.
    Error,
}

impl Policy {
    pub(crate) fn raw(self) -> sys::bc_policy {
        match self {
            Policy::Allow => sys::BC_POLICY_ALLOW,
            Policy::Warn => sys::BC_POLICY_WARN,
            Policy::Error => sys::BC_POLICY_ERROR,
        }
    }

    pub(crate) fn from_raw(raw: i64) -> Policy {
        match raw {
            r if r == i64::from(sys::BC_POLICY_WARN) => Policy::Warn,
            r if r == i64::from(sys::BC_POLICY_ERROR) => Policy::Error,
            _ => Policy::Allow,
        }
    }
}

/// Sets the broadcast policy.
pub fn set_broadcast_policy(policy: Policy) {
    // SAFETY: a plain setter; every Policy value is valid, so it cannot fail.
    let status = unsafe { sys::bc_set_broadcast_policy(policy.raw()) };
    debug_assert_eq!(status, sys::BC_OK);
}

/// The current broadcast policy.
pub fn broadcast_policy() -> Policy {
    // SAFETY: a plain getter.
    Policy::from_raw(i64::from(unsafe { sys::bc_get_broadcast_policy() }))
}

/// When on, every warning fails its op with [`ErrorCode::Policy`] and the
/// warning's text as the message, before anything is written; the handler is
/// not called.
pub fn set_warnings_as_errors(enabled: bool) {
    // SAFETY: a plain setter.
    unsafe { sys::bc_set_warnings_as_errors(enabled.into()) }
}

/// The current warnings-as-errors setting.
pub fn warnings_as_errors() -> bool {
    // SAFETY: a plain getter.
    unsafe { sys::bc_get_warnings_as_errors() != 0 }
}

type Handler = Arc<dyn Fn(&str) + Send + Sync + 'static>;

static HANDLER: RwLock<Option<Handler>> = RwLock::new(None);

unsafe extern "C" fn trampoline(message: *const c_char, _user: *mut c_void) {
    // Nothing may unwind into C: catch everything, resume it on this thread
    // once the bcast call returns (see error::check_in).
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: the library passes a NUL-terminated message valid for this call.
        let text = unsafe { CStr::from_ptr(message) }.to_string_lossy();
        // Clone out of the lock so that the handler may itself replace the handler.
        let handler = HANDLER
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match handler {
            Some(h) => h(&text),
            // A call in flight while the handler was removed: do what the
            // library's default does.
            None => eprintln!("bcast warning: {text}"),
        }
    }));
    if let Err(payload) = result {
        stash_panic(payload);
    }
}

/// Sends every warning to `handler` instead of standard error.
///
/// The handler runs on the thread that ran the op, possibly on several
/// threads at once, and may call bcast. A panic in it does not cross into
/// the C library: it is caught and resumed on the calling thread when the
/// op returns.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use bcast::{DType, Tensor};
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = Arc::clone(&seen);
/// bcast::set_warning_handler(move |msg| sink.lock().unwrap().push(msg.to_string()));
/// bcast::set_broadcast_warning(true);
/// let r = Tensor::zeros(DType::Float32, &[4, 1])?.add(&Tensor::zeros(DType::Float32, &[4])?)?;
/// bcast::set_broadcast_warning(false);
/// bcast::reset_warning_handler();
/// assert_eq!(r.shape(), &[4, 4]);
/// assert!(seen.lock().unwrap()[0].starts_with("self and other do not have the same shape"));
/// # Ok::<(), bcast::Error>(())
/// ```
pub fn set_warning_handler<F>(handler: F)
where
    F: Fn(&str) + Send + Sync + 'static,
{
    *HANDLER.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::new(handler));
    // SAFETY: trampoline is a valid bc_warning_fn that never unwinds and
    // ignores its user pointer.
    unsafe { sys::bc_set_warning_handler(Some(trampoline), std::ptr::null_mut()) }
}

/// Restores the library's default handler, which prints
/// `"bcast warning: <message>"` to standard error.
pub fn reset_warning_handler() {
    // SAFETY: NULL restores the default.
    unsafe { sys::bc_set_warning_handler(None, std::ptr::null_mut()) }
    *HANDLER.write().unwrap_or_else(PoisonError::into_inner) = None;
}

/// Runtime library version as `MAJOR * 10000 + MINOR * 100 + PATCH` (1.0.0 is 10000).
pub fn version() -> i32 {
    // SAFETY: a plain getter.
    unsafe { sys::bc_version() }
}

/// Runtime library version as "MAJOR.MINOR.PATCH".
///
/// ```
/// let v = bcast::version();
/// assert_eq!(bcast::version_string(), format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100));
/// ```
pub fn version_string() -> &'static str {
    // SAFETY: returns a static string, never NULL.
    unsafe { static_str(sys::bc_version_string()) }
}

/// Name of the SIMD target in use ("AVX3", "AVX2", "SSE4", "EMU128", ...).
pub fn simd_target() -> &'static str {
    // SAFETY: returns a static string, never NULL.
    unsafe { static_str(sys::bc_simd_target()) }
}

/// Caps SIMD dispatch at the named target (`None` removes the cap). For tests
/// and benchmarks; not to be called while ops run on other threads.
pub fn set_simd_cap(target: Option<&str>) -> Result<()> {
    let name = target
        .map(CString::new)
        .transpose()
        .map_err(|_| Error::new(ErrorCode::InvalidArgument, "SIMD target name contains NUL"))?;
    // SAFETY: a NUL-terminated string or NULL.
    check_default(unsafe {
        sys::bc_set_simd_cap(name.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()))
    })
}

/// Number of threads ops may use.
pub fn num_threads() -> usize {
    // SAFETY: a plain getter.
    let n = unsafe { sys::bc_get_num_threads() };
    usize::try_from(n).unwrap_or(1).max(1)
}

/// Sets the number of threads ops may use; `None` restores the default.
pub fn set_num_threads(n: Option<usize>) -> Result<()> {
    let n = match n {
        None => 0,
        Some(0) => {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "thread count must be at least 1",
            ))
        }
        Some(n) => i32::try_from(n).unwrap_or(i32::MAX),
    };
    // SAFETY: a plain setter.
    check_default(unsafe { sys::bc_set_num_threads(n) })
}
