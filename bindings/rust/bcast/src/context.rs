//! Contexts (`bc_ctx`): settings, warning handler, thread budget, host
//! scheduler and last error that belong to one component of a process,
//! instead of the process-wide ones of the default context.

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering};

use bcast_sys as sys;

use crate::error::{check_default, check_in, stash_panic, Error, Result};
use crate::settings::Policy;

/// A pool of threads lent to a [`Context`] (as XNNPACK's `pthreadpool`):
/// ops on the context run their chunks on it instead of OpenMP's threads.
///
/// A panic in either method does not cross into the C library: it is caught,
/// the op is completed on the calling thread (every chunk that `run` did not
/// run is run there, once), and the panic is resumed on the calling thread
/// when the op returns.
///
/// Over a rayon pool, in a crate that depends on rayon (this one does not):
///
/// ```ignore
/// struct Rayon(rayon::ThreadPool);
///
/// impl bcast::Scheduler for Rayon {
///     fn num_threads(&self) -> usize {
///         self.0.current_num_threads()
///     }
///     fn run(&self, nchunks: usize, chunk: &(dyn Fn(usize) + Sync)) {
///         use rayon::prelude::*;
///         self.0.install(|| (0..nchunks).into_par_iter().for_each(chunk));
///     }
/// }
/// ```
pub trait Scheduler: Send + Sync {
    /// How many threads can run chunks at once, the calling thread included.
    /// Values below 1 count as 1. Asked for each op large enough to be
    /// threaded.
    fn num_threads(&self) -> usize;

    /// Calls `chunk(i)` once for every `i` in `0..nchunks`, on any threads
    /// (the calling one included), in any order, possibly concurrently, and
    /// returns when all calls have returned.
    ///
    /// Calling a chunk twice or with an index out of range does nothing; a
    /// chunk left out is run on the calling thread after `run` returns.
    fn run(&self, nchunks: usize, chunk: &(dyn Fn(usize) + Sync));
}

type Handler = Box<dyn FnMut(&str) + Send + 'static>;

/// What the C library's callbacks reach through their `user` pointer. Only
/// ever accessed through a shared reference (hence the cells), so that the
/// pointers C holds stay valid while the [`Context`] lives.
struct Inner {
    raw: NonNull<sys::bc_ctx>,
    /// True while one of this context's callbacks (handler or scheduler)
    /// runs: the C library forbids calls on a context from inside its own
    /// callbacks.
    busy: Cell<bool>,
    handler: RefCell<Option<Handler>>,
    scheduler: RefCell<Option<Box<dyn Scheduler>>>,
}

thread_local! {
    /// The context of the innermost [`Context::scope`] on this thread; NULL
    /// outside any scope (the default context).
    static CURRENT: Cell<*const Inner> = const { Cell::new(ptr::null()) };
}

/// The context ops on this thread run on: the innermost [`Context::scope`]'s,
/// or NULL (the default context).
pub(crate) fn current_raw() -> *mut sys::bc_ctx {
    let inner = CURRENT.with(Cell::get);
    if inner.is_null() {
        ptr::null_mut()
    } else {
        // SAFETY: CURRENT is only non-NULL inside Context::scope, which
        // borrows the Context (and so its Inner) for that whole time.
        unsafe { (*inner).raw.as_ptr() }
    }
}

/// Restores the previous current context (and busy flag) on drop, also when
/// unwinding.
struct Restore<'a> {
    current: *const Inner,
    busy: Option<(&'a Cell<bool>, bool)>,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        // try_with: during thread teardown the slot may be gone.
        let _ = CURRENT.try_with(|c| c.set(self.current));
        if let Some((cell, was)) = self.busy {
            cell.set(was);
        }
    }
}

/// Runs `f` outside every scope of this thread: bcast calls that `f` makes go
/// to the default context. A host loop (crate::iter) runs while the call on
/// its context is still in progress, so it must not reach that context.
pub(crate) fn outside_scopes<R>(f: impl FnOnce() -> R) -> R {
    // try_with: during thread teardown the slot may be gone (and no scope is
    // active there).
    let current = CURRENT
        .try_with(|c| c.replace(ptr::null()))
        .unwrap_or(ptr::null());
    let _restore = Restore {
        current,
        busy: None,
    };
    f()
}

/// Marks `inner` busy and leaves every scope for the duration of one of its
/// callbacks: bcast calls made there go to the default context.
fn enter_callback(inner: &Inner) -> Restore<'_> {
    let was = inner.busy.replace(true);
    let current = CURRENT.with(|c| c.replace(ptr::null()));
    Restore {
        current,
        busy: Some((&inner.busy, was)),
    }
}

