//! Warnings, policy and the handler. Each test of these settings uses a
//! [`Context`] of its own, so they run in parallel; only the tests of the
//! default context's (process-wide) settings share one lock, and restore the
//! defaults when done (even when they fail). The tests with a context run no
//! op outside its scope: the default context's settings change under them.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;

use bcast::{Context, DType, ErrorCode, Policy, Tensor};
use common::*;

const BROADCAST_WARNING: &str = "self and other do not have the same shape, but are broadcastable, and have the same number of elements. Changing behavior in a backwards incompatible manner to broadcasting rather than viewing as 1-dimensional.";
const LEGACY_WARNING: &str = "other is not broadcastable to self, but they have the same number of elements. Falling back to deprecated pointwise behavior.";

/// A context of the test's own whose warnings are collected.
struct Settings {
    ctx: Context,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Settings {
    fn new() -> Settings {
        let mut ctx = Context::new().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        ctx.set_warning_handler(move |m| sink.lock().unwrap().push(m.to_string()));
        Settings { ctx, seen }
    }

    /// Runs `f` on the test's context.
    fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        self.ctx.scope(f)
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.seen.lock().unwrap())
    }
}

static LOCK: Mutex<()> = Mutex::new(());

/// Holds the lock of the process-wide settings, collects the default
/// context's warnings, and resets everything on drop.
struct Global {
    seen: Arc<Mutex<Vec<String>>>,
    _lock: MutexGuard<'static, ()>,
}

impl Global {
    fn new() -> Global {
        let lock = LOCK.lock().unwrap_or_else(|p| p.into_inner());
        reset();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        bcast::set_warning_handler(move |m| sink.lock().unwrap().push(m.to_string()));
        Global { seen, _lock: lock }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.seen.lock().unwrap())
    }
}

fn reset() {
    bcast::set_broadcast_warning(false);
    bcast::set_legacy_pointwise(false);
    bcast::set_broadcast_policy(Policy::Allow);
    bcast::set_warnings_as_errors(false);
    bcast::reset_warning_handler();
}

impl Drop for Global {
    fn drop(&mut self) {
        reset();
    }
}

fn ones(shape: &[i64]) -> Tensor {
    Tensor::full(1.0f32, shape).unwrap()
}

#[test]
fn broadcast_warning_reaches_the_closure() {
    let mut s = Settings::new();
    // Off by default: nothing.
    assert_eq!(
        s.run(|| ones(&[4, 1]).add(ones(&[4]))).unwrap().shape(),
        &[4, 4]
    );
    assert!(s.take().is_empty());
    s.ctx.set_broadcast_warning(true);
    // The notes' example: torch.add(torch.ones(4,1), torch.ones(4)).
    let r = s.run(|| ones(&[4, 1]).add(ones(&[4]))).unwrap();
    assert_eq!(r.shape(), &[4, 4]);
    assert_eq!(r.to_vec::<f32>().unwrap(), vec![2.0; 16]);
    assert_eq!(s.take(), [BROADCAST_WARNING]);
    // Same shapes, or different element counts: no warning.
    s.run(|| ones(&[4]).add(ones(&[4]))).unwrap();
    s.run(|| ones(&[2, 3]).add(ones(&[3]))).unwrap();
    assert!(s.take().is_empty());
    // The operators warn too.
    s.run(|| &ones(&[1, 4]) * &ones(&[4, 1]));
    assert_eq!(s.take(), [BROADCAST_WARNING]);
}

