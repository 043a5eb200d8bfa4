//! A host's own elementwise function on bcast's broadcasting, dtype
//! conversion and threads (`bc_iter`, after PyTorch's `TensorIterator` and
//! NumPy's `NpyIter`).
//!
//! bcast checks the operands as it checks its own ops (broadcasting with the
//! context's warning and policy, the output's shape, overlaps), plans the
//! iteration once (dims sorted and coalesced, repeated inputs, transposed
//! tiles, threads) and calls the host's loop on contiguous rows.
//!
//! # Typed forms
//!
//! [`map`], [`zip_map`] and [`zip3_map`] run a closure over one, two or
//! three inputs in one element type `T`: bcast converts every operand to `T`
//! (and the result from `T` to the output's dtype), and the closure gets one
//! contiguous row at a time, every slice of the same length, the output last:
//!
//! ```
//! use bcast::{iter, DType, Tensor};
//! let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3, 1])?;
//! let y = Tensor::from_slice(&[10i32, 20], &[2])?; // converted to f32 for the loop
//! let z = iter::zip_map(&x, &y, DType::Float64, |x: &[f32], y: &[f32], out: &mut [f32]| {
//!     for ((o, a), b) in out.iter_mut().zip(x).zip(y) {
//!         *o = a * b + 1.0;
//!     }
//! })?;
//! assert_eq!(z.shape(), &[3, 2]);
//! assert_eq!(z.to_vec::<f64>()?, [11.0, 21.0, 21.0, 41.0, 31.0, 61.0]);
//! # Ok::<(), bcast::Error>(())
//! ```
//!
//! The contract of the closure:
//!
//! - It gets `(input rows..., output row)`, all of the same length `n >= 1`:
//!   element `j` of each input row is the input's element at the output's
//!   element `j`. An input repeated along the row (a column `[m, 1]` under
//!   `[m, n]`, a 0-dim tensor) is given as `n` copies of its value.
//! - The closure writes every element of the output row. On entry the row
//!   holds valid values it should not rely on: the output's own, zeros, or
//!   what the closure wrote for an earlier row (bcast may hand it a buffer
//!   of its own in place of the output).
//! - Rows come in the output's memory order, not in index order, in any
//!   number of calls; the closure may not assume where a row starts.
//! - It runs on several threads at once (bcast's, or the context's
//!   [`Scheduler`](crate::Scheduler)), hence `Fn + Sync`. bcast calls it makes
//!   run on the default context, not on the [`Context`] running the loop.
//! - It returns `()`, or `Result<(), E>`: the first `Err` stops the run (rows
//!   already started on other threads finish) and is returned as
//!   [`RunError::Loop`]. A panic stops the run the same way and is resumed on
//!   the calling thread once bcast has returned: it never unwinds through C.
//!
//! `map_out`, `zip_map_out` and `zip3_map_out` write into an existing tensor
//! of the broadcast shape instead (of any dtype, converted from `T`); every
//! form has a [`Context`] method (`ctx.zip_map(..)`), and runs on the calling
//! thread's current context otherwise, as every op does.
//!
//! # The iterator
//!
//! [`Iter`] keeps the plan, to run it again (on new operands of the same
//! shapes and dtypes with [`Iter::reset`]), to give each operand a dtype of
//! its own, to see whole 2-D blocks with their repeated inputs
//! ([`Block`]), to run a `FnMut` on the calling thread ([`Iter::run_serial`]),
//! or to run the chunks on threads of the host's own ([`Iter::run_chunk`],
//! pull mode).
//!
//! ```
//! use bcast::iter::Iter;
//! use bcast::{DType, Tensor};
//! let x = Tensor::from_slice(&[1.5f32, -2.0, 3.0], &[3])?;
//! let lim = Tensor::scalar(2.0f64)?;
//! // |x| > lim, a Bool output, from a float32 and a float64 input as they are.
//! let mut it = Iter::builder(&[&x, &lim]).out_dtype(DType::Bool).build()?;
//! it.run(|mut blk| {
//!     for i in 0..blk.rows() {
//!         let x = blk.input::<f32>(0, i);
//!         let lim = blk.input::<f64>(1, i); // repeated: a 0-dim input
//!         let out = blk.output::<bool>(i);
//!         for (j, o) in out.iter_mut().enumerate() {
//!             *o = f64::from(x.get(j).abs()) > lim.get(j);
//!         }
//!     }
//! })?;
//! assert_eq!(it.into_output()?.to_vec::<bool>()?, [false, false, true]);
//! # Ok::<(), bcast::Error>(())
//! ```

use std::any::Any;
use std::convert::Infallible;
use std::ffi::{c_char, c_int, c_void};
use std::fmt;
use std::marker::PhantomData;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use bcast_sys as sys;

use crate::context::{current_raw, outside_scopes, Context};
use crate::dtype::{DType, Element};
use crate::error::{check_in, Error, ErrorCode, Result};
use crate::tensor::{Tensor, TensorRef, TensorView};
use crate::types::result_type;

/// What [`Iter::callback_code`] reports after a loop returned an `Err`.
pub const CODE_LOOP_ERROR: i32 = 1;
/// What [`Iter::callback_code`] reports after a loop panicked.
pub const CODE_LOOP_PANIC: i32 = 2;

mod sealed {
    pub trait Sealed {}
    impl Sealed for () {}
    impl<E> Sealed for Result<(), E> {}
}

/// What a loop returns: `()`, or `Result<(), E>` for a loop that can fail.
pub trait LoopResult: sealed::Sealed {
    /// The loop's error type (`Infallible` for `()`).
    type Error;
    /// The outcome as a `Result`.
    fn into_result(self) -> Result<(), Self::Error>;
}

impl LoopResult for () {
    type Error = Infallible;
    fn into_result(self) -> Result<(), Infallible> {
        Ok(())
    }
}

impl<E> LoopResult for Result<(), E> {
    type Error = E;
    fn into_result(self) -> Result<(), E> {
        self
    }
}

/// Why a run failed: bcast refused or failed, or the loop returned an error.
///
/// For an infallible loop (`E` = `Infallible`) it converts into [`Error`],
/// so `?` works in a function returning `bcast::Result`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError<E> {
    /// bcast's own error: the operands (shapes, dtypes, overlaps, policy),
    /// an allocation, or pull-mode misuse.
    Bcast(Error),
    /// The first error the loop returned (of any thread).
    Loop(E),
}

