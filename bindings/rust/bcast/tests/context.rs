//! Contexts: their own settings, handler, errors and scheduler, used from
//! several threads at once; scopes. Nothing here touches the process-wide
//! settings, so every test runs in parallel with the others.

mod common;

use std::cell::RefCell;
use std::collections::HashSet;
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::thread::{self, ThreadId};

use bcast::{Context, DType, ErrorCode, Policy, Scheduler, Tensor};
use common::*;

fn ones(shape: &[i64]) -> Tensor {
    Tensor::full(1.0f32, shape).unwrap()
}

fn counting_handler(ctx: &mut Context) -> Arc<Mutex<Vec<String>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    ctx.set_warning_handler(move |m| sink.lock().unwrap().push(m.to_string()));
    seen
}

#[test]
fn context_is_send() {
    fn send<T: Send>() {}
    send::<Context>();
}

#[test]
fn a_new_context_has_the_defaults_and_reads_back_its_settings() {
    let mut ctx = Context::new().unwrap();
    assert!(!ctx.broadcast_warning() && !ctx.legacy_pointwise() && !ctx.warnings_as_errors());
    assert_eq!(ctx.broadcast_policy(), Policy::Allow);
    assert!(ctx.last_error().is_none());
    ctx.set_broadcast_warning(true);
    ctx.set_legacy_pointwise(true);
    ctx.set_warnings_as_errors(true);
    ctx.set_broadcast_policy(Policy::Warn);
    assert!(ctx.broadcast_warning() && ctx.legacy_pointwise() && ctx.warnings_as_errors());
    assert_eq!(ctx.broadcast_policy(), Policy::Warn);
    ctx.set_broadcast_policy(Policy::Error);
    assert_eq!(ctx.broadcast_policy(), Policy::Error);
    ctx.set_num_threads(Some(3)).unwrap();
    assert_eq!(ctx.num_threads(), 3);
    assert_eq!(
        ctx.set_num_threads(Some(0)).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    ctx.set_num_threads(None).unwrap();
    assert!(ctx.num_threads() >= 1);
    // Another context is unaffected.
    let other = Context::new().unwrap();
    assert!(!other.broadcast_warning() && !other.legacy_pointwise() && !other.warnings_as_errors());
    assert_eq!(other.broadcast_policy(), Policy::Allow);
}

#[test]
fn two_contexts_with_different_policies_on_two_threads_at_once() {
    const ROUNDS: usize = 200;
    let mut strict = Context::new().unwrap();
    strict.set_broadcast_policy(Policy::Error);
    let strict_seen = counting_handler(&mut strict);
    let mut lenient = Context::new().unwrap();
    lenient.set_broadcast_policy(Policy::Warn);
    let lenient_seen = counting_handler(&mut lenient);
    let barrier = Barrier::new(2);
    thread::scope(|s| {
        let barrier = &barrier;
        s.spawn(move || {
            let (a, b) = (ones(&[3, 1]), ones(&[3]));
            barrier.wait();
            for _ in 0..ROUNDS {
                strict.scope(|| {
                    let e = a.add(&b).unwrap_err();
                    assert_err(
                        e,
                        ErrorCode::Policy,
                        "broadcast policy is 'error': self with shape [3, 1] and other with shape [3] would be implicitly broadcast to [3, 3]",
                    );
                    // Equal shapes pass; a shape error is still a shape error.
                    assert_eq!(a.add(&a).unwrap().to_vec::<f32>().unwrap(), [2.0; 3]);
                    assert_eq!(a.add(ones(&[2, 3])).unwrap_err().code, ErrorCode::NotBroadcastable);
                });
                // The same op outside the scope runs on the default context.
                assert_eq!(a.add(&b).unwrap().shape(), &[3, 3]);
            }
            assert_eq!(strict.last_error().unwrap().code, ErrorCode::NotBroadcastable);
        });
        s.spawn(move || {
            let (a, b) = (ones(&[2, 1, 4]), ones(&[5, 1]));
            barrier.wait();
            for _ in 0..ROUNDS {
                let r = lenient.scope(|| a.mul(&b)).unwrap();
                assert_eq!(r.shape(), &[2, 5, 4]);
                assert_eq!(r.to_vec::<f32>().unwrap(), [1.0; 40]);
                lenient.scope(|| a.mul(&a)).unwrap(); // equal shapes: no warning
            }
            assert!(lenient.last_error().is_none());
        });
    });
    assert!(
        strict_seen.lock().unwrap().is_empty(),
        "Error refuses; it does not warn"
    );
    let seen = lenient_seen.lock().unwrap();
    assert_eq!(seen.len(), ROUNDS);
    let want = "implicit broadcast: self with shape [2, 1, 4] and other with shape [5, 1] broadcast to [2, 5, 4]";
    assert!(seen.iter().all(|m| m == want), "{:?}", seen.first());
}

fn thread_last_error() -> String {
    // SAFETY: bc_last_error never returns NULL; copied at once.
    unsafe { CStr::from_ptr(bcast::sys::bc_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn errors_are_recorded_in_the_context_not_the_thread() {
    let ctx = Context::new().unwrap();
    let a = ones(&[2, 3]);
    // A failure on the default context is this thread's.
    let thread_msg =
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1";
    assert_err(
        a.add(ones(&[4])).unwrap_err(),
        ErrorCode::NotBroadcastable,
        thread_msg,
    );
    assert_eq!(thread_last_error(), thread_msg);
    // A failure inside the scope is the context's, with its detail...
    let ctx_msg =
        "The size of tensor a (2) must match the size of tensor b (5) at non-singleton dimension 0";
    let e = ctx.scope(|| a.add(ones(&[5, 1]))).unwrap_err();
    assert_err(e.clone(), ErrorCode::NotBroadcastable, ctx_msg);
    assert_eq!(
        (e.detail.dim, e.detail.size_a, e.detail.size_b),
        (Some(0), Some(2), Some(5))
    );
    assert_eq!(ctx.last_error(), Some(e.clone()));
    // ...and leaves the thread's alone.
    assert_eq!(thread_last_error(), thread_msg);
    // Constructors and shape functions too.
    let e = ctx
        .scope(|| bcast::broadcast_shapes(&[2, 3], &[4]))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotBroadcastable);
    assert_eq!(ctx.last_error().unwrap().message, e.message);
    let e = ctx
        .scope(|| Tensor::zeros(DType::Float32, &[-1]))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(ctx.last_error().unwrap(), e);
    assert_eq!(thread_last_error(), thread_msg);
    // The context's error goes with it to another thread.
    let moved = thread::spawn(move || ctx.last_error()).join().unwrap();
    assert_eq!(moved, Some(e));
}

/// Tells apart the threads that run chunks, and counts calls. Chunk i runs
/// on worker i % threads (worker 0 being the calling thread), so that every
/// worker gets work whatever the timing.
struct CountingScheduler {
    threads: usize,
    stats: Arc<Stats>,
}

#[derive(Default)]
struct Stats {
    runs: AtomicUsize,
    chunks: AtomicUsize,
    nchunks: AtomicUsize,
    thread_ids: Mutex<HashSet<ThreadId>>,
}

impl Scheduler for CountingScheduler {
    fn num_threads(&self) -> usize {
        self.threads
    }

    fn run(&self, nchunks: usize, chunk: &(dyn Fn(usize) + Sync)) {
        self.stats.runs.fetch_add(1, Ordering::SeqCst);
        self.stats.nchunks.fetch_add(nchunks, Ordering::SeqCst);
        let work = |w: usize| {
            for i in (w..nchunks).step_by(self.threads) {
                self.stats
                    .thread_ids
                    .lock()
                    .unwrap()
                    .insert(thread::current().id());
                chunk(i);
                self.stats.chunks.fetch_add(1, Ordering::SeqCst);
            }
        };
        thread::scope(|s| {
            for w in 1..self.threads {
                let work = &work;
                s.spawn(move || work(w));
            }
            work(0);
        });
    }
}

#[test]
fn a_scheduler_runs_large_ops_and_not_small_ones() {
    let stats = Arc::new(Stats::default());
    let mut ctx = Context::new().unwrap();
    ctx.set_num_threads(Some(8)).unwrap();
    ctx.set_scheduler(CountingScheduler {
        threads: 4,
        stats: Arc::clone(&stats),
    });
    assert_eq!(
        ctx.num_threads(),
        4,
        "the smaller of the budget and the scheduler's count"
    );

    // Large: 512 x 512 floats (the library threads ops of 65536 elements and more).
    let (ash, bsh) = ([512i64, 512], [512i64]);
    let (av, bv) = (values(512 * 512, 61), values(512, 62));
    let a = Tensor::from_slice(&av, &ash).unwrap();
    let b = Tensor::from_slice(&bv, &bsh).unwrap();
    let (shape, want) = naive_binary(&av, &ash, &bv, &bsh, |x, y| x * y);
    let got = ctx.scope(|| a.mul(&b)).unwrap();
    assert_eq!(got.shape(), &shape[..]);
    assert_eq!(got.to_vec::<f32>().unwrap(), want);
    assert_eq!(stats.runs.load(Ordering::SeqCst), 1);
    let nchunks = stats.nchunks.load(Ordering::SeqCst);
    assert!(nchunks >= 4, "{nchunks} chunks");
    assert_eq!(stats.chunks.load(Ordering::SeqCst), nchunks);
    let threads = stats.thread_ids.lock().unwrap().len();
    assert_eq!(threads, 4);
    assert!(stats
        .thread_ids
        .lock()
        .unwrap()
        .contains(&thread::current().id()));

    // In place, with a broadcast operand: each chunk exactly once.
    let mut c = a.clone();
    ctx.scope(|| c.add_(&b)).unwrap();
    let (_, want) = naive_binary(&av, &ash, &bv, &bsh, |x, y| x + y);
    assert_eq!(c.to_vec::<f32>().unwrap(), want);
    assert_eq!(stats.runs.load(Ordering::SeqCst), 2);

    // Small: runs on the calling thread, without the scheduler.
    let (sv, ssh) = (values(100, 63), [10i64, 10]);
    let s = Tensor::from_slice(&sv, &ssh).unwrap();
    let (_, want) = naive_binary(&sv, &ssh, &bv[..10], &[10], |x, y| x - y);
    let small = ctx
        .scope(|| s.sub(Tensor::from_slice(&bv[..10], &[10]).unwrap()))
        .unwrap();
    assert_eq!(small.to_vec::<f32>().unwrap(), want);
    assert_eq!(stats.runs.load(Ordering::SeqCst), 2);

    // Outside the scope (default context), or after clear_scheduler: not called.
    a.mul(&b).unwrap();
    ctx.clear_scheduler();
    assert_eq!(
        ctx.scope(|| a.mul(&b)).unwrap().to_vec::<f32>().unwrap(),
        got.to_vec::<f32>().unwrap()
    );
    assert_eq!(stats.runs.load(Ordering::SeqCst), 2);
}

/// Runs the chunks it likes, then maybe panics.
struct Unruly {
    mode: &'static str,
    runs: Arc<AtomicUsize>,
}

impl Scheduler for Unruly {
    fn num_threads(&self) -> usize {
        if self.mode == "panic in num_threads" {
            panic!("num_threads refused");
        }
        4
    }

    fn run(&self, nchunks: usize, chunk: &(dyn Fn(usize) + Sync)) {
        self.runs.fetch_add(1, Ordering::SeqCst);
        match self.mode {
            "panic halfway" => {
                thread::scope(|s| {
                    s.spawn(|| chunk(0));
                    for i in 1..nchunks / 2 {
                        chunk(i);
                    }
                });
                panic!("scheduler gave up");
            }
            "twice and skip" => {
                // Every chunk twice (once from two threads at once), the last
                // one never, indices out of range too.
                thread::scope(|s| {
                    s.spawn(|| (0..nchunks - 1).for_each(chunk));
                    (0..nchunks - 1).for_each(chunk);
                });
                chunk(nchunks);
                chunk(usize::MAX);
            }
            _ => (0..nchunks).for_each(chunk),
        }
    }
}

#[test]
fn a_misbehaving_scheduler_still_runs_each_chunk_once_and_panics_reach_the_caller() {
    let (av, bv) = (values(512 * 512, 71), values(512, 72));
    let b = Tensor::from_slice(&bv, &[512]).unwrap();
    let (_, want) = naive_binary(&av, &[512, 512], &bv, &[512], |x, y| x + y);
    for mode in ["twice and skip", "panic halfway", "panic in num_threads"] {
        let runs = Arc::new(AtomicUsize::new(0));
        let mut ctx = Context::new().unwrap();
        ctx.set_num_threads(Some(4)).unwrap();
        ctx.set_scheduler(Unruly {
            mode,
            runs: Arc::clone(&runs),
        });
        let mut a = Tensor::from_slice(&av, &[512, 512]).unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| ctx.scope(|| a.add_(&b))));
        match mode {
            "twice and skip" => result.unwrap().unwrap(),
            "panic halfway" => {
                let p = result.unwrap_err();
                assert_eq!(p.downcast_ref::<&str>(), Some(&"scheduler gave up"));
            }
            _ => {
                let p = result.unwrap_err();
                assert_eq!(p.downcast_ref::<&str>(), Some(&"num_threads refused"));
            }
        }
        // In place: a chunk run twice or skipped would show.
        assert_eq!(a.to_vec::<f32>().unwrap(), want, "{mode}");
        assert_eq!(
            runs.load(Ordering::SeqCst),
            usize::from(mode != "panic in num_threads"),
            "{mode}"
        );
        // Nothing is left pending: the next op is fine.
        if mode != "panic in num_threads" {
            assert_eq!(ctx.scope(|| b.add(&b)).unwrap().numel(), 512);
        }
    }
}

#[test]
fn replacing_the_handler_or_scheduler_drops_the_old_one() {
    let mut ctx = Context::new().unwrap();
    let first = Arc::new(());
    let token = Arc::clone(&first);
    ctx.set_warning_handler(move |_| {
        let _ = &token;
    });
    assert_eq!(Arc::strong_count(&first), 2);
    let second = Arc::new(());
    let token = Arc::clone(&second);
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    ctx.set_warning_handler(move |_| {
        let _ = &token;
        counter.fetch_add(1, Ordering::SeqCst);
    });
    assert_eq!(
        Arc::strong_count(&first),
        1,
        "the replaced closure is dropped"
    );
    assert_eq!(Arc::strong_count(&second), 2);
    // The new one is the one called.
    ctx.set_broadcast_policy(Policy::Warn);
    ctx.scope(|| ones(&[2, 1]).add(ones(&[2]))).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    ctx.reset_warning_handler();
    assert_eq!(Arc::strong_count(&second), 1, "reset drops it");
    // Goes to standard error now, not to the dropped closure.
    ctx.scope(|| ones(&[2, 1]).add(ones(&[2]))).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    let third = Arc::new(());
    let token = Arc::clone(&third);
    ctx.set_warning_handler(move |_| {
        let _ = &token;
    });
    let stats = Arc::new(Stats::default());
    ctx.set_scheduler(CountingScheduler {
        threads: 2,
        stats: Arc::clone(&stats),
    });
    assert_eq!(Arc::strong_count(&stats), 2);
    ctx.set_scheduler(CountingScheduler {
        threads: 3,
        stats: Arc::new(Stats::default()),
    });
    assert_eq!(
        Arc::strong_count(&stats),
        1,
        "the replaced scheduler is dropped"
    );
    let stats = Arc::new(Stats::default());
    ctx.set_scheduler(CountingScheduler {
        threads: 2,
        stats: Arc::clone(&stats),
    });
    ctx.clear_scheduler();
    assert_eq!(Arc::strong_count(&stats), 1, "clear drops it");
    ctx.set_scheduler(CountingScheduler {
        threads: 2,
        stats: Arc::clone(&stats),
    });
    drop(ctx);
    assert_eq!(
        Arc::strong_count(&third),
        1,
        "dropping the context drops the handler"
    );
    assert_eq!(Arc::strong_count(&stats), 1, "and the scheduler");
}

#[test]
fn scopes_nest_and_are_restored_after_a_panic() {
    let mut strict = Context::new().unwrap();
    strict.set_broadcast_policy(Policy::Error);
    let lenient = Context::new().unwrap();
    let (a, b) = (ones(&[3, 1]), ones(&[3]));
    let refused = |r: bcast::Result<Tensor>| r.unwrap_err().code == ErrorCode::Policy;
    strict.scope(|| {
        assert!(refused(a.add(&b)));
        lenient.scope(|| {
            assert_eq!(a.add(&b).unwrap().shape(), &[3, 3]);
            // The same context again, inside itself.
            strict.scope(|| assert!(refused(a.add(&b))));
            assert_eq!(a.add(&b).unwrap().shape(), &[3, 3]);
        });
        assert!(refused(a.add(&b)));
        strict.scope(|| assert!(refused(a.add(&b))));
        assert!(refused(a.add(&b)));
    });
    assert_eq!(
        a.add(&b).unwrap().shape(),
        &[3, 3],
        "default context after the scope"
    );

    let p = catch_unwind(AssertUnwindSafe(|| {
        strict.scope(|| -> () {
            lenient.scope(|| panic!("inside"));
        })
    }));
    assert!(p.is_err());
    assert_eq!(
        a.add(&b).unwrap().shape(),
        &[3, 3],
        "the panic left both scopes"
    );

    // A scope is per thread: a thread spawned inside runs on the default context.
    strict.scope(|| {
        thread::scope(|s| {
            s.spawn(|| assert_eq!(a.add(&b).unwrap().shape(), &[3, 3]));
        });
        assert!(refused(a.add(&b)));
    });
}

thread_local! {
    static HOME: RefCell<Option<Context>> = const { RefCell::new(None) };
}

#[test]
fn a_handler_runs_bcast_on_the_default_context_and_cannot_reenter_its_own() {
    let mut ctx = Context::new().unwrap();
    ctx.set_broadcast_policy(Policy::Warn);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    ctx.set_warning_handler(move |m| {
        // A broadcast here would warn again on this context, and recurse;
        // it runs on the default context (Allow), silently.
        let r = ones(&[2, 1]).mul(ones(&[3])).unwrap();
        // Its errors are the thread's (the default context's), not the context's.
        let e = ones(&[7]).add(ones(&[9])).unwrap_err();
        assert_eq!(thread_last_error(), e.message);
        sink.lock()
            .unwrap()
            .push(format!("{} {:?}", &m[..18], r.shape()));
        // Entering its own context from its handler is refused with a panic,
        // which reaches the op's caller.
        if m.contains("[4, 1]") {
            HOME.with(|h| h.borrow().as_ref().unwrap().scope(|| ()));
        }
    });
    HOME.with(|h| *h.borrow_mut() = Some(ctx));
    HOME.with(|h| {
        let h = h.borrow();
        let ctx = h.as_ref().unwrap();
        ctx.scope(|| ones(&[2, 1]).add(ones(&[2]))).unwrap();
        let p = catch_unwind(AssertUnwindSafe(|| {
            ctx.scope(|| ones(&[4, 1]).add(ones(&[4])))
        }))
        .unwrap_err();
        let text = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned());
        let text = text.unwrap_or_default();
        assert!(text.contains("own warning handler or scheduler"), "{text}");
        // The context works afterwards.
        assert_eq!(
            ctx.scope(|| ones(&[2]).add(ones(&[2]))).unwrap().shape(),
            &[2]
        );
    });
    assert_eq!(
        *seen.lock().unwrap(),
        ["implicit broadcast [2, 3]", "implicit broadcast [2, 3]"]
    );
    HOME.with(|h| h.borrow_mut().take());
}