#[test]
fn legacy_pointwise_falls_back_to_1d() {
    let mut s = Settings::new();
    let av: Vec<f32> = (0..6).map(|v| v as f32).collect();
    let bv: Vec<f32> = (0..6).map(|v| 10.0 * v as f32).collect();
    let a = Tensor::from_slice(&av, &[2, 3]).unwrap();
    let b = Tensor::from_slice(&bv, &[3, 2]).unwrap();
    let not_broadcastable =
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1";
    assert_err(
        s.run(|| a.add(&b)).unwrap_err(),
        ErrorCode::NotBroadcastable,
        not_broadcastable,
    );
    s.ctx.set_legacy_pointwise(true);
    let r = s.run(|| a.add(&b)).unwrap();
    assert_eq!(r.shape(), &[2, 3], "the first operand's shape");
    let want: Vec<f32> = av.iter().zip(&bv).map(|(x, y)| x + y).collect();
    assert_eq!(r.to_vec::<f32>().unwrap(), want);
    assert_eq!(s.take(), [LEGACY_WARNING]);
    let r = s.run(|| b.mul(&a)).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(s.take(), [LEGACY_WARNING]);
    // Different element counts still fail.
    assert_eq!(
        s.run(|| a.add(ones(&[4]))).unwrap_err().code,
        ErrorCode::NotBroadcastable
    );
}

#[test]
fn legacy_in_place_failure_uses_the_older_wording() {
    let mut s = Settings::new();
    let mut x = ones(&[1, 3, 1]);
    let y = ones(&[3, 1, 7]);
    let modern = "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]";
    assert_err(
        s.run(|| x.add_(&y)).unwrap_err(),
        ErrorCode::ShapeMismatch,
        modern,
    );
    s.ctx.set_legacy_pointwise(true);
    assert_err(
        s.run(|| x.add_(&y)).unwrap_err(),
        ErrorCode::ShapeMismatch,
        "The expanded size of the tensor (1) must match the existing size (7) at non-singleton dimension 2.  Target sizes: [1, 3, 1].  Tensor sizes: [3, 1, 7]",
    );
    assert_eq!(x.to_vec::<f32>().unwrap(), [1.0; 3]);
}

#[test]
fn policy_error_and_warn() {
    let mut s = Settings::new();
    s.ctx.set_broadcast_policy(Policy::Error);
    let e = s.run(|| ones(&[3, 1]).add(ones(&[3]))).unwrap_err();
    assert_eq!(e.code, ErrorCode::Policy);
    assert!(!e.message.is_empty());
    // Equal shapes and 0-dim operands are allowed.
    s.run(|| {
        assert_eq!(ones(&[3]).add(ones(&[3])).unwrap().shape(), &[3]);
        assert_eq!(ones(&[3]).add(2.0).unwrap().shape(), &[3]);
        assert_eq!(ones(&[3]).add(ones(&[])).unwrap().shape(), &[3]);
    });
    let mut x = ones(&[2, 3]);
    assert_eq!(
        s.run(|| x.add_(ones(&[3]))).unwrap_err().code,
        ErrorCode::Policy
    );
    assert_eq!(x.to_vec::<f32>().unwrap(), [1.0; 6]);
    assert!(s.take().is_empty());

    s.ctx.set_broadcast_policy(Policy::Warn);
    assert_eq!(
        s.run(|| ones(&[3, 1]).add(ones(&[3]))).unwrap().shape(),
        &[3, 3]
    );
    assert_eq!(s.take().len(), 1);
    s.run(|| ones(&[3]).add(ones(&[3]))).unwrap();
    assert!(s.take().is_empty());

    s.ctx.set_broadcast_policy(Policy::Allow);
    s.run(|| ones(&[3, 1]).add(ones(&[3]))).unwrap();
    assert!(s.take().is_empty());
}