/// A bcast context: settings, warning handler, thread budget, host scheduler
/// and last error of its own, apart from the process-wide ones.
///
/// The process-wide settings ([`set_broadcast_policy`](crate::set_broadcast_policy)
/// and friends) belong to the default context, shared with every other user
/// of bcast in the process (other crates, a C or Go library in the same
/// program). A library or plugin should create its own `Context` and run its
/// ops inside [`Context::scope`]. A new context starts from bcast's defaults,
/// never from the process-wide settings.
///
/// ```
/// use bcast::{Context, DType, ErrorCode, Policy, Tensor};
/// let mut ctx = Context::new()?;
/// ctx.set_broadcast_policy(Policy::Error);
/// let a = Tensor::zeros(DType::Float32, &[3, 1])?;
/// let b = Tensor::zeros(DType::Float32, &[3])?;
/// // Inside the scope, ops run on `ctx` and its policy refuses the broadcast...
/// let err = ctx.scope(|| a.add(&b)).unwrap_err();
/// assert_eq!(err.code, ErrorCode::Policy);
/// // ...outside, on the default context, which still allows it.
/// assert_eq!(a.add(&b)?.shape(), &[3, 3]);
/// # Ok::<(), bcast::Error>(())
/// ```
///
/// # Threads
///
/// `Context` is `Send` but not `Sync`: the C library lets a context be used
/// by one thread at a time, moving between threads. Setters take `&mut self`,
/// so no op can be running on the context while its settings change. A scope
/// is per thread: threads spawned inside it, and thread pools such as
/// rayon's, run on the default context (see [`Context::scope`]). The
/// context's own op methods (`ctx.add(&a, &b)`, `ctx.binary(op, &a, &b)`,
/// ...) run on it from whichever thread calls them.
///
/// ```compile_fail
/// fn shared<T: Sync>() {}
/// shared::<bcast::Context>();
/// ```
pub struct Context {
    inner: NonNull<Inner>,
    // !Sync (one thread at a time); Send is granted below.
    _not_sync: PhantomData<Cell<()>>,
}

// SAFETY: the C library allows a context to move between threads as long as
// its calls do not overlap; `Context` is not `Sync` and its scope borrows it,
// so calls on it come from one thread at a time. What it owns on the Rust
// side (the handler and scheduler boxes) is `Send`.
unsafe impl Send for Context {}

impl Context {
    /// A new context with bcast's defaults (every toggle off,
    /// [`Policy::Allow`], warnings to standard error, OpenMP threads).
    pub fn new() -> Result<Context> {
        let mut raw = ptr::null_mut();
        // SAFETY: a valid out pointer; a failure is recorded in the thread's
        // error (there is no context yet).
        check_default(unsafe { sys::bc_ctx_create(&mut raw) })?;
        let raw = NonNull::new(raw).expect("bc_ctx_create returned BC_OK and NULL");
        let inner = Box::new(Inner {
            raw,
            busy: Cell::new(false),
            handler: RefCell::new(None),
            scheduler: RefCell::new(None),
        });
        // Leaked into a raw pointer (freed in Drop) rather than kept as a Box,
        // so that the pointers handed to C are never invalidated by a unique
        // borrow of the Box.
        Ok(Context {
            inner: NonNull::from(Box::leak(inner)),
            _not_sync: PhantomData,
        })
    }

    fn inner(&self) -> &Inner {
        // SAFETY: allocated in new, freed only in drop.
        unsafe { self.inner.as_ref() }
    }

    /// The raw handle, for passing to C code that takes a `bc_ctx*`. It stays
    /// owned by this `Context`; the C threading rule applies.
    pub fn as_raw(&self) -> *mut sys::bc_ctx {
        self.inner().raw.as_ptr()
    }

