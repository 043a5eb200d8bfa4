//! Every example of the broadcasting notes (shared/reference), through the
//! Rust API, with values checked against a naive Rust loop and error texts
//! checked byte for byte. The warning examples live in tests/warnings.rs.

mod common;

use bcast::{broadcast_shapes, DType, ErrorCode, ErrorDetail, Tensor};
use common::*;

fn tensor(shape: &[i64], seed: u64) -> (Tensor, Vec<f32>) {
    let v = values(numel(shape), seed);
    (Tensor::from_slice(&v, shape).unwrap(), v)
}

/// x + y checked against the naive loop, through both the method and `+`.
fn check_add(xs: &[i64], ys: &[i64], expected_shape: &[i64]) {
    let (x, xv) = tensor(xs, 1);
    let (y, yv) = tensor(ys, 2);
    let (shape, want) = naive_binary(&xv, xs, &yv, ys, |a, b| a + b);
    assert_eq!(shape, expected_shape);
    let r = x.add(&y).unwrap();
    assert_eq!(r.shape(), expected_shape);
    assert_eq!(r.dtype(), DType::Float32);
    assert_eq!(r.to_vec::<f32>().unwrap(), want);
    assert_eq!((&x + &y).to_vec::<f32>().unwrap(), want);
    assert_eq!(broadcast_shapes(xs, ys).unwrap(), expected_shape);
}

#[test]
fn same_shapes_are_always_broadcastable() {
    check_add(&[5, 7, 3], &[5, 7, 3], &[5, 7, 3]);
}

#[test]
fn empty_and_2x2_are_not_broadcastable() {
    // x=torch.empty((0,)), y=torch.empty(2,2): 0 against 2 in the last dimension.
    let x = Tensor::zeros(DType::Float32, &[0]).unwrap();
    let y = Tensor::zeros(DType::Float32, &[2, 2]).unwrap();
    let e = x.add(&y).unwrap_err();
    assert_err(
        e.clone(),
        ErrorCode::NotBroadcastable,
        "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 1",
    );
    assert_eq!(
        e.detail,
        ErrorDetail {
            dim: Some(1),
            size_a: Some(0),
            size_b: Some(2)
        }
    );
    // Size 0 against 1 broadcasts to 0.
    let z = Tensor::zeros(DType::Float32, &[2, 1]).unwrap();
    assert_eq!(x.add(&z).unwrap().shape(), &[2, 0]);
}

#[test]
fn a_0dim_tensor_broadcasts_with_anything() {
    // The old notes' torch.FloatTensor() had no dimension; today a 0-dim
    // tensor (a scalar) broadcasts with every shape.
    let x = Tensor::scalar(1.5f32).unwrap();
    let (y, yv) = tensor(&[2, 2], 3);
    let r = x.add(&y).unwrap();
    assert_eq!(r.shape(), &[2, 2]);
    assert_eq!(
        r.to_vec::<f32>().unwrap(),
        yv.iter().map(|v| 1.5 + v).collect::<Vec<_>>()
    );
    assert_eq!(y.add(&x).unwrap().shape(), &[2, 2]);
    assert_eq!(x.add(&x).unwrap().shape(), &[] as &[i64]);
}

#[test]
fn trailing_dimensions_line_up() {
    check_add(&[5, 3, 4, 1], &[3, 1, 1], &[5, 3, 4, 1]);
    check_add(&[5, 1, 4, 1], &[3, 1, 1], &[5, 3, 4, 1]);
    check_add(&[1], &[3, 1, 7], &[3, 1, 7]);
}