impl<E: fmt::Display> fmt::Display for RunError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Bcast(e) => fmt::Display::fmt(e, f),
            RunError::Loop(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for RunError<E> {}

impl<E> From<Error> for RunError<E> {
    fn from(e: Error) -> Self {
        RunError::Bcast(e)
    }
}

impl From<RunError<Infallible>> for Error {
    fn from(e: RunError<Infallible>) -> Error {
        match e {
            RunError::Bcast(e) => e,
            RunError::Loop(never) => match never {},
        }
    }
}

// ---------------------------------------------------------------- blocks

/// One 2-D block of the iteration, as the loop sees it: [`rows`](Block::rows)
/// rows of [`row_len`](Block::row_len) elements of every operand, each
/// operand in its loop dtype ([`Iter::loop_dtypes`]).
///
/// Input rows are read with [`input`](Block::input), which says whether the
/// input is contiguous along the row or one value repeated (a loop may
/// specialise on that); output rows are written through
/// [`output`](Block::output). An output row may be the output tensor's
/// memory or a buffer of bcast's (a streamed tile, a conversion or scatter
/// buffer); either way it holds valid values on entry (the output's own,
/// zeros, or what the loop wrote there for an earlier block), which the
/// loop should overwrite, not read.
pub struct Block<'a> {
    data: &'a [*mut c_char],
    strides: &'a [i64],
    dtypes: &'a [DType],
    n0: usize,
    n1: usize,
}

impl<'a> Block<'a> {
    /// # Safety
    /// `data` and `strides` as a `bc_loop2d_fn` gets them for `dtypes.len()`
    /// operands in those dtypes, valid for `'a`, with `n0, n1 >= 1`.
    unsafe fn from_raw(
        dtypes: &'a [DType],
        data: *const *mut c_char,
        strides: *const i64,
        n0: i64,
        n1: i64,
    ) -> Block<'a> {
        let nops = dtypes.len();
        Block {
            // SAFETY: the library passes nops pointers and 2*nops strides.
            data: unsafe { std::slice::from_raw_parts(data, nops) },
            // SAFETY: see above.
            strides: unsafe { std::slice::from_raw_parts(strides, 2 * nops) },
            dtypes,
            n0: usize::try_from(n0).expect("bcast passed a negative row length"),
            n1: usize::try_from(n1).expect("bcast passed a negative row count"),
        }
    }

    /// Elements per row (at least 1).
    pub fn row_len(&self) -> usize {
        self.n0
    }

    /// Rows (at least 1).
    pub fn rows(&self) -> usize {
        self.n1
    }

    /// Number of inputs.
    pub fn num_inputs(&self) -> usize {
        self.dtypes.len() - 1
    }

    /// The dtype the loop reads input `k` in.
    pub fn input_dtype(&self, k: usize) -> DType {
        self.dtypes[1 + self.check_input(k)]
    }

    /// The dtype the loop writes the output in.
    pub fn output_dtype(&self) -> DType {
        self.dtypes[0]
    }

    /// True when input `k` is one value repeated along each row (its inner
    /// stride is 0): a column under a matrix, a 0-dim tensor.
    pub fn is_repeated(&self, k: usize) -> bool {
        self.strides[1 + self.check_input(k)] == 0
    }

    #[track_caller]
    fn check_input(&self, k: usize) -> usize {
        assert!(
            k < self.num_inputs(),
            "bcast: input {k} of a loop over {} inputs",
            self.num_inputs()
        );
        k
    }

    /// Where row `row` of operand `op` starts, checked for `T`.
    #[track_caller]
    fn row_start<T: Element>(&self, op: usize, row: usize) -> *mut c_char {
        let dtype = self.dtypes[op];
        assert!(
            T::DTYPE == dtype,
            "bcast: the loop sees {} in {dtype:?}, not {:?}",
            if op == 0 {
                "the output".to_string()
            } else {
                format!("input {}", op - 1)
            },
            T::DTYPE
        );
        assert!(
            row < self.n1,
            "bcast: row {row} of a block of {} rows",
            self.n1
        );
        let outer = self.strides[self.dtypes.len() + op] as isize;
        // SAFETY: row < n1, so the address is that of a row of the block
        // (outer strides may be negative; none leaves the operand).
        let p = unsafe { self.data[op].offset(row as isize * outer) };
        assert!(
            p as usize % std::mem::align_of::<T>() == 0,
            "bcast: misaligned {dtype:?} operand"
        );
        p
    }

    /// Row `row` of input `k` (0 is the first input) as `T`, which must be
    /// the input's loop dtype.
    ///
    /// # Panics
    /// If `k` or `row` is out of range, or `T` is not the input's loop dtype.
    #[track_caller]
    pub fn input<T: Element>(&self, k: usize, row: usize) -> InputRow<'a, T> {
        let op = 1 + self.check_input(k);
        let p = self.row_start::<T>(op, row) as *const T;
        if self.strides[op] == 0 {
            InputRow::Repeated {
                // SAFETY: an element of the operand, aligned (checked), of
                // T's dtype, initialised (a tensor's or a converted one).
                value: unsafe { p.read() },
                len: self.n0,
            }
        } else {
            debug_assert_eq!(self.strides[op], std::mem::size_of::<T>() as i64);
            // SAFETY: a contiguous row of n0 elements of T that only reads
            // reach during the call ('a): inputs share no byte with the
            // output (bcast refuses partial overlaps, and this crate's
            // borrows rule out an input that is the output).
            InputRow::Contiguous(unsafe { std::slice::from_raw_parts(p, self.n0) })
        }
    }

    /// Row `row` of the output as `T`, which must be the output's loop
    /// dtype. Its values on entry are valid but unspecified (see [`Block`]).
    ///
    /// # Panics
    /// If `row` is out of range, or `T` is not the output's loop dtype.
    #[track_caller]
    pub fn output<T: Element>(&mut self, row: usize) -> &mut [T] {
        let p = self.row_start::<T>(0, row) as *mut T;
        assert_eq!(
            self.strides[0],
            std::mem::size_of::<T>() as i64,
            "bcast: the output's inner stride is the element size"
        );
        // SAFETY: n0 contiguous, aligned elements of T, written by no one
        // else during the call: blocks are disjoint, rows of a block too;
        // `&mut self` keeps one output row borrowed at a time. Initialised
        // with valid values of T: bcast.h (group iter) guarantees that every
        // output row a loop sees holds initialised bytes, either the output
        // tensor's own elements (valid T: this crate's tensors hold valid
        // values, and an output the iterator allocated is zero-filled) or a
        // buffer zero-filled when its range of the run began, since written
        // only by this run's loop (through these slices, or `raw_parts`,
        // whose caller promises valid values) and by bcast's making a Bool
        // element 0 or 1.
        unsafe { std::slice::from_raw_parts_mut(p, self.n0) }
    }

    /// The block as the C loop gets it: `nops` data pointers (the output's,
    /// then each input's) and `2 * nops` byte strides (inner ones, 0 for a
    /// repeated input, then outer ones between rows). Element (row `i`,
    /// column `j`) of operand `k` is at
    /// `data[k] + i * strides[nops + k] + j * strides[k]`.
    ///
    /// # Safety
    /// Whatever the loop writes into the output's rows must be valid values
    /// of the output's loop dtype (0 or 1 for `Bool`): later blocks see them
    /// as `&mut [T]` when bcast reuses its buffer, and the output tensor
    /// keeps them. The loop should write every element of the rows.
    pub unsafe fn raw_parts(&mut self) -> (&'a [*mut c_char], &'a [i64]) {
        (self.data, self.strides)
    }
}