#[test]
fn warnings_as_errors() {
    let mut s = Settings::new();
    s.ctx.set_broadcast_warning(true);
    s.ctx.set_warnings_as_errors(true);
    s.run(|| {
        assert_err(
            ones(&[4, 1]).add(ones(&[4])).unwrap_err(),
            ErrorCode::Policy,
            BROADCAST_WARNING,
        );
        let mut x = ones(&[4, 4]);
        let mut y = ones(&[1, 4]);
        // In place, the warning fires (shapes differ, same count) before anything is written.
        assert_err(
            y.add_(ones(&[4])).unwrap_err(),
            ErrorCode::Policy,
            BROADCAST_WARNING,
        );
        assert_eq!(y.to_vec::<f32>().unwrap(), [1.0; 4]);
        x.add_(ones(&[4])).unwrap(); // 16 vs 4 elements: no warning
    });
    s.ctx.set_legacy_pointwise(true);
    assert_err(
        s.run(|| ones(&[2, 3]).add(ones(&[3, 2]))).unwrap_err(),
        ErrorCode::Policy,
        LEGACY_WARNING,
    );
    assert!(s.take().is_empty(), "the handler is not called");
}

#[test]
fn a_panicking_handler_panics_the_caller_not_the_process() {
    let mut s = Settings::new();
    s.ctx.set_warning_handler(|m| panic!("handler saw: {m}"));
    s.ctx.set_broadcast_warning(true);
    let a = ones(&[4, 1]);
    let b = ones(&[4]);
    let p = catch_unwind(AssertUnwindSafe(|| s.run(|| a.add(&b)))).unwrap_err();
    assert_eq!(
        p.downcast_ref::<String>().unwrap(),
        &format!("handler saw: {BROADCAST_WARNING}")
    );
    // The library is fine afterwards, and no stale panic is left behind.
    s.ctx.set_broadcast_warning(false);
    assert_eq!(s.run(|| a.add(&b)).unwrap().shape(), &[4, 4]);
    assert_eq!(
        s.run(|| a.add(ones(&[2, 3]))).unwrap_err().code,
        ErrorCode::NotBroadcastable
    );
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let mut s = Settings::new();
    let v = values(3 * 1000 * 7, 51);
    let x = Tensor::from_slice(&v, &[3, 1000, 7]).unwrap();
    let y = Tensor::from_slice(&values(7, 52), &[7]).unwrap();
    let run = |s: &Settings| {
        s.run(|| {
            (
                x.mul(&y).unwrap().to_vec::<f32>().unwrap(),
                x.sum_to_shape(&[1, 1, 7]).unwrap().to_vec::<f32>().unwrap(),
            )
        })
    };
    let default = run(&s);
    s.ctx.set_num_threads(Some(1)).unwrap();
    assert_eq!(s.ctx.num_threads(), 1);
    let one = run(&s);
    s.ctx.set_num_threads(Some(4)).unwrap();
    assert_eq!(s.ctx.num_threads(), 4);
    let four = run(&s);
    assert_eq!(one, default);
    assert_eq!(four, default);
    assert!(s.ctx.set_num_threads(Some(0)).is_err());
    let _ = DType::Float32;
}

// ---- the default context: process-wide settings, one test at a time

#[test]
fn default_settings_default_off_and_read_back() {
    let _g = Global::new();
    assert!(!bcast::broadcast_warning());
    assert!(!bcast::legacy_pointwise());
    assert!(!bcast::warnings_as_errors());
    assert_eq!(bcast::broadcast_policy(), Policy::Allow);
    bcast::set_broadcast_warning(true);
    bcast::set_legacy_pointwise(true);
    bcast::set_warnings_as_errors(true);
    bcast::set_broadcast_policy(Policy::Warn);
    assert!(bcast::broadcast_warning() && bcast::legacy_pointwise() && bcast::warnings_as_errors());
    assert_eq!(bcast::broadcast_policy(), Policy::Warn);
    bcast::set_broadcast_policy(Policy::Error);
    assert_eq!(bcast::broadcast_policy(), Policy::Error);
}