    /// Runs `f` with this context as the calling thread's current context:
    /// every op, constructor and shape function of this crate called by `f`
    /// on this thread runs on it (its settings, handler, threads and
    /// scheduler apply, and its errors are recorded in it). The previous
    /// current context (or the default one) is restored afterwards, also
    /// when `f` panics. Scopes nest.
    ///
    /// # Only this thread
    ///
    /// The scope is thread-local: it does **not** reach other threads, even
    /// ones `f` starts and joins. Ops that `f` runs on a spawned thread, in
    /// `std::thread::scope`, or on a thread pool (rayon's `par_iter`, ...)
    /// run on the default context, with its settings: a [`Policy::Error`]
    /// set here does not refuse them. For work on other threads, call the
    /// context's own methods, which run on it from any thread:
    /// `ctx.add(&a, &b)`, `ctx.binary(op, &a, &b)`, `ctx.where_cond(..)`
    /// (a `Context` is `Send`: move one into each thread, or share one
    /// behind a `Mutex`), or enter a scope on each thread.
    ///
    /// ```
    /// use bcast::{Context, DType, ErrorCode, Policy, Tensor};
    /// let mut ctx = Context::new()?;
    /// ctx.set_broadcast_policy(Policy::Error);
    /// let (a, b) = (Tensor::zeros(DType::Float32, &[3, 1])?, Tensor::zeros(DType::Float32, &[3])?);
    /// let on_other_thread = ctx.scope(|| std::thread::scope(|s| s.spawn(|| a.add(&b)).join().unwrap()));
    /// assert!(on_other_thread.is_ok()); // the default context's Policy::Allow
    /// let ctx = std::sync::Mutex::new(ctx);
    /// let explicit = std::thread::scope(|s| s.spawn(|| ctx.lock().unwrap().add(&a, &b)).join().unwrap());
    /// assert_eq!(explicit.unwrap_err().code, ErrorCode::Policy);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    ///
    /// # Panics
    /// When called from inside this context's own warning handler or
    /// scheduler (the C library forbids that re-entry).
    pub fn scope<R>(&self, f: impl FnOnce() -> R) -> R {
        let inner = self.inner();
        assert!(
            !inner.busy.get(),
            "bcast: Context::scope called from inside the context's own warning handler or scheduler"
        );
        let current = CURRENT.with(|c| c.replace(inner));
        let _restore = Restore {
            current,
            busy: None,
        };
        f()
    }

    fn assert_idle(&self) {
        assert!(
            !self.inner().busy.get(),
            "bcast: a Context was used from inside its own warning handler or scheduler"
        );
    }

    fn set_option(&mut self, option: sys::bc_option, value: i64) -> Result<()> {
        let raw = self.as_raw();
        // SAFETY: a live context; `&mut self` means no other call on it runs.
        check_in(raw, unsafe { sys::bc_ctx_set_option(raw, option, value) })
    }

    fn option(&self, option: sys::bc_option) -> i64 {
        self.assert_idle();
        let raw = self.as_raw();
        let mut value = 0;
        // SAFETY: a live context not in use by another call (it is not Sync,
        // and not busy on this thread); a valid out pointer.
        let status = unsafe { sys::bc_ctx_get_option(raw, option, &mut value) };
        check_in(raw, status).expect("bcast: reading a known context option failed");
        value
    }

    fn set_toggle(&mut self, option: sys::bc_option, enabled: bool) {
        self.set_option(option, enabled.into())
            .expect("bcast: 0 and 1 are valid for every toggle");
    }

    /// As [`set_broadcast_warning`](crate::set_broadcast_warning), for this context.
    pub fn set_broadcast_warning(&mut self, enabled: bool) {
        self.set_toggle(sys::BC_OPT_BROADCAST_WARNING, enabled)
    }

    /// This context's broadcast-warning setting.
    pub fn broadcast_warning(&self) -> bool {
        self.option(sys::BC_OPT_BROADCAST_WARNING) != 0
    }

    /// As [`set_legacy_pointwise`](crate::set_legacy_pointwise), for this context.
    pub fn set_legacy_pointwise(&mut self, enabled: bool) {
        self.set_toggle(sys::BC_OPT_LEGACY_POINTWISE, enabled)
    }

    /// This context's legacy-pointwise setting.
    pub fn legacy_pointwise(&self) -> bool {
        self.option(sys::BC_OPT_LEGACY_POINTWISE) != 0
    }

    /// As [`set_broadcast_policy`](crate::set_broadcast_policy), for this context.
    pub fn set_broadcast_policy(&mut self, policy: Policy) {
        self.set_option(sys::BC_OPT_POLICY, i64::from(policy.raw()))
            .expect("bcast: every Policy is valid")
    }

    /// This context's broadcast policy.
    pub fn broadcast_policy(&self) -> Policy {
        Policy::from_raw(self.option(sys::BC_OPT_POLICY))
    }

    /// As [`set_warnings_as_errors`](crate::set_warnings_as_errors), for this context.
    pub fn set_warnings_as_errors(&mut self, enabled: bool) {
        self.set_toggle(sys::BC_OPT_WARNINGS_AS_ERRORS, enabled)
    }