impl fmt::Debug for Block<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Block")
            .field("rows", &self.n1)
            .field("row_len", &self.n0)
            .field("dtypes", &self.dtypes)
            .field("strides", &self.strides)
            .finish()
    }
}

/// One row of an input, as [`Block::input`] reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InputRow<'a, T> {
    /// The row's elements, in order.
    Contiguous(&'a [T]),
    /// One value for the whole row of `len` elements.
    Repeated {
        /// The value.
        value: T,
        /// The row's length.
        len: usize,
    },
}

impl<'a, T: Copy + 'a> InputRow<'a, T> {
    /// The row's length.
    pub fn len(&self) -> usize {
        match self {
            InputRow::Contiguous(s) => s.len(),
            InputRow::Repeated { len, .. } => *len,
        }
    }

    /// True for a row of no element (never the case in a block).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `j`.
    ///
    /// # Panics
    /// If `j` is out of range.
    #[track_caller]
    pub fn get(&self, j: usize) -> T {
        match *self {
            InputRow::Contiguous(s) => s[j],
            InputRow::Repeated { value, len } => {
                assert!(j < len, "index {j} of a row of {len} elements");
                value
            }
        }
    }

    /// The elements, in order.
    pub fn iter(&self) -> impl Iterator<Item = T> + 'a {
        let row = *self;
        (0..row.len()).map(move |j| row.get(j))
    }
}

// ---------------------------------------------------------------- loops

/// The first failure of a run, kept for the calling thread.
enum Failure<E> {
    Loop(E),
    Panic(Box<dyn Any + Send>),
}

/// The first failure of a run; a panic replaces an error (a panic is never
/// dropped).
struct Slot<E>(Mutex<Option<Failure<E>>>);

impl<E> Slot<E> {
    fn new() -> Self {
        Slot(Mutex::new(None))
    }

    fn into_inner(self) -> Option<Failure<E>> {
        self.0.into_inner().unwrap_or_else(|p| p.into_inner())
    }

    fn record(&self, f: Failure<E>) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if matches!(
            (&*slot, &f),
            (None, _) | (Some(Failure::Loop(_)), Failure::Panic(_))
        ) {
            *slot = Some(f);
        }
    }

    /// Runs one call of the loop outside every scope and catches what it
    /// raises; returns the code for C.
    fn call(&self, body: impl FnOnce() -> Result<(), E>) -> c_int {
        let (code, failure) = match catch_unwind(AssertUnwindSafe(|| outside_scopes(body))) {
            Ok(Ok(())) => return 0,
            Ok(Err(e)) => (CODE_LOOP_ERROR, Failure::Loop(e)),
            Err(payload) => (CODE_LOOP_PANIC, Failure::Panic(payload)),
        };
        // Recording may drop the host's error (a later one loses): its Drop
        // runs here, on C's stack, so it is caught too.
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| self.record(failure))) {
            std::mem::forget(p);
        }
        code
    }
}

struct LoopState<'s, F, E> {
    f: F,
    dtypes: &'s [DType],
    failure: Slot<E>,
}

