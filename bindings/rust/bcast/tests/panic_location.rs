//! An operator that panics reports the caller's file and line, not a line
//! inside the crate (`#[track_caller]` on every operator and its helper).
//! One test in its own binary: the panic hook is process-wide.

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use bcast::{DType, Tensor};

/// Runs `f`, which must panic, and returns where the panic says it happened.
fn panic_location(f: impl FnOnce()) -> (String, u32) {
    let seen = Arc::new(Mutex::new(None));
    let hook_seen = Arc::clone(&seen);
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        let loc = info.location().map(|l| (l.file().to_string(), l.line()));
        *hook_seen.lock().unwrap() = loc;
    }));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(previous);
    assert!(result.is_err(), "the operation did not panic");
    let loc = seen.lock().unwrap().take();
    loc.expect("the panic had no location")
}

#[test]
fn operator_panics_point_at_the_callers_line() {
    let a = Tensor::zeros(DType::Float32, &[2, 3]).unwrap();
    let b = Tensor::zeros(DType::Float32, &[4]).unwrap();
    let zero = Tensor::zeros(DType::Int64, &[1]).unwrap();
    let mut small = Tensor::zeros(DType::Float32, &[1, 3]).unwrap();
    let here = file!().to_string();

    let line = line!() + 1;
    let got = panic_location(|| drop(&a + &b));
    assert_eq!(got, (here.clone(), line), "tensor + tensor");

    let line = line!() + 1;
    let got = panic_location(|| drop(a.clone() * b.clone()));
    assert_eq!(got, (here.clone(), line), "owned * owned");

    let line = line!() + 1;
    let got = panic_location(|| drop(7 % &zero));
    assert_eq!(got, (here.clone(), line), "scalar % tensor");

    let line = line!() + 1;
    let got = panic_location(|| small += &a);
    assert_eq!(got, (here, line), "tensor += tensor");
}