#[test]
fn the_handler_is_an_fnmut_with_state_of_its_own() {
    let mut ctx = Context::new().unwrap();
    ctx.set_broadcast_warning(true);
    let (tx, rx) = std::sync::mpsc::channel();
    let mut count = 0;
    ctx.set_warning_handler(move |m| {
        count += 1;
        tx.send(format!("{count}: {}", &m[..14])).unwrap();
    });
    // The context moves to another thread with its handler.
    let ctx = thread::spawn(move || {
        ctx.scope(|| ones(&[4, 1]).add(ones(&[4]))).unwrap();
        ctx
    })
    .join()
    .unwrap();
    ctx.scope(|| ones(&[2, 3]).mul(ones(&[3]))).unwrap(); // 6 vs 3 elements: no warning
    ctx.scope(|| ones(&[2, 1]).sub(ones(&[2]))).unwrap();
    drop(ctx); // drops the handler and its Sender
    let got: Vec<String> = rx.iter().collect();
    assert_eq!(got, ["1: self and other", "2: self and other"]);
}

/// The newcomer's case: a (1000, 8) matrix minus its column means, on eight
/// threads, under a context whose policy refuses implicit broadcasts.
fn centered_rows() -> (Tensor, Tensor) {
    let x = Tensor::full(2.0f32, &[1000, 8]).unwrap();
    let mean = Tensor::full(1.0f32, &[8]).unwrap();
    (x, mean)
}