/// Runs `f` on one block.
///
/// # Safety
/// As [`Block::from_raw`].
unsafe fn call_block<R: LoopResult>(
    failure: &Slot<R::Error>,
    dtypes: &[DType],
    data: *const *mut c_char,
    strides: *const i64,
    n0: i64,
    n1: i64,
    f: impl FnOnce(Block<'_>) -> R,
) -> c_int {
    failure.call(|| {
        // SAFETY: the caller's.
        let block = unsafe { Block::from_raw(dtypes, data, strides, n0, n1) };
        f(block).into_result()
    })
}

/// `bc_loop2d_fn` for a loop shared by every thread of a run.
unsafe extern "C" fn shared_loop<F, R>(
    user: *mut c_void,
    data: *const *mut c_char,
    strides: *const i64,
    n0: i64,
    n1: i64,
) -> c_int
where
    F: Fn(Block<'_>) -> R + Sync,
    R: LoopResult,
{
    // SAFETY: `user` is the LoopState that Iter::run passed, alive until
    // bc_iter_run returns; only shared references to it exist (F is Sync,
    // the slot a Mutex).
    let state = unsafe { &*user.cast::<LoopState<'_, F, R::Error>>() };
    // SAFETY: the library's block for these dtypes.
    unsafe {
        call_block(
            &state.failure,
            state.dtypes,
            data,
            strides,
            n0,
            n1,
            &state.f,
        )
    }
}

/// `bc_loop2d_fn` for a loop that runs on the calling thread only.
unsafe extern "C" fn exclusive_loop<F, R>(
    user: *mut c_void,
    data: *const *mut c_char,
    strides: *const i64,
    n0: i64,
    n1: i64,
) -> c_int
where
    F: FnMut(Block<'_>) -> R,
    R: LoopResult,
{
    // SAFETY: `user` is the LoopState that Iter::run_chunk passed, alive
    // until bc_iter_run_chunk returns, which calls the loop on the calling
    // thread, one block after the other: this is the only reference.
    let state = unsafe { &mut *user.cast::<LoopState<'_, F, R::Error>>() };
    let f = &mut state.f;
    // SAFETY: the library's block for these dtypes.
    unsafe { call_block(&state.failure, state.dtypes, data, strides, n0, n1, f) }
}

// ---------------------------------------------------------------- iterator

/// The output an [`IterBuilder`] asks for.
#[derive(Debug)]
enum Out<'a> {
    /// Allocated, of the inputs' result type.
    Default,
    /// Allocated, of this dtype.
    Dtype(DType),
    /// The caller's.
    Tensor(&'a mut TensorRef),
}

/// Sets up an [`Iter`]: its inputs, its output, the dtypes its loop sees,
/// its context.
///
/// ```
/// use bcast::iter::Iter;
/// use bcast::{Context, DType, Tensor};
/// let a = Tensor::from_slice(&[1i32, 2, 3], &[3])?;
/// let b = Tensor::from_slice(&[0.5f32], &[1])?;
/// let mut out = Tensor::zeros(DType::Float16, &[3])?;
/// let mut ctx = Context::new()?;
/// let mut it = Iter::builder(&[&a, &b])
///     .out(&mut out)
///     .loop_dtype(DType::Float64) // every operand seen as f64
///     .context(&mut ctx)
///     .build()?;
/// it.run(|mut blk| {
///     for i in 0..blk.rows() {
///         let (a, b) = (blk.input::<f64>(0, i), blk.input::<f64>(1, i));
///         for (j, o) in blk.output::<f64>(i).iter_mut().enumerate() {
///             *o = a.get(j) * b.get(j);
///         }
///     }
/// })?;
/// drop(it);
/// assert_eq!(out.to_dtype(DType::Float32)?.to_vec::<f32>()?, [0.5, 1.0, 1.5]);
/// # Ok::<(), bcast::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "an IterBuilder does nothing until built"]
pub struct IterBuilder<'a> {
    inputs: Vec<&'a TensorRef>,
    out: Out<'a>,
    loop_dtypes: Option<Vec<DType>>,
    ctx: Option<&'a mut Context>,
}

impl<'a> IterBuilder<'a> {
    /// An iterator over these inputs (1 to 3; they broadcast together). By
    /// default it allocates its output, of the inputs' [`result_type`]
    /// (PyTorch's promotion), the loop sees every operand in its own dtype,
    /// and it runs on the default context.
    pub fn new(inputs: &[&'a TensorRef]) -> Self {
        IterBuilder {
            inputs: inputs.to_vec(),
            out: Out::Default,
            loop_dtypes: None,
            ctx: None,
        }
    }

    /// Writes into `out`, which must have the broadcast shape (any dtype,
    /// writable, sharing no memory with an input).
    pub fn out(mut self, out: &'a mut TensorRef) -> Self {
        self.out = Out::Tensor(out);
        self
    }

    /// Allocates the output, of `dtype` (contiguous, zero-filled by bcast
    /// until a run writes it).
    pub fn out_dtype(mut self, dtype: DType) -> Self {
        self.out = Out::Dtype(dtype);
        self
    }

    /// The loop sees every operand in `dtype`: bcast converts the inputs to
    /// it and the output from it, a tile at a time, as `copy_` converts.
    pub fn loop_dtype(mut self, dtype: DType) -> Self {
        self.loop_dtypes = Some(vec![dtype; self.inputs.len() + 1]);
        self
    }

    /// The dtype the loop sees each operand in, the output's first, then
    /// each input's (one more than the inputs).
    pub fn loop_dtypes(mut self, dtypes: &[DType]) -> Self {
        self.loop_dtypes = Some(dtypes.to_vec());
        self
    }

    /// Runs on `ctx`: its broadcast policy and warnings apply when the
    /// iterator is built and reset, its threads and scheduler when it runs,
    /// and its errors are recorded there. The iterator borrows it exclusively
    /// for its whole life.
    pub fn context(mut self, ctx: &'a mut Context) -> Self {
        self.ctx = Some(ctx);
        self
    }

    /// Checks the operands and plans the iteration.
    ///
    /// # Errors
    /// As bcast's own ops: [`ErrorCode::NotBroadcastable`],
    /// [`ErrorCode::ShapeMismatch`] (the output's shape),
    /// [`ErrorCode::Overlap`], [`ErrorCode::Policy`]; and
    /// [`ErrorCode::InvalidArgument`] for no input or more than 3, a
    /// read-only output, or loop dtypes of the wrong count.
    pub fn build(self) -> Result<Iter<'a>> {
        let ctx = self.ctx.as_ref().map_or(ptr::null_mut(), |c| c.as_raw());
        Iter::new_in(ctx, &self.inputs, self.out, self.loop_dtypes.as_deref())
    }
}

/// A planned iteration of a host's loop over an output and its broadcast
/// inputs (`bc_iter`), made with [`Iter::builder`].
///
/// - [`run`](Iter::run) calls a `Fn + Sync` loop on the context's threads;
///   [`run_serial`](Iter::run_serial) a `FnMut` on the calling thread.
/// - [`run_chunk`](Iter::run_chunk) (pull mode) runs one of
///   [`num_chunks`](Iter::num_chunks) chunks on the calling thread, for
///   threads of the host's own: distinct chunks may run at once (`&self`).
/// - [`output`](Iter::output) reads the output; [`into_output`](Iter::into_output)
///   takes an allocated one.
/// - [`reset`](Iter::reset) points the plan at new operands.
///
/// The loop gets [`Block`]s. An `Err` it returns stops the run (rows
/// started on other threads finish) and comes back as [`RunError::Loop`],
/// the first one when several threads fail; a panic stops it the same way
/// and is resumed on the calling thread after bcast returns. The output is
/// then partly written.
///
/// Pull mode, chunks on scoped threads:
///
/// ```
/// use bcast::iter::Iter;
/// use bcast::{DType, Tensor};
/// let x = Tensor::from_vec((0..200_000).map(|v| v as f32).collect(), &[400, 500])?;
/// let it = Iter::builder(&[&x]).out_dtype(DType::Float32).build()?;
/// let n = it.num_chunks();
/// std::thread::scope(|s| {
///     for t in 0..2 {
///         let it = &it;
///         s.spawn(move || {
///             for i in (t..n).step_by(2) {
///                 it.run_chunk(i, |mut blk| {
///                     for r in 0..blk.rows() {
///                         let x = blk.input::<f32>(0, r);
///                         for (j, o) in blk.output::<f32>(r).iter_mut().enumerate() {
///                             *o = 2.0 * x.get(j);
///                         }
///                     }
///                 })
///                 .unwrap();
///             }
///         });
///     }
/// });
/// assert_eq!(it.into_output()?.to_vec::<f32>()?[199_999], 399_998.0);
/// # Ok::<(), bcast::Error>(())
/// ```
///
/// The compiler holds the rules: `run` wants a loop that may run on
/// several threads at once (`Fn + Sync`; a `FnMut` goes to `run_serial`),
///
/// ```compile_fail
/// # use bcast::{iter::Iter, DType, Tensor};
/// let x = Tensor::zeros(DType::Float32, &[4]).unwrap();
/// let mut it = Iter::builder(&[&x]).build().unwrap();
/// let mut calls = 0;
/// it.run(|_blk| calls += 1).unwrap();
/// ```
///
/// and nothing of a block outlives the call that got it:
///
/// ```compile_fail
/// # use bcast::{iter::Iter, DType, Tensor};
/// let x = Tensor::zeros(DType::Float32, &[4]).unwrap();
/// let mut it = Iter::builder(&[&x]).build().unwrap();
/// let mut rows = Vec::new();
/// it.run_serial(|blk| rows.push(blk.input::<f32>(0, 0))).unwrap();
/// ```
pub struct Iter<'a> {
    raw: NonNull<sys::bc_iter>,
    /// The context it was made on (NULL: the default one), borrowed for 'a.
    ctx: *mut sys::bc_ctx,
    nin: usize,
    /// The loop's dtypes, the output's first.
    dtypes: Vec<DType>,
    /// The output was allocated by the iterator (not the caller's).
    allocated: bool,
    /// Per chunk: running on some thread now (pull mode).
    running: Box<[AtomicBool]>,
    _borrow: PhantomData<(&'a TensorRef, &'a mut TensorRef, &'a mut Context)>,
}

// SAFETY: Send — the C iterator has no thread affinity; the context it keeps
// is borrowed exclusively for 'a (and a Context may move between threads),
// so moving the iterator moves that context's only user; the tensors it
// borrows are Sync (inputs) or exclusively borrowed (the output).
unsafe impl Send for Iter<'_> {}
// SAFETY: Sync — through `&Iter` only getters of the plan, the atomic
// callback code and run_chunk are reachable. The header allows distinct
// chunks of one iterator at once and run_chunk records nothing in the
// context; `running` refuses a chunk that is already running, so no two
// threads ever write the same output rows. Everything else takes `&mut`.
unsafe impl Sync for Iter<'_> {}

impl<'a> Iter<'a> {
    /// A builder over these inputs (see [`IterBuilder`]).
    pub fn builder(inputs: &[&'a TensorRef]) -> IterBuilder<'a> {
        IterBuilder::new(inputs)
    }

    /// Makes the iterator on `ctx` (NULL: the default context), which must
    /// outlive it.
    fn new_in(
        ctx: *mut sys::bc_ctx,
        inputs: &[&'a TensorRef],
        out: Out<'a>,
        loop_dtypes: Option<&[DType]>,
    ) -> Result<Iter<'a>> {
        let nin = inputs.len();
        let valid = (1..sys::BC_ITER_MAX_OPERANDS).contains(&nin);
        // With a bad input count, bcast's message says so; the loop dtypes
        // are then not read.
        if let (true, Some(d)) = (valid, loop_dtypes) {
            if d.len() != nin + 1 {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "{} loop dtypes for an iterator over {} operands (the output and {nin} inputs)",
                        d.len(),
                        nin + 1
                    ),
                ));
            }
        }
        let (out_ptr, out_dtype) = match out {
            Out::Tensor(t) => (t.as_mut_ptr(), t.dtype()),
            Out::Dtype(d) => (ptr::null_mut(), d),
            Out::Default if valid => (ptr::null_mut(), result_type(inputs, &[])?),
            Out::Default => (ptr::null_mut(), DType::Float32),
        };
        let ptrs: Vec<*const sys::bc_tensor> = inputs.iter().map(|t| t.as_ptr()).collect();
        let raw_dtypes: Option<Vec<sys::bc_dtype>> =
            loop_dtypes.map(|d| d.iter().map(|d| d.raw()).collect());
        let spec = sys::bc_iter_spec {
            inputs: ptrs.as_ptr(),
            nin,
            out: out_ptr,
            out_dtype: out_dtype.raw(),
            loop_dtypes: raw_dtypes.as_ref().map_or(ptr::null(), |d| d.as_ptr()),
            flags: 0,
        };
        let mut raw = ptr::null_mut();
        // SAFETY: the spec's pointers are live for the call (nin handles,
        // nin + 1 dtypes when given, checked above); the library keeps views
        // of the tensors, which 'a keeps alive and unwritten by others, and
        // the context, which the caller keeps alive for 'a.
        let status = unsafe { sys::bc_ctx_iter_new(ctx, &spec, &mut raw) };
        check_in(ctx, status)?;
        let raw = NonNull::new(raw).expect("bc_iter_new returned BC_OK and NULL");
        let dtypes = match loop_dtypes {
            Some(d) => d.to_vec(),
            None => std::iter::once(out_dtype)
                .chain(inputs.iter().map(|t| t.dtype()))
                .collect(),
        };
        let mut it = Iter {
            raw,
            ctx,
            nin,
            dtypes,
            allocated: out_ptr.is_null(),
            running: Box::new([]),
            _borrow: PhantomData,
        };
        it.replanned();
        Ok(it)
    }

    /// After a new plan: chunk flags for its chunks. (An output bcast
    /// allocated is zero-filled: bc_iter_spec::out in bcast.h.)
    fn replanned(&mut self) {
        self.running = (0..self.num_chunks())
            .map(|_| AtomicBool::new(false))
            .collect();
    }

    /// A new handle on the output. The caller decides what it may do with it.
    fn output_handle(&self) -> Result<Tensor> {
        let mut out = ptr::null_mut();
        // SAFETY: a live iterator, not running (callers hold `&mut self` or
        // the iterator alone); a valid out pointer.
        let status = unsafe { sys::bc_iter_output(self.raw.as_ptr(), &mut out) };
        check_in(self.ctx, status)?;
        // SAFETY: on success a new handle owned by us.
        Ok(unsafe { Tensor::from_raw(out) })
    }

    /// The raw handle, for calling the C API directly; it stays owned by
    /// this `Iter`.
    pub fn as_raw(&self) -> *mut sys::bc_iter {
        self.raw.as_ptr()
    }

    /// The number of elements of the broadcast shape (0 when empty).
    pub fn numel(&self) -> usize {
        // SAFETY: a live iterator; a plain getter.
        let n = unsafe { sys::bc_iter_numel(self.raw.as_ptr()) };
        usize::try_from(n).expect("bcast returned a negative element count")
    }

    /// Pull mode: the number of chunks (0 for an empty shape), fixed by the
    /// plan: about 32768 elements or more each, at most 1024.
    pub fn num_chunks(&self) -> usize {
        // SAFETY: a live iterator; a plain getter.
        unsafe { sys::bc_iter_num_chunks(self.raw.as_ptr()) }
    }

    /// The dtypes the loop sees, the output's first, then each input's.
    pub fn loop_dtypes(&self) -> &[DType] {
        &self.dtypes
    }

    /// The code of the first failure since the last run, reset or
    /// [`clear_failure`](Iter::clear_failure): [`CODE_LOOP_ERROR`] after an
    /// `Err`, [`CODE_LOOP_PANIC`] after a panic, 0 if none.
    pub fn callback_code(&self) -> i32 {
        // SAFETY: a live iterator; an atomic read.
        unsafe { sys::bc_iter_callback_code(self.raw.as_ptr()) }
    }

    /// Forgets a loop's failure, so that pull-mode chunks run again (a
    /// chunk after a failed one returns an error without running).
    pub fn clear_failure(&mut self) {
        // SAFETY: a live iterator, not running (`&mut self`).
        unsafe { sys::bc_iter_clear_failure(self.raw.as_ptr()) }
    }

    /// Runs `f` over every element, on the calling thread and the context's
    /// threads (OpenMP's, or its [`Scheduler`](crate::Scheduler)), as bcast's
    /// own ops run. `f` may be called from several threads at once, on
    /// disjoint blocks.
    ///
    /// # Errors
    /// [`RunError::Loop`] with the first error `f` returned; the output is
    /// then partly written. A panic in `f` is resumed here.
    pub fn run<F, R>(&mut self, f: F) -> Result<(), RunError<R::Error>>
    where
        F: Fn(Block<'_>) -> R + Sync,
        R: LoopResult,
        R::Error: Send,
    {
        let state = LoopState {
            f,
            dtypes: &self.dtypes,
            failure: Slot::new(),
        };
        // SAFETY: a live iterator, running nothing else (`&mut self`);
        // shared_loop::<F, R> matches `state`, which lives until the call
        // returns, when no call of the loop is left running; it never
        // unwinds.
        let status = unsafe {
            sys::bc_iter_run(
                self.raw.as_ptr(),
                Some(shared_loop::<F, R>),
                ptr::addr_of!(state).cast_mut().cast(),
            )
        };
        finish(self.ctx, status, state.failure)
    }

    /// Runs `f` over every element on the calling thread, in order: the
    /// chunks of pull mode one after the other. For a loop that is not
    /// `Sync` or keeps state (a `FnMut`).
    ///
    /// A running sum (a contiguous output's memory order is its index
    /// order):
    ///
    /// ```
    /// use bcast::iter::Iter;
    /// use bcast::Tensor;
    /// let x = Tensor::from_slice(&[3i64, 1, 4, 1, 5], &[5])?;
    /// let mut total = 0;
    /// let mut it = Iter::builder(&[&x]).build()?;
    /// it.run_serial(|mut blk| {
    ///     for i in 0..blk.rows() {
    ///         let x = blk.input::<i64>(0, i);
    ///         for (j, o) in blk.output::<i64>(i).iter_mut().enumerate() {
    ///             total += x.get(j);
    ///             *o = total;
    ///         }
    ///     }
    /// })?;
    /// assert_eq!(it.into_output()?.to_vec::<i64>()?, [3, 4, 8, 9, 14]);
    /// # Ok::<(), bcast::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`run`](Iter::run); nothing is recorded in the context.
    pub fn run_serial<F, R>(&mut self, mut f: F) -> Result<(), RunError<R::Error>>
    where
        F: FnMut(Block<'_>) -> R,
        R: LoopResult,
    {
        self.clear_failure();
        for i in 0..self.num_chunks() {
            self.run_chunk(i, &mut f)?;
        }
        Ok(())
    }

    /// Pull mode: runs chunk `i` (of [`num_chunks`](Iter::num_chunks)) on
    /// the calling thread. The host runs every chunk once, on threads of its
    /// own, in any order and at once; bcast starts no thread.
    ///
    /// # Errors
    /// [`RunError::Loop`] with the error `f` returned; [`RunError::Bcast`]
    /// with [`ErrorCode::Callback`] when a chunk failed earlier (on any
    /// thread, until [`clear_failure`](Iter::clear_failure)), and
    /// [`ErrorCode::InvalidArgument`] for `i` out of range or a chunk that is
    /// running on another thread now. A panic in `f` is resumed here.
    pub fn run_chunk<F, R>(&self, i: usize, f: F) -> Result<(), RunError<R::Error>>
    where
        F: FnMut(Block<'_>) -> R,
        R: LoopResult,
    {
        let n = self.running.len();
        let Some(running) = self.running.get(i) else {
            return Err(RunError::Bcast(Error::new(
                ErrorCode::InvalidArgument,
                format!("chunk {i} is out of range: the iterator has {n} chunks"),
            )));
        };
        if running.swap(true, Ordering::Acquire) {
            return Err(RunError::Bcast(Error::new(
                ErrorCode::InvalidArgument,
                format!("chunk {i} is already running on another thread"),
            )));
        }
        // Released also when `f`'s panic is resumed below.
        struct Release<'r>(&'r AtomicBool);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }
        let _release = Release(running);
        let mut state = LoopState {
            f,
            dtypes: &self.dtypes,
            failure: Slot::new(),
        };
        // SAFETY: a live iterator; chunk i runs on no other thread (claimed
        // above) and the others write other rows; exclusive_loop::<F, R>
        // matches `state`, which lives until the call returns; the library
        // calls it on this thread only and it never unwinds.
        let status = unsafe {
            sys::bc_iter_run_chunk(
                self.raw.as_ptr(),
                i,
                Some(exclusive_loop::<F, R>),
                ptr::addr_of_mut!(state).cast(),
            )
        };
        match state.failure.into_inner() {
            Some(Failure::Panic(payload)) => resume_unwind(payload),
            Some(Failure::Loop(e)) => Err(RunError::Loop(e)),
            None if status == sys::BC_OK => Ok(()),
            None => {
                let code = ErrorCode::from_raw(status).unwrap_or(ErrorCode::Internal);
                let message = if code == ErrorCode::Callback {
                    format!(
                        "chunk {i} did not run: the loop failed in another chunk (code {})",
                        self.callback_code()
                    )
                } else {
                    format!("bc_iter_run_chunk failed on chunk {i} of {n}")
                };
                Err(RunError::Bcast(Error::new(code, message)))
            }
        }
    }

    /// The output (the tensor given to [`IterBuilder::out`], or the one the
    /// iterator allocated), read-only while it is borrowed.
    pub fn output(&mut self) -> Result<TensorView<'_>> {
        let t = self.output_handle()?;
        // SAFETY: a handle we own over the output, which nothing writes while
        // the view borrows the iterator mutably (runs need `&mut self` or
        // `&self`), and which lives at least as long as the iterator (the
        // caller's for 'a, or kept by the iterator).
        Ok(unsafe { TensorView::from_raw(t.into_raw()) })
    }

    /// The output the iterator allocated, which outlives it.
    ///
    /// # Errors
    /// [`ErrorCode::InvalidArgument`] when the iterator writes a tensor it
    /// was given: read that one once the iterator is dropped.
    pub fn into_output(self) -> Result<Tensor> {
        if !self.allocated {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "the iterator writes the tensor it was given (IterBuilder::out): read that one",
            ));
        }
        // The only other handle, the iterator's, goes with it.
        self.output_handle()
    }

    /// Points the iterator at new operands of the shapes and dtypes it was
    /// made with (strides may differ), checked as [`IterBuilder::build`]
    /// checks them; `out: None` allocates a new output (zero-filled).
    /// Forgets a loop's failure. On failure the iterator keeps its operands.
    ///
    /// # Errors
    /// As [`IterBuilder::build`]; [`ErrorCode::ShapeMismatch`] or
    /// [`ErrorCode::Dtype`] for an operand whose shape or dtype differs, and
    /// [`ErrorCode::InvalidArgument`] for another number of inputs.
    pub fn reset(
        &mut self,
        inputs: &[&'a TensorRef],
        out: Option<&'a mut TensorRef>,
    ) -> Result<()> {
        if inputs.len() != self.nin {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "reset with {} inputs an iterator over {}",
                    inputs.len(),
                    self.nin
                ),
            ));
        }
        let ptrs: Vec<*const sys::bc_tensor> = inputs.iter().map(|t| t.as_ptr()).collect();
        let allocated = out.is_none();
        let out = out.map_or(ptr::null_mut(), |t| t.as_mut_ptr());
        // SAFETY: a live iterator, not running (`&mut self`); nin live
        // handles borrowed for 'a, as at build.
        let status = unsafe { sys::bc_iter_reset(self.raw.as_ptr(), ptrs.as_ptr(), out) };
        check_in(self.ctx, status)?;
        self.allocated = allocated;
        self.replanned();
        Ok(())
    }
}

