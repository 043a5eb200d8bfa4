//! Constructors, zero-copy wrapping, views and conversions.

mod common;

use bcast::{DType, ErrorCode, Tensor, TensorView, TensorViewMut, BF16, F16};
use common::*;

#[test]
fn constructors() {
    let t = Tensor::from_slice(&[1i16, 2, 3, 4, 5, 6], &[3, 2]).unwrap();
    assert_eq!(
        (t.shape(), t.strides(), t.dtype(), t.ndim(), t.numel()),
        (&[3, 2][..], &[2, 1][..], DType::Int16, 2, 6)
    );
    assert!(t.is_contiguous());
    assert_err(
        Tensor::from_slice(&[1i16, 2, 3], &[2, 2]).unwrap_err(),
        ErrorCode::InvalidArgument,
        "shape [2, 2] is invalid for input of size 3 (it needs 4 elements)",
    );
    assert_eq!(
        Tensor::from_slice(&[1.0f32], &[-1]).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_err(
        Tensor::zeros(DType::Float32, &[-1]).unwrap_err(),
        ErrorCode::InvalidArgument,
        "Trying to create tensor with negative dimension -1: [-1]",
    );
    let z = Tensor::zeros(DType::Float64, &[2, 2]).unwrap();
    assert_eq!(z.to_vec::<f64>().unwrap(), [0.0; 4]);
    let f = Tensor::full(F16::from_f32(1.5), &[3]).unwrap();
    assert_eq!(f.to_vec::<F16>().unwrap(), [F16::from_f32(1.5); 3]);
    let s = Tensor::scalar(BF16::from_f32(-2.0)).unwrap();
    assert_eq!(
        (s.ndim(), s.shape(), s.item::<BF16>().unwrap().to_f32()),
        (0, &[][..], -2.0)
    );
    let from_vec: Tensor = vec![1u8, 2, 3].into();
    assert_eq!(from_vec.shape(), &[3]);
    let from_slice: Tensor = (&[true, false][..]).into();
    assert_eq!(from_slice.to_vec::<bool>().unwrap(), [true, false]);
    assert_err(
        f.to_vec::<f32>().unwrap_err(),
        ErrorCode::Dtype,
        "expected a tensor of dtype Float32 (torch.float32) but got Float16 (torch.float16)",
    );
    assert_eq!(
        f.item::<F16>().unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    // Too many dimensions.
    assert_eq!(
        Tensor::zeros(DType::Bool, &[1; 33]).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(Tensor::zeros(DType::Bool, &[1; 32]).unwrap().ndim(), 32);
}

#[test]
fn from_vec_keeps_the_buffer() {
    let v: Vec<i32> = (0..12).collect();
    let p = v.as_ptr();
    let t = Tensor::from_vec(v, &[3, 4]).unwrap();
    assert_eq!(t.as_slice::<i32>().unwrap().as_ptr(), p, "no copy");
    // Views keep it alive after the tensor goes.
    let doubled = {
        let v = t.view().unwrap();
        v.mul(2).unwrap()
    };
    drop(t);
    assert_eq!(
        doubled.to_vec::<i32>().unwrap(),
        (0..12).map(|x| 2 * x).collect::<Vec<_>>()
    );
    // A Vec with spare capacity, and an empty one.
    let mut v = Vec::with_capacity(100);
    v.extend_from_slice(&[1.0f64, 2.0]);
    assert_eq!(
        Tensor::from_vec(v, &[2]).unwrap().to_vec::<f64>().unwrap(),
        [1.0, 2.0]
    );
    assert_eq!(
        Tensor::from_vec(Vec::<f32>::new(), &[0, 5])
            .unwrap()
            .numel(),
        0
    );
    assert!(Tensor::from_vec(vec![1u8], &[2]).is_err());
}

#[test]
fn views_over_borrowed_slices() {
    let data: Vec<f32> = (0..6).map(|v| v as f32).collect();
    let v = TensorView::from_slice(&data, &[2, 3]).unwrap();
    assert_eq!(
        v.as_slice::<f32>().unwrap().as_ptr(),
        data.as_ptr(),
        "no copy"
    );
    assert_eq!(
        v.add(1.0).unwrap().to_vec::<f32>().unwrap(),
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    let tr = TensorView::from_slice_strided(&data, &[3, 2], &[1, 3]).unwrap();
    assert!(!tr.is_contiguous());
    assert_eq!(tr.to_vec::<f32>().unwrap(), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    assert!(tr.as_slice::<f32>().is_none());
    let rep = TensorView::from_slice_strided(&data[..3], &[4, 3], &[0, 1]).unwrap();
    assert_eq!(
        rep.sum_to_shape(&[3]).unwrap().to_vec::<f32>().unwrap(),
        [0.0, 4.0, 8.0]
    );
    assert_eq!(
        TensorView::from_slice(&data, &[4]).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        TensorView::from_slice_strided(&data, &[2], &[6])
            .unwrap_err()
            .code,
        ErrorCode::OutOfBounds
    );
    assert_eq!(
        TensorView::from_slice_strided(&data, &[2], &[-1])
            .unwrap_err()
            .code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        TensorView::from_slice_strided(&data, &[2], &[1, 1])
            .unwrap_err()
            .code,
        ErrorCode::InvalidArgument
    );
    let c = v.clone();
    assert_eq!(
        c.as_slice::<f32>().unwrap().as_ptr(),
        data.as_ptr(),
        "a clone of a view is a view"
    );
}

#[test]
fn writable_views_write_into_the_slice() {
    let mut data = [1i64, 2, 3, 4, 5, 6];
    {
        let mut w = TensorViewMut::from_slice(&mut data, &[2, 3]).unwrap();
        w.mul_(Tensor::from_slice(&[1i64, 10, 100], &[3]).unwrap())
            .unwrap();
        w.as_slice_mut::<i64>().unwrap()[0] = -1;
    }
    assert_eq!(data, [-1, 20, 300, 4, 50, 600]);
    {
        // Every other element: a strided, writable view.
        let mut w = TensorViewMut::from_slice_strided(&mut data, &[3], &[2]).unwrap();
        w.fill(0i64).unwrap();
        assert!(w.as_slice_mut::<i64>().is_none());
    }
    assert_eq!(data, [0, 20, 0, 4, 0, 600]);
}

#[test]
fn clone_is_deep_and_to_tensor_compacts() {
    let a = Tensor::from_slice(&[1u8, 2, 3], &[3]).unwrap();
    let mut b = a.clone();
    b.add_(1u8).unwrap();
    assert_eq!(a.to_vec::<u8>().unwrap(), [1, 2, 3]);
    assert_eq!(b.to_vec::<u8>().unwrap(), [2, 3, 4]);
    let e = a.expand(&[2, 3]).unwrap();
    let c = e.to_tensor().unwrap();
    assert!(c.is_contiguous());
    assert_eq!(c.strides(), &[3, 1]);
    let owned: Tensor = (*e).to_owned();
    assert_eq!(owned.to_vec::<u8>().unwrap(), [1, 2, 3, 1, 2, 3]);
    assert_eq!(
        a.broadcast_to(&[2, 3]).unwrap().to_vec::<u8>().unwrap(),
        [1, 2, 3, 1, 2, 3]
    );
}

#[test]
fn raw_handles_round_trip() {
    let a = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let p = a.into_raw();
    // SAFETY: p came from into_raw and is owned again exactly once.
    let b = unsafe { Tensor::from_raw(p) };
    assert_eq!(b.to_vec::<f32>().unwrap(), [1.0, 2.0]);
    // SAFETY: a live handle; b is not written while r lives.
    let r = unsafe { bcast::TensorRef::from_ptr(b.as_ptr()) };
    assert_eq!(r.shape(), &[2]);
}

#[test]
fn empty_then_fully_written() {
    // SAFETY: every element is written by add_out before being read.
    let mut out = unsafe { Tensor::empty(DType::Int32, &[2, 2]) }.unwrap();
    let a = Tensor::from_slice(&[1i32, 2], &[2, 1]).unwrap();
    a.add_out(Tensor::from_slice(&[10i32, 20], &[2]).unwrap(), &mut out)
        .unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), [11, 21, 12, 22]);
    let mut f = Tensor::zeros(DType::Float32, &[2]).unwrap();
    f.copy_from(&Tensor::scalar(7i64).unwrap()).unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap(), [7.0, 7.0]);
    assert_eq!(
        f.to_dtype(DType::Bool).unwrap().to_vec::<bool>().unwrap(),
        [true, true]
    );
}

#[test]
fn version_and_simd() {
    let v = bcast::version();
    assert_eq!(
        bcast::version_string(),
        format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100)
    );
    assert!(!bcast::simd_target().is_empty());
    assert!(bcast::num_threads() >= 1);
    assert_eq!(
        bcast::set_simd_cap(Some("NO_SUCH_TARGET"))
            .unwrap_err()
            .code,
        ErrorCode::InvalidArgument
    );
    assert!(bcast::set_simd_cap(Some("a\0b")).is_err());
}

#[cfg(feature = "ndarray")]
mod with_ndarray {
    use super::*;
    use ndarray::{array, s, Array, ArrayD, Axis, IxDyn};

    #[test]
    fn tensor_to_ndarray() {
        let t = Tensor::from_slice(&[1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
        let a = t.as_array::<i32>().unwrap();
        assert_eq!(a, array![[1, 2, 3], [4, 5, 6]].into_dyn());
        assert_eq!(a.as_ptr(), t.as_slice::<i32>().unwrap().as_ptr(), "no copy");
        let e = t.expand(&[2, 2, 3]).unwrap();
        assert_eq!(e.as_array::<i32>().unwrap().strides(), &[0, 3, 1]);
        assert_eq!(
            t.to_array::<i32>().unwrap(),
            array![[1, 2, 3], [4, 5, 6]].into_dyn()
        );
        assert_eq!(t.as_array::<i64>().unwrap_err().code, ErrorCode::Dtype);
        let empty = Tensor::zeros(DType::Float32, &[0, 3]).unwrap();
        assert_eq!(empty.as_array::<f32>().unwrap().shape(), &[0, 3]);
        let mut m = t.clone();
        m.as_array_mut::<i32>().unwrap()[[1, 2]] = 60;
        assert_eq!(m.to_vec::<i32>().unwrap(), [1, 2, 3, 4, 5, 60]);
        let mut buf = [0.0f32; 3];
        let mut rep = TensorViewMut::from_slice_strided(&mut buf, &[2, 3], &[0, 1]).unwrap();
        assert_eq!(
            rep.as_array_mut::<f32>().unwrap_err().code,
            ErrorCode::Overlap
        );
    }

    #[test]
    fn ndarray_to_tensor() {
        let a = Array::from_shape_vec((2, 3), (0..6).map(|v| v as f64).collect()).unwrap();
        let p = a.as_ptr();
        let t = Tensor::from_array(a).unwrap();
        assert_eq!(
            t.as_slice::<f64>().unwrap().as_ptr(),
            p,
            "owned arrays move in without a copy"
        );
        // A transposed, sliced owned array: still no copy, strides carried over.
        let mut b = Array::from_shape_vec((3, 4), (0..12).collect::<Vec<i64>>()).unwrap();
        b.slice_collapse(s![1.., ..;2]);
        b.swap_axes(0, 1);
        let want: Vec<i64> = b.iter().copied().collect();
        let tb = Tensor::from_array(b).unwrap();
        assert_eq!((tb.shape(), tb.strides()), (&[2, 2][..], &[2, 4][..]));
        assert_eq!(tb.to_vec::<i64>().unwrap(), want);
        // Negative strides: copied.
        let mut c = array![1u8, 2, 3];
        c.invert_axis(Axis(0));
        assert_eq!(
            Tensor::from_array(c.clone())
                .unwrap()
                .to_vec::<u8>()
                .unwrap(),
            [3, 2, 1]
        );
        assert_eq!(
            TensorView::from_array(&c).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        // Borrowed views.
        let d: ArrayD<f32> = ArrayD::from_elem(IxDyn(&[2, 2]), 1.5);
        let v = TensorView::from_array(&d).unwrap();
        assert_eq!(v.as_slice::<f32>().unwrap().as_ptr(), d.as_ptr());
        let col = d.slice(s![.., 1]);
        assert_eq!(TensorView::from_array(&col).unwrap().strides(), &[2]);
        let mut e = Array::<i32, _>::zeros((2, 3));
        {
            let mut w = TensorViewMut::from_array(&mut e).unwrap();
            w.add_(Tensor::from_slice(&[1i32, 2, 3], &[3]).unwrap())
                .unwrap();
        }
        assert_eq!(e, array![[1, 2, 3], [1, 2, 3]]);
    }
}