#[test]
fn mismatch_in_the_third_trailing_dimension() {
    let x = Tensor::zeros(DType::Float32, &[5, 2, 4, 1]).unwrap();
    let y = Tensor::zeros(DType::Float32, &[3, 1, 1]).unwrap();
    let msg =
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1";
    let e = x.add(&y).unwrap_err();
    assert_eq!(
        e.detail,
        ErrorDetail {
            dim: Some(1),
            size_a: Some(2),
            size_b: Some(3)
        }
    );
    assert_err(e, ErrorCode::NotBroadcastable, msg);
    assert_err(
        broadcast_shapes(&[5, 2, 4, 1], &[3, 1, 1]).unwrap_err(),
        ErrorCode::NotBroadcastable,
        msg,
    );
    // Swapped operands swap a and b.
    assert_err(
        y.add(&x).unwrap_err(),
        ErrorCode::NotBroadcastable,
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1",
    );
    // The operator panics with the same text.
    let p = std::panic::catch_unwind(|| &x + &y).unwrap_err();
    assert_eq!(p.downcast_ref::<String>().map(String::as_str), Some(msg));
}

#[test]
fn in_place_keeps_the_shape() {
    let (mut x, xv) = tensor(&[5, 3, 4, 1], 4);
    let (y, yv) = tensor(&[3, 1, 1], 5);
    let (_, want) = naive_binary(&xv, &[5, 3, 4, 1], &yv, &[3, 1, 1], |a, b| a + b);
    x.add_(&y).unwrap();
    assert_eq!(x.shape(), &[5, 3, 4, 1]);
    assert_eq!(x.to_vec::<f32>().unwrap(), want);
    // And through `+=`.
    let (mut x2, _) = tensor(&[5, 3, 4, 1], 4);
    x2 += &y;
    assert_eq!(x2.to_vec::<f32>().unwrap(), want);
}

#[test]
fn in_place_cannot_change_the_shape() {
    let (mut x, xv) = tensor(&[1, 3, 1], 6);
    let y = Tensor::zeros(DType::Float32, &[3, 1, 7]).unwrap();
    let e = x.add_(&y).unwrap_err();
    assert_err(
        e,
        ErrorCode::ShapeMismatch,
        "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]",
    );
    assert_eq!(x.to_vec::<f32>().unwrap(), xv, "nothing written");
    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| x += &y)).unwrap_err();
    assert_eq!(
        p.downcast_ref::<String>().map(String::as_str),
        Some("output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]")
    );
}

#[test]
fn backwards_compatibility_example_broadcasts() {
    // torch.add(torch.ones(4,1), torch.randn(4)) is now 4x4, each row 1 + randn.
    let ones = Tensor::full(1.0f32, &[4, 1]).unwrap();
    let (r, rv) = tensor(&[4], 7);
    let sum = ones.add(&r).unwrap();
    assert_eq!(sum.shape(), &[4, 4]);
    let row: Vec<f32> = rv.iter().map(|v| 1.0 + v).collect();
    assert_eq!(sum.to_vec::<f32>().unwrap(), row.repeat(4));
    // torch.add(torch.ones(4,1), torch.ones(4)): all twos.
    let twos = ones.add(Tensor::full(1.0f32, &[4]).unwrap()).unwrap();
    assert_eq!(twos.to_vec::<f32>().unwrap(), vec![2.0; 16]);
}

#[test]
fn column_plus_row() {
    // a = [[1],[2],[3]] (3,1); b = [[4,5,6,7]] (1,4); a + b is (3,4).
    let a = Tensor::from_slice(&[1i64, 2, 3], &[3, 1]).unwrap();
    let b = Tensor::from_slice(&[4i64, 5, 6, 7], &[1, 4]).unwrap();
    let c = &a + &b;
    assert_eq!(c.shape(), &[3, 4]);
    assert_eq!(c.dtype(), DType::Int64);
    assert_eq!(
        c.to_vec::<i64>().unwrap(),
        [5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10]
    );
}

#[test]
fn expand_is_zero_copy() {
    let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3, 1]).unwrap();
    let e = t.expand(&[2, 3, 4]).unwrap();
    assert_eq!(e.shape(), &[2, 3, 4]);
    assert_eq!(e.strides(), &[0, 1, 0]);
    assert_eq!(
        e.as_slice::<f32>(),
        None,
        "an expanded view is not contiguous"
    );
    let want: Vec<f32> = (0..2)
        .flat_map(|_| [1.0f32, 2.0, 3.0].iter().flat_map(|&v| [v; 4]))
        .collect();
    assert_eq!(e.to_vec::<f32>().unwrap(), want);
}
