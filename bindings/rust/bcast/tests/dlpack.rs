//! DLPack round trips through the C library: export, import, the memory
//! shared (not copied) and kept alive by the managed tensor.

use bcast::{Tensor, TensorView};

#[test]
fn round_trip_keeps_values_shape_and_memory() {
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let m = t.to_dlpack().unwrap();
    // SAFETY: a managed tensor bcast just made; nothing else uses it.
    let mut u = unsafe { Tensor::from_dlpack(m) }.unwrap();
    assert_eq!(u.shape(), &[2, 3]);
    assert_eq!(u.to_vec::<f32>().unwrap(), [1., 2., 3., 4., 5., 6.]);
    // The same memory: a write through the import shows in the original.
    u.add_(10.0).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), [11., 12., 13., 14., 15., 16.]);
    // The managed tensor keeps the memory alive after the original is gone.
    drop(t);
    assert_eq!(u.to_vec::<f32>().unwrap(), [11., 12., 13., 14., 15., 16.]);
}

#[test]
fn versioned_round_trip_of_a_strided_view() {
    let data = [1i64, 2, 3, 4, 5, 6];
    let tr = TensorView::from_slice_strided(&data, &[3, 2], &[1, 3]).unwrap(); // a transpose
    let m = tr.to_dlpack_versioned().unwrap();
    // SAFETY: bcast made it; `data` outlives `u`.
    let u = unsafe { Tensor::from_dlpack_versioned(m) }.unwrap();
    assert_eq!(u.shape(), &[3, 2]);
    assert_eq!(u.strides(), &[1, 3]);
    assert_eq!(u.to_vec::<i64>().unwrap(), [1, 4, 2, 5, 3, 6]);
    assert!(u.is_writable());
    drop(u);
    assert_eq!(data, [1, 2, 3, 4, 5, 6]);
}

#[test]
fn every_dtype_round_trips() {
    for dt in bcast::DType::ALL {
        let t = Tensor::zeros(dt, &[4]).unwrap();
        let m = t.to_dlpack_versioned().unwrap();
        // SAFETY: bcast made it; nothing else uses it.
        let u = unsafe { Tensor::from_dlpack_versioned(m) }.unwrap();
        assert_eq!(u.dtype(), dt, "{dt:?}");
        assert_eq!(u.shape(), &[4]);
    }
}