/// The result of a push-mode run: the loop's failure first (a panic is
/// resumed), else bcast's status, read from the context it ran on.
fn finish<E>(
    ctx: *mut sys::bc_ctx,
    status: sys::bc_status,
    failure: Slot<E>,
) -> Result<(), RunError<E>> {
    match failure.into_inner() {
        Some(Failure::Panic(payload)) => resume_unwind(payload),
        Some(Failure::Loop(e)) => {
            // Resumes a panic of the context's scheduler, if any.
            let _ = check_in(ctx, status);
            Err(RunError::Loop(e))
        }
        None => check_in(ctx, status).map_err(RunError::Bcast),
    }
}

impl Drop for Iter<'_> {
    fn drop(&mut self) {
        // SAFETY: we own the iterator and free it once; nothing runs it
        // (drop needs ownership). An output it allocated lives on in the
        // handles given out.
        unsafe { sys::bc_iter_free(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Iter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("numel", &self.numel())
            .field("num_chunks", &self.num_chunks())
            .field("loop_dtypes", &self.dtypes)
            .field("allocated_output", &self.allocated)
            .finish()
    }
}

// ---------------------------------------------------------------- typed forms

/// The output of a typed form.
enum Target<'o> {
    Alloc(DType),
    Into(&'o mut TensorRef),
}

/// Runs `g` on rows of `T` over `inputs` (the typed forms' contract) on the
/// current context; returns the allocated output, if any.
fn typed<T, const N: usize, R>(
    inputs: [&TensorRef; N],
    target: Target<'_>,
    g: impl Fn([&[T]; N], &mut [T]) -> R + Sync,
) -> Result<Option<Tensor>, RunError<R::Error>>
where
    T: Element,
    R: LoopResult,
    R::Error: Send,
{
    let (out, allocated) = match target {
        Target::Alloc(d) => (Out::Dtype(d), true),
        Target::Into(t) => (Out::Tensor(t), false),
    };
    let mut it = Iter::new_in(current_raw(), &inputs, out, Some(&[T::DTYPE; 4][..=N]))?;
    it.run(|mut blk: Block<'_>| {
        let mut repeated: [Vec<T>; N] = std::array::from_fn(|_| Vec::new());
        for i in 0..blk.rows() {
            let rows: [InputRow<'_, T>; N] = std::array::from_fn(|k| blk.input::<T>(k, i));
            for (row, buf) in rows.iter().zip(&mut repeated) {
                if let InputRow::Repeated { value, len } = *row {
                    buf.clear();
                    buf.resize(len, value);
                }
            }
            let slices: [&[T]; N] = std::array::from_fn(|k| match rows[k] {
                InputRow::Contiguous(s) => s,
                InputRow::Repeated { .. } => &repeated[k][..],
            });
            g(slices, blk.output::<T>(i)).into_result()?;
        }
        Ok(())
    })?;
    if allocated {
        Ok(Some(it.into_output()?))
    } else {
        Ok(None)
    }
}

/// `f` over the elements of `x`, as `T`, into a new tensor of `dtype`
/// (see the [module](self) for the closure's contract).
///
/// ```
/// use bcast::{iter, DType, Tensor};
/// let x = Tensor::from_slice(&[-1.0f32, 0.5, 2.0], &[3])?;
/// let y = iter::map(&x, DType::Float32, |x: &[f32], out: &mut [f32]| {
///     for (o, v) in out.iter_mut().zip(x) {
///         *o = v.clamp(0.0, 1.0);
///     }
/// })?;
/// assert_eq!(y.to_vec::<f32>()?, [0.0, 0.5, 1.0]);
/// # Ok::<(), bcast::Error>(())
/// ```
pub fn map<T, F, R>(x: &TensorRef, dtype: DType, f: F) -> Result<Tensor, RunError<R::Error>>
where
    T: Element,
    F: Fn(&[T], &mut [T]) -> R + Sync,
    R: LoopResult,
    R::Error: Send,
{
    let out = typed([x], Target::Alloc(dtype), |[x], o| f(x, o))?;
    Ok(out.expect("an allocated output"))
}

/// [`map`] into `out`, which has `x`'s shape (any dtype, converted from `T`).
pub fn map_out<T, F, R>(x: &TensorRef, out: &mut TensorRef, f: F) -> Result<(), RunError<R::Error>>
where
    T: Element,
    F: Fn(&[T], &mut [T]) -> R + Sync,
    R: LoopResult,
    R::Error: Send,
{
    typed([x], Target::Into(out), |[x], o| f(x, o)).map(drop)
}

/// `f` over the elements of `a` and `b` broadcast together, as `T`, into a
/// new tensor of `dtype` (see the [module](self) for the closure's contract).
///
/// A closure that can fail returns `Result<(), E>`; its first error comes
/// back as [`RunError::Loop`]:
///
/// ```
/// use bcast::iter::{self, RunError};
/// use bcast::{DType, Tensor};
/// let num = Tensor::from_slice(&[6i64, 7, 8], &[3])?;
/// let den = Tensor::from_slice(&[2i64, 0, 4], &[3])?;
/// let r = iter::zip_map(&num, &den, DType::Int64, |n: &[i64], d: &[i64], out: &mut [i64]| {
///     for ((o, n), d) in out.iter_mut().zip(n).zip(d) {
///         *o = n.checked_div(*d).ok_or("division by zero")?;
///     }
///     Ok::<(), &str>(())
/// });
/// assert!(matches!(r, Err(RunError::Loop("division by zero"))));
/// # Ok::<(), bcast::Error>(())
/// ```
pub fn zip_map<T, F, R>(
    a: &TensorRef,
    b: &TensorRef,
    dtype: DType,
    f: F,
) -> Result<Tensor, RunError<R::Error>>
where
    T: Element,
    F: Fn(&[T], &[T], &mut [T]) -> R + Sync,
    R: LoopResult,
    R::Error: Send,
{
    let out = typed([a, b], Target::Alloc(dtype), |[a, b], o| f(a, b, o))?;
    Ok(out.expect("an allocated output"))
}

/// [`zip_map`] into `out`, which has the broadcast shape (any dtype,
/// converted from `T`).
pub fn zip_map_out<T, F, R>(
    a: &TensorRef,
    b: &TensorRef,
    out: &mut TensorRef,
    f: F,
) -> Result<(), RunError<R::Error>>
where
    T: Element,
    F: Fn(&[T], &[T], &mut [T]) -> R + Sync,
    R: LoopResult,
    R::Error: Send,
{
    typed([a, b], Target::Into(out), |[a, b], o| f(a, b, o)).map(drop)
}

/// `f` over the elements of `a`, `b` and `c` broadcast together, as `T`,
/// into a new tensor of `dtype` (see the [module](self) for the closure's
/// contract).
pub fn zip3_map<T, F, R>(
    a: &TensorRef,
    b: &TensorRef,
    c: &TensorRef,
    dtype: DType,
    f: F,
) -> Result<Tensor, RunError<R::Error>>
where
    T: Element,
    F: Fn(&[T], &[T], &[T], &mut [T]) -> R + Sync,
    R: LoopResult,
    R::Error: Send,
{
    let out = typed([a, b, c], Target::Alloc(dtype), |[a, b, c], o| {
        f(a, b, c, o)
    })?;
    Ok(out.expect("an allocated output"))
}

/// [`zip3_map`] into `out`, which has the broadcast shape (any dtype,
/// converted from `T`).
pub fn zip3_map_out<T, F, R>(
    a: &TensorRef,
    b: &TensorRef,
    c: &TensorRef,
    out: &mut TensorRef,
    f: F,
) -> Result<(), RunError<R::Error>>
where
    T: Element,
    F: Fn(&[T], &[T], &[T], &mut [T]) -> R + Sync,
    R: LoopResult,
    R::Error: Send,
{
    typed([a, b, c], Target::Into(out), |[a, b, c], o| f(a, b, c, o)).map(drop)
}

/// The typed forms of [`crate::iter`] on this context, from any thread: its
/// broadcast policy and warnings, threads and scheduler apply, and its
/// errors are recorded there. The loop's own bcast calls run on the default
/// context.
impl Context {
    /// [`iter::map`](map) on this context.
    pub fn map<T, F, R>(
        &self,
        x: &TensorRef,
        dtype: DType,
        f: F,
    ) -> Result<Tensor, RunError<R::Error>>
    where
        T: Element,
        F: Fn(&[T], &mut [T]) -> R + Sync,
        R: LoopResult,
        R::Error: Send,
    {
        self.scope(|| map(x, dtype, f))
    }

    /// [`iter::map_out`](map_out) on this context.
    pub fn map_out<T, F, R>(
        &self,
        x: &TensorRef,
        out: &mut TensorRef,
        f: F,
    ) -> Result<(), RunError<R::Error>>
    where
        T: Element,
        F: Fn(&[T], &mut [T]) -> R + Sync,
        R: LoopResult,
        R::Error: Send,
    {
        self.scope(|| map_out(x, out, f))
    }

    /// [`iter::zip_map`](zip_map) on this context.
    pub fn zip_map<T, F, R>(
        &self,
        a: &TensorRef,
        b: &TensorRef,
        dtype: DType,
        f: F,
    ) -> Result<Tensor, RunError<R::Error>>
    where
        T: Element,
        F: Fn(&[T], &[T], &mut [T]) -> R + Sync,
        R: LoopResult,
        R::Error: Send,
    {
        self.scope(|| zip_map(a, b, dtype, f))
    }

    /// [`iter::zip_map_out`](zip_map_out) on this context.
    pub fn zip_map_out<T, F, R>(
        &self,
        a: &TensorRef,
        b: &TensorRef,
        out: &mut TensorRef,
        f: F,
    ) -> Result<(), RunError<R::Error>>
    where
        T: Element,
        F: Fn(&[T], &[T], &mut [T]) -> R + Sync,
        R: LoopResult,
        R::Error: Send,
    {
        self.scope(|| zip_map_out(a, b, out, f))
    }

    /// [`iter::zip3_map`](zip3_map) on this context.
    pub fn zip3_map<T, F, R>(
        &self,
        a: &TensorRef,
        b: &TensorRef,
        c: &TensorRef,
        dtype: DType,
        f: F,
    ) -> Result<Tensor, RunError<R::Error>>
    where
        T: Element,
        F: Fn(&[T], &[T], &[T], &mut [T]) -> R + Sync,
        R: LoopResult,
        R::Error: Send,
    {
        self.scope(|| zip3_map(a, b, c, dtype, f))
    }

    /// [`iter::zip3_map_out`](zip3_map_out) on this context.
    pub fn zip3_map_out<T, F, R>(
        &self,
        a: &TensorRef,
        b: &TensorRef,
        c: &TensorRef,
        out: &mut TensorRef,
        f: F,
    ) -> Result<(), RunError<R::Error>>
    where
        T: Element,
        F: Fn(&[T], &[T], &[T], &mut [T]) -> R + Sync,
        R: LoopResult,
        R::Error: Send,
    {
        self.scope(|| zip3_map_out(a, b, c, out, f))
    }
}