#[test]
fn scope_does_not_reach_other_threads() {
    let mut ctx = Context::new().unwrap();
    ctx.set_broadcast_policy(Policy::Error);
    let (x, mean) = centered_rows();
    // The documented limit: threads started inside the scope run on the
    // default context, whose policy lets the broadcast through.
    let results: Vec<_> = ctx.scope(|| {
        thread::scope(|s| {
            let handles: Vec<_> = (0..8).map(|_| s.spawn(|| x.sub(&mean))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    });
    assert!(results
        .iter()
        .all(|r| r.as_ref().unwrap().shape() == [1000, 8]));
    // On the scope's own thread the policy applies.
    assert_eq!(
        ctx.scope(|| x.sub(&mean)).unwrap_err().code,
        ErrorCode::Policy
    );
}

#[test]
fn explicit_context_methods_reach_every_thread() {
    let mut ctx = Context::new().unwrap();
    ctx.set_broadcast_policy(Policy::Error);
    let (x, mean) = centered_rows();
    let ctx = Mutex::new(ctx);
    let results: Vec<_> = thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| ctx.lock().unwrap().sub(&x, &mean)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in &results {
        let e = r.as_ref().unwrap_err();
        assert_eq!(e.code, ErrorCode::Policy);
    }
    let ctx = ctx.into_inner().unwrap();
    // A Context moved into a thread runs there; every form of an op does.
    let moved = thread::spawn(move || {
        let (x, mean) = centered_rows();
        let mut out = Tensor::zeros(DType::Float32, &[1000, 8]).unwrap();
        let mut y = x.clone();
        let codes = [
            ctx.binary(bcast::BinaryOp::Sub, &x, &mean)
                .unwrap_err()
                .code,
            ctx.sub_out(&x, &mean, &mut out).unwrap_err().code,
            ctx.sub_(&mut y, &mean).unwrap_err().code,
            ctx.where_cond(Tensor::full(true, &[8]).unwrap(), &x, &mean)
                .unwrap_err()
                .code,
        ];
        // Same shapes need no broadcast: allowed, and correct.
        let same = ctx.sub(&x, x.clone()).unwrap();
        (codes, same.to_vec::<f32>().unwrap())
    })
    .join()
    .unwrap();
    assert_eq!(moved.0, [ErrorCode::Policy; 4]);
    assert!(moved.1.iter().all(|&v| v == 0.0));
}