#[test]
fn a_new_context_never_inherits_the_process_wide_settings() {
    let g = Global::new();
    bcast::set_broadcast_warning(true);
    bcast::set_legacy_pointwise(true);
    bcast::set_warnings_as_errors(true);
    bcast::set_broadcast_policy(Policy::Error);
    let s = Settings::new();
    assert!(!s.ctx.broadcast_warning() && !s.ctx.legacy_pointwise() && !s.ctx.warnings_as_errors());
    assert_eq!(s.ctx.broadcast_policy(), Policy::Allow);
    assert_eq!(
        ones(&[3, 1]).add(ones(&[3])).unwrap_err().code,
        ErrorCode::Policy
    );
    assert_eq!(
        s.run(|| ones(&[3, 1]).add(ones(&[3]))).unwrap().shape(),
        &[3, 3]
    );
    assert_eq!(
        s.run(|| ones(&[4, 1]).add(ones(&[4]))).unwrap().shape(),
        &[4, 4]
    );
    assert!(s.take().is_empty() && g.take().is_empty());
}

#[test]
fn a_panicking_default_handler_panics_the_caller_not_the_process() {
    let _g = Global::new();
    bcast::set_warning_handler(|m| panic!("handler saw: {m}"));
    bcast::set_broadcast_warning(true);
    let a = ones(&[4, 1]);
    let b = ones(&[4]);
    let p = catch_unwind(AssertUnwindSafe(|| a.add(&b))).unwrap_err();
    assert_eq!(
        p.downcast_ref::<String>().unwrap(),
        &format!("handler saw: {BROADCAST_WARNING}")
    );
    bcast::set_broadcast_warning(false);
    assert_eq!(a.add(&b).unwrap().shape(), &[4, 4]);
    assert_eq!(
        a.add(ones(&[2, 3])).unwrap_err().code,
        ErrorCode::NotBroadcastable
    );
}

#[test]
fn the_handler_may_call_bcast_and_replace_itself() {
    let s = Global::new();
    bcast::set_broadcast_warning(true);
    let seen = Arc::clone(&s.seen);
    bcast::set_warning_handler(move |m| {
        // Calling the library from inside the handler works...
        let t = Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
        assert_eq!(t.add(1).unwrap().to_vec::<i32>().unwrap(), [2, 3]);
        seen.lock().unwrap().push(format!("first: {}", &m[..4]));
        // ...and so does installing another handler.
        let seen2 = Arc::clone(&seen);
        bcast::set_warning_handler(move |m| {
            seen2.lock().unwrap().push(format!("second: {}", &m[..4]))
        });
    });
    ones(&[4, 1]).add(ones(&[4])).unwrap();
    ones(&[4, 1]).add(ones(&[4])).unwrap();
    assert_eq!(s.take(), ["first: self", "second: self"]);
}

#[test]
fn warnings_from_many_threads() {
    let s = Global::new();
    bcast::set_broadcast_warning(true);
    thread::scope(|sc| {
        for _ in 0..4 {
            sc.spawn(|| {
                for _ in 0..25 {
                    ones(&[4, 1]).add(ones(&[4])).unwrap();
                }
            });
        }
    });
    let seen = s.take();
    assert_eq!(seen.len(), 100);
    assert!(seen.iter().all(|m| m == BROADCAST_WARNING));
}

#[test]
fn default_handler_after_reset() {
    let s = Global::new();
    bcast::reset_warning_handler();
    bcast::set_broadcast_warning(true);
    // Goes to standard error ("bcast warning: ..."), not to the closure.
    ones(&[4, 1]).add(ones(&[4])).unwrap();
    assert!(s.take().is_empty());
}

#[test]
fn default_thread_count() {
    let _g = Global::new();
    let x = Tensor::from_slice(&values(3 * 1000 * 7, 53), &[3, 1000, 7]).unwrap();
    let default = x.mul(&x).unwrap().to_vec::<f32>().unwrap();
    bcast::set_num_threads(Some(1)).unwrap();
    assert_eq!(bcast::num_threads(), 1);
    let one = x.mul(&x).unwrap().to_vec::<f32>().unwrap();
    bcast::set_num_threads(None).unwrap();
    assert_eq!(one, default);
    assert!(bcast::set_num_threads(Some(0)).is_err());
}
