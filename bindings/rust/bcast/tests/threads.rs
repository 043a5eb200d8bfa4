//! Threads: errors never mix between threads, shared tensors are read from
//! many threads at once, tensors move between threads.

mod common;

use std::sync::Barrier;
use std::thread;

use bcast::{DType, ErrorCode, Tensor, TensorRef, TensorView, TensorViewMut};
use common::*;

#[test]
fn the_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync + ?Sized>() {}
    send_sync::<Tensor>();
    send_sync::<TensorRef>();
    send_sync::<TensorView<'static>>();
    send_sync::<TensorViewMut<'static>>();
    send_sync::<bcast::Error>();
}

#[test]
fn errors_from_many_threads_at_once() {
    const THREADS: i64 = 8;
    let barrier = Barrier::new(THREADS as usize);
    thread::scope(|s| {
        for k in 0..THREADS {
            let barrier = &barrier;
            s.spawn(move || {
                let (na, nb) = (k + 2, k + 3);
                let a = Tensor::zeros(DType::Float32, &[2, na]).unwrap();
                let b = Tensor::zeros(DType::Float32, &[nb]).unwrap();
                let ok = Tensor::zeros(DType::Float32, &[1]).unwrap();
                barrier.wait();
                for i in 0..300 {
                    let e = a.add(&b).unwrap_err();
                    assert_eq!(e.code, ErrorCode::NotBroadcastable);
                    assert_eq!(
                        e.message,
                        format!("The size of tensor a ({na}) must match the size of tensor b ({nb}) at non-singleton dimension 1")
                    );
                    assert_eq!((e.detail.dim, e.detail.size_a, e.detail.size_b), (Some(1), Some(na), Some(nb)));
                    // Successful calls in between, and a different error on odd rounds.
                    assert_eq!(a.add(&ok).unwrap().shape(), &[2, na]);
                    if i % 2 == 1 {
                        let mut small = ok.clone();
                        let e = small.add_(&a).unwrap_err();
                        assert_eq!(e.code, ErrorCode::ShapeMismatch);
                        assert_eq!(e.message, format!("output with shape [1] doesn't match the broadcast shape [2, {na}]"));
                    }
                }
            });
        }
    });
}

#[test]
fn a_shared_tensor_is_read_from_many_threads() {
    let av = values(64 * 33, 41);
    let bv = values(33, 42);
    let a = Tensor::from_slice(&av, &[64, 33]).unwrap();
    let b = Tensor::from_slice(&bv, &[33]).unwrap();
    let (_, want) = naive_binary(&av, &[64, 33], &bv, &[33], |x, y| x * y);
    let view = a.expand(&[2, 64, 33]).unwrap();
    thread::scope(|s| {
        for _ in 0..6 {
            s.spawn(|| {
                for _ in 0..50 {
                    assert_eq!(a.mul(&b).unwrap().to_vec::<f32>().unwrap(), want);
                    assert_eq!(a.as_slice::<f32>().unwrap(), &av[..]);
                    assert_eq!(view.sum_to_shape(&[64, 33]).unwrap().shape(), &[64, 33]);
                    let _ = a.view().unwrap();
                }
            });
        }
    });
}

#[test]
fn tensors_move_between_threads() {
    let a = Tensor::from_vec((0..100).collect::<Vec<i64>>(), &[10, 10]).unwrap();
    let handle = thread::spawn(move || {
        let mut a = a;
        a.mul_(2).unwrap();
        a
    });
    let a = handle.join().unwrap();
    assert_eq!(
        a.to_vec::<i64>().unwrap(),
        (0..100).map(|v| v * 2).collect::<Vec<_>>()
    );
    // Views of one tensor freed on different threads (reference counts).
    let views: Vec<TensorView<'_>> = (0..16).map(|_| a.view().unwrap()).collect();
    thread::scope(|s| {
        for v in views {
            s.spawn(move || {
                assert_eq!(v.numel(), 100);
                drop(v);
            });
        }
    });
    // Writers on disjoint slices at once.
    let mut data = vec![1.0f32; 4000];
    thread::scope(|s| {
        for (k, chunk) in data.chunks_mut(1000).enumerate() {
            s.spawn(move || {
                let mut t = TensorViewMut::from_slice(chunk, &[10, 100]).unwrap();
                t.mul_(k as f32).unwrap();
            });
        }
    });
    for (k, chunk) in data.chunks(1000).enumerate() {
        assert!(chunk.iter().all(|&v| v == k as f32));
    }
}