    /// This context's warnings-as-errors setting.
    pub fn warnings_as_errors(&self) -> bool {
        self.option(sys::BC_OPT_WARNINGS_AS_ERRORS) != 0
    }

    /// The most threads an op on this context may use; `None` restores the
    /// default (OpenMP's default count). With a [`Scheduler`], an op uses at
    /// most the smaller of this and [`Scheduler::num_threads`].
    pub fn set_num_threads(&mut self, n: Option<usize>) -> Result<()> {
        let n = match n {
            None => 0,
            Some(0) => {
                return Err(Error::new(
                    crate::ErrorCode::InvalidArgument,
                    "thread count must be at least 1",
                ))
            }
            Some(n) => i64::try_from(n).unwrap_or(i64::MAX),
        };
        self.set_option(sys::BC_OPT_NUM_THREADS, n)
    }

    /// Threads an op on this context may use (at least 1), the scheduler's
    /// count included (this asks [`Scheduler::num_threads`]).
    pub fn num_threads(&self) -> usize {
        usize::try_from(self.option(sys::BC_OPT_NUM_THREADS))
            .unwrap_or(1)
            .max(1)
    }

    /// Sends this context's warnings to `handler` instead of standard error.
    ///
    /// The handler runs on the thread that runs the op, before the op
    /// returns. bcast calls it makes run on the default context (it may not
    /// use this context: [`Context::scope`] panics there). A panic in it is
    /// caught at the FFI boundary and resumed when the op returns. The
    /// previous handler is dropped here.
    pub fn set_warning_handler<F>(&mut self, handler: F)
    where
        F: FnMut(&str) + Send + 'static,
    {
        let inner = self.inner();
        let previous = inner.handler.replace(Some(Box::new(handler)));
        // SAFETY: handler_trampoline never unwinds; `user` is this context's
        // Inner, which outlives the installation (Drop frees the C context
        // before the Inner).
        let status = unsafe {
            sys::bc_ctx_set_warning_handler(
                inner.raw.as_ptr(),
                Some(handler_trampoline),
                self.inner.as_ptr().cast::<c_void>(),
            )
        };
        debug_assert_eq!(status, sys::BC_OK);
        // C calls handlers only during ops on this context, and none runs
        // (`&mut self`): the old closure can go now.
        drop(previous);
    }

    /// Restores the default handler, which prints `"bcast warning: <message>"`
    /// to standard error, and drops the closure.
    pub fn reset_warning_handler(&mut self) {
        let inner = self.inner();
        // SAFETY: NULL restores the default.
        let status =
            unsafe { sys::bc_ctx_set_warning_handler(inner.raw.as_ptr(), None, ptr::null_mut()) };
        debug_assert_eq!(status, sys::BC_OK);
        drop(inner.handler.take());
    }

    /// Runs this context's threaded ops on `scheduler` instead of OpenMP's
    /// threads. Small ops still run on the calling thread alone, without
    /// calling it. Replaces (and drops) a previous scheduler.
    pub fn set_scheduler(&mut self, scheduler: impl Scheduler + 'static) {
        let inner = self.inner();
        let previous = inner.scheduler.replace(Some(Box::new(scheduler)));
        let raw = sys::bc_scheduler {
            num_threads: Some(scheduler_num_threads),
            run: Some(scheduler_run),
            user: self.inner.as_ptr().cast::<c_void>(),
        };
        // SAFETY: both trampolines never unwind; `user` outlives the
        // installation (see set_warning_handler); C copies the struct.
        let status = unsafe { sys::bc_ctx_set_scheduler(inner.raw.as_ptr(), &raw) };
        debug_assert_eq!(status, sys::BC_OK);
        drop(previous);
    }

    /// Gives the context back to OpenMP's threads and drops the scheduler.
    pub fn clear_scheduler(&mut self) {
        let inner = self.inner();
        // SAFETY: NULL restores OpenMP.
        let status = unsafe { sys::bc_ctx_set_scheduler(inner.raw.as_ptr(), ptr::null()) };
        debug_assert_eq!(status, sys::BC_OK);
        drop(inner.scheduler.take());
    }

