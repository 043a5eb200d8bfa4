//! Numbers as operands: PyTorch's promotion of a Python number (the C
//! library's wrapped numbers), in the methods and the operators, on either
//! side. Expected values are PyTorch 2.x's (see tests/data/scalar_ops.txt).

use bcast::{BinaryOp, DType, ErrorCode, Scalar, Tensor, F16};

#[test]
fn int32_times_half_is_float32() {
    let x = Tensor::from_slice(&[1i32, 2, -3], &[3]).unwrap();
    let r = &x * 0.5;
    assert_eq!(r.dtype(), DType::Float32);
    assert_eq!(r.to_vec::<f32>().unwrap(), [0.5, 1.0, -1.5]);
    assert_eq!(x.mul(0.5f32).unwrap().dtype(), DType::Float32);
    assert_eq!(x.mul(2).unwrap().dtype(), DType::Int32);
    assert_eq!(x.div(3).unwrap().dtype(), DType::Float32);
}

#[test]
fn float16_plus_number_stays_float16() {
    let x = Tensor::from_slice(&[F16::from_f32(1.0)], &[1]).unwrap();
    let r = &x + 2.5;
    assert_eq!(r.dtype(), DType::Float16);
    assert_eq!(r.to_vec::<F16>().unwrap()[0].to_f32(), 3.5);
    // mul uses the number unrounded (PyTorch 2.x): f16 3 * 0.1 is 0.30005, not 0.2998.
    let three = Tensor::from_slice(&[F16::from_f32(3.0)], &[1]).unwrap();
    let p = (&three * 0.1).to_vec::<F16>().unwrap()[0].to_f32();
    assert_eq!(p, F16::from_f32(0.300_05).to_f32());
}

#[test]
fn uint8_plus_300_wraps() {
    let x = Tensor::from_slice(&[1u8, 255], &[2]).unwrap();
    let r = &x + 300;
    assert_eq!(r.dtype(), DType::UInt8);
    assert_eq!(r.to_vec::<u8>().unwrap(), [45, 43]);
    let mut y = x.to_tensor().unwrap();
    y += 300;
    assert_eq!(y.to_vec::<u8>().unwrap(), [45, 43]);
}

#[test]
fn reflected_forms() {
    let x = Tensor::from_slice(&[1i32, 2, 4], &[3]).unwrap();
    let r = 2 - &x;
    assert_eq!(r.dtype(), DType::Int32);
    assert_eq!(r.to_vec::<i32>().unwrap(), [1, 0, -2]);
    let q = 1.0 / &x;
    assert_eq!(q.dtype(), DType::Float32);
    assert_eq!(q.to_vec::<f32>().unwrap(), [1.0, 0.5, 0.25]);
    let p = x.rbinary(BinaryOp::Pow, 2).unwrap();
    assert_eq!(p.to_vec::<i32>().unwrap(), [2, 4, 16]);
    let f = Tensor::from_slice(&[0.5f64, 2.0], &[2]).unwrap();
    assert_eq!((1.0 - &f).to_vec::<f64>().unwrap(), [0.5, -1.0]);
    let mut out = Tensor::zeros(DType::Float64, &[3]).unwrap();
    x.rbinary_out(BinaryOp::Sub, 10, &mut out).unwrap();
    assert_eq!(out.to_vec::<f64>().unwrap(), [9.0, 8.0, 6.0]);
}

#[test]
fn pow_with_number_exponent() {
    let x = Tensor::from_slice(&[4.0f32, 9.0], &[2]).unwrap();
    assert_eq!(x.pow(0.5).unwrap().to_vec::<f32>().unwrap(), [2.0, 3.0]);
    assert_eq!(
        x.pow(-1).unwrap().to_vec::<f32>().unwrap(),
        [0.25, 1.0 / 9.0]
    );
    assert_eq!(x.pow(0).unwrap().to_vec::<f32>().unwrap(), [1.0, 1.0]);
    let i = Tensor::from_slice(&[2i64, 3], &[2]).unwrap();
    let e = i.pow(-1).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(
        e.message,
        "Integers to negative integer powers are not allowed."
    );
}

#[test]
fn in_place_refuses_a_wider_result() {
    let mut x = Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
    let e = x.mul_(0.5).unwrap_err();
    assert_eq!(e.code, ErrorCode::Dtype);
    assert_eq!(
        e.message,
        "result type Float can't be cast to the desired output type Int"
    );
    assert_eq!(x.to_vec::<i32>().unwrap(), [1, 2]);
}

#[test]
fn clamp_and_lerp_with_numbers() {
    let x = Tensor::from_slice(&[-5i32, 0, 5], &[3]).unwrap();
    let r = x.clamp(-1, 2.5).unwrap();
    assert_eq!(r.dtype(), DType::Float32);
    assert_eq!(r.to_vec::<f32>().unwrap(), [-1.0, 0.0, 2.5]);
    assert_eq!(x.clamp_min(1).unwrap().to_vec::<i32>().unwrap(), [1, 1, 5]);
    let u = Tensor::from_slice(&[1u8], &[1]).unwrap();
    let e = u.clamp_scalar(Some(Scalar::Int(300)), None).unwrap_err();
    assert_eq!(
        e.message,
        "Clamp min value 300 is outside the representable range of Byte"
    );
    let a = Tensor::from_slice(&[0.0f32, 10.0], &[2]).unwrap();
    let b = Tensor::from_slice(&[10.0f32, 20.0], &[2]).unwrap();
    assert_eq!(
        a.lerp(&b, 0.25).unwrap().to_vec::<f32>().unwrap(),
        [2.5, 12.5]
    );
    let i = Tensor::from_slice(&[1i64], &[1]).unwrap();
    let e = i.lerp(&i, 0.5).unwrap_err();
    assert_eq!(
        e.message,
        "\"lerp_kernel_scalar\" not implemented for 'Long'"
    );
}

#[test]
fn where_with_numbers() {
    let cond = Tensor::from_slice(&[true, false], &[2]).unwrap();
    let x = Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
    let r = x.where_cond(&cond, 2.5).unwrap();
    assert_eq!(r.dtype(), DType::Float32);
    assert_eq!(r.to_vec::<f32>().unwrap(), [1.0, 2.5]);
}