    /// The last error recorded in this context (the same one the failing
    /// call returned), or `None` if no call on it has failed yet.
    pub fn last_error(&self) -> Option<Error> {
        self.assert_idle();
        let raw = self.as_raw();
        let mut detail = sys::bc_error_detail {
            code: sys::BC_OK,
            dim: -1,
            size_a: -1,
            size_b: -1,
        };
        // SAFETY: a live context, not in use elsewhere; a valid out pointer.
        let status = unsafe { sys::bc_ctx_last_error_detail(raw, &mut detail) };
        (status != sys::BC_OK).then(|| Error::from_ctx(raw, status))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: we own the C context, and nothing uses it any more (drop
        // needs ownership, scopes borrow). Freed before the Inner, so C never
        // calls a trampoline with a dangling `user`.
        unsafe { sys::bc_ctx_free(self.inner().raw.as_ptr()) };
        // SAFETY: leaked in new, freed once here; the handler and scheduler
        // drop with it.
        drop(unsafe { Box::from_raw(self.inner.as_ptr()) });
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner();
        f.debug_struct("Context")
            .field("raw", &inner.raw)
            .field(
                "warning_handler",
                &inner
                    .handler
                    .try_borrow()
                    .map(|h| h.is_some())
                    .unwrap_or(true),
            )
            .field(
                "scheduler",
                &inner
                    .scheduler
                    .try_borrow()
                    .map(|s| s.is_some())
                    .unwrap_or(true),
            )
            .finish()
    }
}

unsafe extern "C" fn handler_trampoline(message: *const c_char, user: *mut c_void) {
    // SAFETY: `user` is the Inner given with the handler, alive while it is
    // installed; only shared references to it exist.
    let inner = unsafe { &*user.cast::<Inner>() };
    // Nothing may unwind into C: catch everything and resume it on this
    // thread once the bcast call returns (see error::check_in).
    let result = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: a NUL-terminated message valid for this call.
        let text = unsafe { CStr::from_ptr(message) }.to_string_lossy();
        let _callback = enter_callback(inner);
        match inner.handler.try_borrow_mut().as_deref_mut() {
            Ok(Some(handler)) => handler(&text),
            // Not reachable through the safe API (the handler cannot
            // re-enter its context); do what the library's default does.
            _ => eprintln!("bcast warning: {text}"),
        }
    }));
    if let Err(payload) = result {
        stash_panic(payload);
    }
}

unsafe extern "C" fn scheduler_num_threads(user: *mut c_void) -> c_int {
    // SAFETY: as in handler_trampoline.
    let inner = unsafe { &*user.cast::<Inner>() };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let _callback = enter_callback(inner);
        inner
            .scheduler
            .try_borrow()
            .ok()
            .and_then(|s| s.as_ref().map(|s| s.num_threads()))
            .unwrap_or(1)
    }));
    match result {
        Ok(n) => c_int::try_from(n.max(1)).unwrap_or(c_int::MAX),
        Err(payload) => {
            stash_panic(payload);
            1
        }
    }
}

/// `task` as the chunk closure captures it.
struct Task(*mut c_void);
// SAFETY: bc_scheduler's contract: the chunks of one task may run
// concurrently on any threads; the library made `task` for that.
unsafe impl Sync for Task {}

impl Task {
    // A method, so that closures capture the whole (Sync) Task rather than
    // its raw pointer field.
    fn get(&self) -> *mut c_void {
        self.0
    }
}

unsafe extern "C" fn scheduler_run(
    user: *mut c_void,
    nchunks: usize,
    f: sys::bc_chunk_fn,
    task: *mut c_void,
) {
    // SAFETY: as in handler_trampoline.
    let inner = unsafe { &*user.cast::<Inner>() };
    let Some(f) = f else { return };
    let task = Task(task);
    // Each chunk runs exactly once whatever the scheduler does: a safe
    // implementation may call a chunk twice or concurrently with itself, or
    // skip one; the C library must see each index once.
    let claimed: Vec<AtomicBool> = (0..nchunks).map(|_| AtomicBool::new(false)).collect();
    let chunk = |i: usize| {
        if claimed
            .get(i)
            .is_some_and(|c| !c.swap(true, Ordering::AcqRel))
        {
            // SAFETY: f and task come from the library for this op; i is in
            // range and claimed by this call alone.
            unsafe { f(task.get(), i) }
        }
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let _callback = enter_callback(inner);
        if let Ok(Some(s)) = inner.scheduler.try_borrow().as_deref() {
            s.run(nchunks, &chunk);
        }
    }));
    // `chunk` is borrowed for run's call only, so no chunk is running any
    // more (scoped threads are joined even when one panics). What run left
    // undone runs here, so that the op completes before the library goes on.
    for i in 0..nchunks {
        chunk(i);
    }
    if let Err(payload) = result {
        stash_panic(payload);
    }
}
