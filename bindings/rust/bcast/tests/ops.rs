//! Every op in its three forms, dtype promotion, in-place and out= rules,
//! scalars and operators, checked against plain Rust.

mod common;

use bcast::{
    broadcast_shapes_n, broadcast_tensors, BinaryOp, DType, Element, ErrorCode, Tensor, TensorRef,
    TensorViewMut, BF16, F16,
};
use common::*;

fn t<T: Element>(v: &[T], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

// ------------------------------------------------------------ promotion

fn category(d: DType) -> u8 {
    match d {
        DType::Bool => 0,
        DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => 2,
        _ => 1,
    }
}

/// torch.result_type for two dimensioned tensors, written from the rules.
fn promote(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    if category(a) != category(b) {
        return if category(a) > category(b) { a } else { b };
    }
    match (a, b) {
        (UInt8, Int8) | (Int8, UInt8) => Int16,
        (UInt8, x) | (x, UInt8) => x,
        (Float16, BFloat16) | (BFloat16, Float16) => Float32,
        _ => {
            if a.size() >= b.size() {
                a
            } else {
                b
            }
        }
    }
}

fn ones(d: DType, shape: &[i64]) -> Tensor {
    Tensor::full(true, shape).unwrap().to_dtype(d).unwrap()
}

#[test]
fn promotion_of_every_dtype_pair() {
    for a in DType::ALL {
        for b in DType::ALL {
            let r = ones(a, &[2, 1]).mul(ones(b, &[3])).unwrap();
            assert_eq!(r.dtype(), promote(a, b), "{a:?} * {b:?}");
            assert_eq!(r.shape(), &[2, 3]);
        }
    }
}

#[test]
fn zero_dim_operands_count_only_from_a_higher_category() {
    for a in DType::ALL {
        for s in DType::ALL {
            let want = if category(s) > category(a) { s } else { a };
            let r = ones(a, &[2]).mul(ones(s, &[])).unwrap();
            assert_eq!(r.dtype(), want, "{a:?} * 0-dim {s:?}");
            let r = ones(s, &[]).mul(ones(a, &[2])).unwrap();
            assert_eq!(r.dtype(), want, "0-dim {s:?} * {a:?}");
        }
    }
    // Two 0-dim tensors promote normally.
    assert_eq!(
        ones(DType::Int32, &[])
            .add(ones(DType::Int64, &[]))
            .unwrap()
            .dtype(),
        DType::Int64
    );
}

#[test]
fn special_result_dtypes() {
    let i = t(&[7i32, -7, 9], &[3]);
    let j = t(&[2i32], &[1]);
    let q = i.div(&j).unwrap();
    assert_eq!(q.dtype(), DType::Float32);
    assert_eq!(q.to_vec::<f32>().unwrap(), [3.5, -3.5, 4.5]);
    let l = t(&[1i64, 2], &[2]);
    assert_eq!(l.div(&l).unwrap().dtype(), DType::Float32);
    assert_eq!(i.atan2(&j).unwrap().dtype(), DType::Float32);
    assert_eq!(i.copysign(&j).unwrap().dtype(), DType::Float32);
    for op in [
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
    ] {
        assert_eq!(i.binary(op, &j).unwrap().dtype(), DType::Bool, "{op:?}");
    }
    for op in [
        BinaryOp::LogicalAnd,
        BinaryOp::LogicalOr,
        BinaryOp::LogicalXor,
    ] {
        let r = ones(DType::Float64, &[3])
            .binary(op, i.to_dtype(DType::Int8).unwrap())
            .unwrap();
        assert_eq!(r.dtype(), DType::Bool, "{op:?}");
    }
    assert_eq!(
        ones(DType::UInt8, &[1])
            .add(ones(DType::Int8, &[1]))
            .unwrap()
            .dtype(),
        DType::Int16,
        "uint8 + int8"
    );
}

#[test]
fn dtype_errors_carry_pytorch_messages() {
    let i = t(&[1i32, 2], &[2]);
    let f = t(&[1.0f32, 2.0], &[2]);
    let b = t(&[true, false], &[2]);
    assert_err(
        i.hypot(&i).unwrap_err(),
        ErrorCode::Dtype,
        "\"hypot_cpu\" not implemented for 'Int'",
    );
    assert_err(
        f.bitwise_and(&f).unwrap_err(),
        ErrorCode::Dtype,
        "\"bitwise_and_cpu\" not implemented for 'Float'",
    );
    assert_eq!(f.bitwise_or(&i).unwrap_err().code, ErrorCode::Dtype);
    assert_eq!(f.bitwise_xor(&b).unwrap_err().code, ErrorCode::Dtype);
    assert_eq!(f.shift_left(&i).unwrap_err().code, ErrorCode::Dtype);
    assert_eq!(i.shift_right(&f).unwrap_err().code, ErrorCode::Dtype);
    assert_err(
        b.sub(&b).unwrap_err(),
        ErrorCode::Dtype,
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.",
    );
    let one_bool = "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.";
    assert_err(b.sub(&f).unwrap_err(), ErrorCode::Dtype, one_bool);
    assert_err(i.sub(&b).unwrap_err(), ErrorCode::Dtype, one_bool);
    assert_err(
        f.where_cond(&f, &f).unwrap_err(),
        ErrorCode::Dtype,
        "where expected condition to be a boolean tensor, but got a tensor with dtype Float",
    );
    assert_err(
        f.lerp(f.to_dtype(DType::Float64).unwrap(), &f).unwrap_err(),
        ErrorCode::Dtype,
        "expected dtype float for `end` but got dtype double",
    );
    assert_eq!(i.lerp(&i, &i).unwrap_err().code, ErrorCode::Dtype);
    assert!(i
        .addcdiv(&i, &i, 1.0)
        .unwrap_err()
        .message
        .starts_with("Integer division with addcdiv is no longer supported"));
}

// ------------------------------------------------------------ values

const A_SHAPE: [i64; 2] = [4, 1];
const B_SHAPE: [i64; 1] = [5];
const IA: [i64; 4] = [7, -7, 0, 13];
const IB: [i64; 5] = [2, -2, 3, -5, 1];

fn check_int(op: BinaryOp, f: impl Fn(i64, i64) -> i64) {
    let (shape, want) = naive_binary(&IA, &A_SHAPE, &IB, &B_SHAPE, f);
    let a = t(&IA, &A_SHAPE);
    let b = t(&IB, &B_SHAPE);
    let r = a.binary(op, &b).unwrap();
    assert_eq!((r.shape(), r.dtype()), (&shape[..], DType::Int64), "{op:?}");
    assert_eq!(r.to_vec::<i64>().unwrap(), want, "{op:?}");
    // out= and in place give the same values.
    let mut out = Tensor::zeros(DType::Int64, &shape).unwrap();
    a.binary_out(op, &b, &mut out).unwrap();
    assert_eq!(out.to_vec::<i64>().unwrap(), want, "{op:?} out=");
    let mut s = a.broadcast_to(&shape).unwrap();
    s.binary_(op, &b).unwrap();
    assert_eq!(s.to_vec::<i64>().unwrap(), want, "{op:?} in place");
}

#[test]
fn integer_arithmetic() {
    check_int(BinaryOp::Add, |a, b| a + b);
    check_int(BinaryOp::Sub, |a, b| a - b);
    check_int(BinaryOp::Mul, |a, b| a * b);
    check_int(BinaryOp::DivTrunc, |a, b| a / b);
    check_int(BinaryOp::DivFloor, |a, b| {
        a / b - i64::from(a % b != 0 && (a < 0) != (b < 0))
    });
    check_int(BinaryOp::Remainder, |a, b| ((a % b) + b) % b);
    check_int(BinaryOp::Fmod, |a, b| a % b);
    check_int(BinaryOp::Maximum, i64::max);
    check_int(BinaryOp::Minimum, i64::min);
    check_int(BinaryOp::BitwiseAnd, |a, b| a & b);
    check_int(BinaryOp::BitwiseOr, |a, b| a | b);
    check_int(BinaryOp::BitwiseXor, |a, b| a ^ b);
}

#[test]
fn floor_division_and_remainder_follow_python() {
    // Spot values worked by hand: -7 // 2 = -4, 7 // -2 = -4, -7 % 2 = 1, 7 % -2 = -1.
    let a = t(&[-7i32, 7, -7, 7], &[4]);
    let b = t(&[2i32, -2, -2, 2], &[4]);
    assert_eq!(
        a.div_floor(&b).unwrap().to_vec::<i32>().unwrap(),
        [-4, -4, 3, 3]
    );
    assert_eq!(
        a.div_trunc(&b).unwrap().to_vec::<i32>().unwrap(),
        [-3, -3, 3, 3]
    );
    assert_eq!(
        a.remainder(&b).unwrap().to_vec::<i32>().unwrap(),
        [1, -1, -1, 1]
    );
    assert_eq!(a.fmod(&b).unwrap().to_vec::<i32>().unwrap(), [-1, 1, -1, 1]);
    let af = a.to_dtype(DType::Float64).unwrap();
    let bf = b.to_dtype(DType::Float64).unwrap();
    assert_eq!(
        af.remainder(&bf).unwrap().to_vec::<f64>().unwrap(),
        [1.0, -1.0, -1.0, 1.0]
    );
    assert_eq!(
        af.fmod(&bf).unwrap().to_vec::<f64>().unwrap(),
        [-1.0, 1.0, -1.0, 1.0]
    );
    assert_eq!(
        af.div_floor(&bf).unwrap().to_vec::<f64>().unwrap(),
        [-4.0, -4.0, 3.0, 3.0]
    );
    assert_eq!(
        af.div_trunc(&bf).unwrap().to_vec::<f64>().unwrap(),
        [-3.0, -3.0, 3.0, 3.0]
    );
    // `%` is the remainder.
    assert_eq!((&a % &b).to_vec::<i32>().unwrap(), [1, -1, -1, 1]);
}

#[test]
fn integer_division_by_zero_writes_nothing() {
    let a = t(&[1i32, 2, 3], &[3]);
    let z = t(&[1i32, 0, 1], &[3]);
    for op in [
        BinaryOp::DivTrunc,
        BinaryOp::DivFloor,
        BinaryOp::Remainder,
        BinaryOp::Fmod,
    ] {
        assert_err(
            a.binary(op, &z).unwrap_err(),
            ErrorCode::DivisionByZero,
            "ZeroDivisionError",
        );
        let mut s = a.clone();
        assert_err(
            s.binary_(op, &z).unwrap_err(),
            ErrorCode::DivisionByZero,
            "ZeroDivisionError",
        );
        assert_eq!(
            s.to_vec::<i32>().unwrap(),
            [1, 2, 3],
            "{op:?} in place wrote"
        );
        let mut out = Tensor::full(9i32, &[3]).unwrap();
        assert!(a.binary_out(op, &z, &mut out).is_err());
        assert_eq!(out.to_vec::<i32>().unwrap(), [9, 9, 9], "{op:?} out= wrote");
    }
    // True division of integers is floating: no error.
    assert_eq!(
        a.div(&z).unwrap().to_vec::<f32>().unwrap(),
        [1.0, f32::INFINITY, 3.0]
    );
    let p = std::panic::catch_unwind(|| &a % 0).unwrap_err();
    assert_eq!(
        p.downcast_ref::<String>().map(String::as_str),
        Some("ZeroDivisionError")
    );
}

#[test]
fn integer_pow() {
    let base = t(&[1i64, -1, 2, -2, 0, 3], &[6, 1]);
    let exp = t(&[-3i64, -2, 0, 1, 3], &[5]);
    let ipow = |b: i64, e: i64| -> i64 {
        if e < 0 {
            match b {
                1 => 1,
                -1 => {
                    if e % 2 == 0 {
                        1
                    } else {
                        -1
                    }
                }
                _ => 0,
            }
        } else {
            b.pow(e as u32)
        }
    };
    let (_, want) = naive_binary(
        &[1i64, -1, 2, -2, 0, 3],
        &[6, 1],
        &[-3i64, -2, 0, 1, 3],
        &[5],
        ipow,
    );
    assert_eq!(base.pow(&exp).unwrap().to_vec::<i64>().unwrap(), want);
}

#[test]
fn shifts() {
    let a = t(&[1i32, 8, -8, i32::MAX], &[4, 1]);
    let s = t(&[0i32, 1, 31, 32, 40, -1], &[6]);
    let shl = |x: i32, s: i32| {
        if !(0..32).contains(&s) {
            0
        } else {
            x.wrapping_shl(s as u32)
        }
    };
    let shr = |x: i32, s: i32| {
        if !(0..32).contains(&s) {
            if x < 0 {
                -1
            } else {
                0
            }
        } else {
            x >> s
        }
    };
    let (_, l) = naive_binary(
        &[1i32, 8, -8, i32::MAX],
        &[4, 1],
        &[0i32, 1, 31, 32, 40, -1],
        &[6],
        shl,
    );
    let (_, r) = naive_binary(
        &[1i32, 8, -8, i32::MAX],
        &[4, 1],
        &[0i32, 1, 31, 32, 40, -1],
        &[6],
        shr,
    );
    assert_eq!(a.shift_left(&s).unwrap().to_vec::<i32>().unwrap(), l);
    assert_eq!(a.shift_right(&s).unwrap().to_vec::<i32>().unwrap(), r);
    assert_eq!((&a << &s).to_vec::<i32>().unwrap(), l);
    assert_eq!((&a >> &s).to_vec::<i32>().unwrap(), r);
    let u = t(&[200u8, 1], &[2]);
    assert_eq!((&u >> 1u8).to_vec::<u8>().unwrap(), [100, 0]);
    assert_eq!((&u << 1u8).to_vec::<u8>().unwrap(), [144, 2]);
    assert_eq!((&u << 8u8).to_vec::<u8>().unwrap(), [0, 0]);
}

fn check_float(op: BinaryOp, f: impl Fn(f64, f64) -> f64, tol: f64) {
    let av = [1.5f64, -2.25, 0.0, -0.0, f64::NAN, 3.0];
    let bv = [2.0f64, -0.5, f64::NAN, 4.0];
    let (shape, want) = naive_binary(&av, &[6, 1], &bv, &[4], &f);
    let r = t(&av, &[6, 1]).binary(op, t(&bv, &[4])).unwrap();
    assert_eq!(r.shape(), &shape[..]);
    for ((g, w), idx) in r
        .to_vec::<f64>()
        .unwrap()
        .iter()
        .zip(&want)
        .zip(indices(&shape))
    {
        let same = (g.is_nan() && w.is_nan()) || (g - w).abs() <= tol * w.abs() || g == w;
        assert!(same, "{op:?} at {idx:?}: got {g}, want {w}");
    }
}

#[test]
fn floating_ops() {
    check_float(BinaryOp::Add, |a, b| a + b, 0.0);
    check_float(BinaryOp::Sub, |a, b| a - b, 0.0);
    check_float(BinaryOp::Mul, |a, b| a * b, 0.0);
    check_float(BinaryOp::Div, |a, b| a / b, 0.0);
    check_float(BinaryOp::Pow, f64::powf, 1e-15);
    check_float(BinaryOp::Atan2, f64::atan2, 1e-15);
    check_float(BinaryOp::Hypot, f64::hypot, 1e-15);
    check_float(BinaryOp::Copysign, f64::copysign, 0.0);
    let nan_prop = |f: fn(f64, f64) -> f64| {
        move |a: f64, b: f64| {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else {
                f(a, b)
            }
        }
    };
    check_float(BinaryOp::Maximum, nan_prop(f64::max), 0.0);
    check_float(BinaryOp::Minimum, nan_prop(f64::min), 0.0);
    check_float(BinaryOp::Fmax, f64::max, 0.0); // Rust's max ignores NaN, like fmax
    check_float(BinaryOp::Fmin, f64::min, 0.0);
    let b2f = |f: fn(&f64, &f64) -> bool| move |a: f64, b: f64| f64::from(u8::from(f(&a, &b)));
    for (op, f) in [
        (BinaryOp::Eq, b2f(|a, b| a == b)),
        (BinaryOp::Ne, b2f(|a, b| a != b)),
        (BinaryOp::Lt, b2f(|a, b| a < b)),
        (BinaryOp::Le, b2f(|a, b| a <= b)),
        (BinaryOp::Gt, b2f(|a, b| a > b)),
        (BinaryOp::Ge, b2f(|a, b| a >= b)),
        (BinaryOp::LogicalAnd, b2f(|a, b| *a != 0.0 && *b != 0.0)),
        (BinaryOp::LogicalOr, b2f(|a, b| *a != 0.0 || *b != 0.0)),
        (BinaryOp::LogicalXor, b2f(|a, b| (*a != 0.0) != (*b != 0.0))),
    ] {
        let av = [1.5f64, -2.25, 0.0, -0.0, f64::NAN, 3.0];
        let bv = [2.0f64, -0.0, f64::NAN, 3.0];
        let (_, want) = naive_binary(&av, &[6, 1], &bv, &[4], f);
        let r = t(&av, &[6, 1]).binary(op, t(&bv, &[4])).unwrap();
        assert_eq!(r.dtype(), DType::Bool);
        let got: Vec<f64> = r
            .to_vec::<bool>()
            .unwrap()
            .into_iter()
            .map(|b| f64::from(u8::from(b)))
            .collect();
        assert_eq!(got, want, "{op:?}");
    }
}

#[test]
fn half_types_compute_in_f32_and_round_once() {
    let av = values(12, 11);
    let bv = values(4, 12);
    let ah: Vec<F16> = av.iter().map(|&v| F16::from_f32(v)).collect();
    let bh: Vec<F16> = bv.iter().map(|&v| F16::from_f32(v)).collect();
    let a = t(&ah, &[3, 4]);
    let b = t(&bh, &[4]);
    for (op, f) in [
        (BinaryOp::Add, (|x, y| x + y) as fn(f32, f32) -> f32),
        (BinaryOp::Mul, |x, y| x * y),
        (BinaryOp::Div, |x, y| x / y),
    ] {
        let (_, want) = naive_binary(&ah, &[3, 4], &bh, &[4], |x: F16, y: F16| {
            F16::from_f32(f(x.to_f32(), y.to_f32())).to_bits()
        });
        let r = a.binary(op, &b).unwrap();
        assert_eq!(r.dtype(), DType::Float16);
        let got: Vec<u16> = r
            .to_vec::<F16>()
            .unwrap()
            .iter()
            .map(|h| h.to_bits())
            .collect();
        assert_eq!(got, want, "f16 {op:?}");
    }
    let ab: Vec<BF16> = av.iter().map(|&v| BF16::from_f32(v)).collect();
    let bb: Vec<BF16> = bv.iter().map(|&v| BF16::from_f32(v)).collect();
    let (_, want) = naive_binary(&ab, &[3, 4], &bb, &[4], |x: BF16, y: BF16| {
        BF16::from_f32(x.to_f32() * y.to_f32()).to_bits()
    });
    let r = t(&ab, &[3, 4]).mul(t(&bb, &[4])).unwrap();
    assert_eq!(r.dtype(), DType::BFloat16);
    assert_eq!(
        r.to_vec::<BF16>()
            .unwrap()
            .iter()
            .map(|h| h.to_bits())
            .collect::<Vec<_>>(),
        want
    );
    // Half + BFloat16 is Float32, exactly the f32 sum.
    let (_, want) = naive_binary(&ah, &[3, 4], &bb, &[4], |x: F16, y: BF16| {
        x.to_f32() + y.to_f32()
    });
    let r = a.add(t(&bb, &[4])).unwrap();
    assert_eq!(r.dtype(), DType::Float32);
    assert_eq!(r.to_vec::<f32>().unwrap(), want);
}

// ------------------------------------------------------------ out= and in place

#[test]
fn unsafe_casts_are_refused_for_out_and_in_place() {
    let f = t(&[1.5f32, 2.5], &[2]);
    let mut l = t(&[1i64, 2], &[2]);
    assert_err(
        l.add_(&f).unwrap_err(),
        ErrorCode::Dtype,
        "result type Float can't be cast to the desired output type Long",
    );
    assert_eq!(l.to_vec::<i64>().unwrap(), [1, 2]);
    let mut out = Tensor::zeros(DType::Int64, &[2]).unwrap();
    assert_err(
        f.add_out(&l, &mut out).unwrap_err(),
        ErrorCode::Dtype,
        "result type Float can't be cast to the desired output type Long",
    );
    let mut b = t(&[true, false], &[2]);
    assert_err(
        b.add_(&l).unwrap_err(),
        ErrorCode::Dtype,
        "result type Long can't be cast to the desired output type Bool",
    );
    assert_err(
        b.mul_(&f).unwrap_err(),
        ErrorCode::Dtype,
        "result type Float can't be cast to the desired output type Bool",
    );
    // Widening is fine: int into a float out, bool into an int in place.
    let mut fo = Tensor::zeros(DType::Float64, &[2]).unwrap();
    l.add_out(&l, &mut fo).unwrap();
    assert_eq!(fo.to_vec::<f64>().unwrap(), [2.0, 4.0]);
    l.add_(&b).unwrap();
    assert_eq!(l.to_vec::<i64>().unwrap(), [2, 2]);
    // An int tensor plus a float scalar in place: the same refusal as PyTorch's x.add_(2.5).
    assert_err(
        l.add_(2.5).unwrap_err(),
        ErrorCode::Dtype,
        "result type Float can't be cast to the desired output type Long",
    );
    // copy_ converts anything.
    l.copy_from(&t(&[-2.7f64, 3.9], &[2])).unwrap();
    assert_eq!(l.to_vec::<i64>().unwrap(), [-2, 3]);
    b.copy_from(&t(&[0.0f32, -0.5], &[2])).unwrap();
    assert_eq!(b.to_vec::<bool>().unwrap(), [false, true]);
}

#[test]
fn out_must_have_the_broadcast_shape() {
    let a = t(&[1.0f32, 2.0, 3.0], &[3, 1]);
    let b = t(&[1.0f32, 2.0], &[2]);
    let mut out = Tensor::zeros(DType::Float32, &[3, 1]).unwrap();
    assert_err(
        a.add_out(&b, &mut out).unwrap_err(),
        ErrorCode::ShapeMismatch,
        "output with shape [3, 1] doesn't match the broadcast shape [3, 2]",
    );
    let mut out = Tensor::zeros(DType::Float32, &[3, 2]).unwrap();
    a.mul_out(&b, &mut out).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [1.0, 2.0, 2.0, 4.0, 3.0, 6.0]);
    // A slice-backed out: results land in the caller's buffer.
    let mut buf = [0.0f32; 6];
    a.sub_out(
        &b,
        &mut TensorViewMut::from_slice(&mut buf, &[3, 2]).unwrap(),
    )
    .unwrap();
    assert_eq!(buf, [0.0, -1.0, 1.0, 0.0, 2.0, 1.0]);
}

#[test]
fn written_tensors_may_not_overlap() {
    let msg = "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.";
    let mut buf = [1.0f32, 2.0, 3.0];
    let mut w = TensorViewMut::from_slice_strided(&mut buf, &[2, 3], &[0, 1]).unwrap();
    assert_err(w.add_(1.0f32).unwrap_err(), ErrorCode::Overlap, msg);
    let a = t(&[1.0f32; 6], &[2, 3]);
    assert_err(a.add_out(&a, &mut w).unwrap_err(), ErrorCode::Overlap, msg);
    drop(w);
    assert_eq!(buf, [1.0, 2.0, 3.0]);

    // Partial overlap between out and an input needs two handles over one
    // buffer, which safe Rust forbids; build them with the raw API.
    let mut data = [1.0f32, 2.0, 3.0, 4.0];
    let p = data.as_mut_ptr();
    // SAFETY: both handles live only inside this block and `data` outlives them;
    // the library reads and writes through them only during the calls below.
    unsafe {
        let shape = [3i64];
        let mut x = std::ptr::null_mut();
        let mut y = std::ptr::null_mut();
        let wrap = |ptr: *mut f32, out: &mut *mut bcast::sys::bc_tensor| {
            bcast::sys::bc_tensor_wrap(
                bcast::sys::BC_FLOAT32,
                shape.as_ptr(),
                std::ptr::null(),
                1,
                ptr.cast(),
                12,
                None,
                std::ptr::null_mut(),
                out,
            )
        };
        assert_eq!(wrap(p, &mut x), bcast::sys::BC_OK);
        assert_eq!(wrap(p.add(1), &mut y), bcast::sys::BC_OK);
        let xr = TensorRef::from_ptr_mut(x);
        let yr = TensorRef::from_ptr(y);
        let e = yr.add_out(yr, xr).unwrap_err();
        assert_err(e, ErrorCode::Overlap, "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.");
        // Exact aliasing (x.add_(x)) is allowed.
        let status = bcast::sys::bc_binary_(bcast::sys::BC_ADD, x, x);
        assert_eq!(status, bcast::sys::BC_OK);
        bcast::sys::bc_tensor_free(x);
        bcast::sys::bc_tensor_free(y);
    }
    assert_eq!(data, [2.0, 4.0, 6.0, 4.0]);
}

// ------------------------------------------------------------ ternary

fn naive3<A: Copy, B: Copy, C: Copy, R>(
    a: (&[A], &[i64]),
    b: (&[B], &[i64]),
    c: (&[C], &[i64]),
    f: impl Fn(A, B, C) -> R,
) -> (Vec<i64>, Vec<R>) {
    let ab = naive_shape(a.1, b.1).unwrap();
    let shape = naive_shape(&ab, c.1).unwrap();
    let at = |s: &[i64], idx: &[i64]| -> usize {
        let skip = idx.len() - s.len();
        s.iter().enumerate().fold(0i64, |off, (d, &n)| {
            off * n + if n == 1 { 0 } else { idx[skip + d] }
        }) as usize
    };
    let vals = indices(&shape)
        .iter()
        .map(|i| f(a.0[at(a.1, i)], b.0[at(b.1, i)], c.0[at(c.1, i)]))
        .collect();
    (shape, vals)
}

#[test]
fn where_broadcasts_three_ways() {
    let cv = [true, false, true];
    let av = [1.0f32, 2.0, 3.0, 4.0];
    let bv = [-1.0f32, -2.0, -3.0, -4.0, -5.0];
    let (shape, want) = naive3(
        (&cv, &[3, 1, 1]),
        (&av, &[1, 4, 1]),
        (&bv, &[5]),
        |c, a, b| if c { a } else { b },
    );
    let (c, a, b) = (t(&cv, &[3, 1, 1]), t(&av, &[1, 4, 1]), t(&bv, &[5]));
    let r = a.where_cond(&c, &b).unwrap();
    assert_eq!(r.shape(), &shape[..]);
    assert_eq!(r.to_vec::<f32>().unwrap(), want);
    let mut out = Tensor::zeros(DType::Float32, &shape).unwrap();
    a.where_cond_out(&c, &b, &mut out).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), want);
    let mut s = a.broadcast_to(&shape).unwrap();
    s.where_cond_(&c, &b).unwrap();
    assert_eq!(s.to_vec::<f32>().unwrap(), want);
    let mut small = a.clone();
    assert_eq!(
        small.where_cond_(&c, &b).unwrap_err().code,
        ErrorCode::ShapeMismatch
    );
    // Scalars: where(cond, a, 0) and a bool scalar condition.
    assert_eq!(
        a.where_cond(true, 0.0).unwrap().to_vec::<f32>().unwrap(),
        av
    );
}

#[test]
fn addcmul_addcdiv_lerp_clamp() {
    let sv = values(3, 21);
    let t1v = values(4, 22);
    let t2v: Vec<f32> = values(6, 23).iter().map(|v| v + 5.0).collect();
    let (s, t1, t2) = (t(&sv, &[3, 1, 1]), t(&t1v, &[4, 1]), t(&t2v, &[1, 6]));
    let (shape, want) = naive3(
        (&sv, &[3, 1, 1]),
        (&t1v, &[4, 1]),
        (&t2v, &[1, 6]),
        |a, b, c| a + 0.5 * b * c,
    );
    let r = s.addcmul(&t1, &t2, 0.5).unwrap();
    assert_eq!(r.shape(), &shape[..]);
    let close = |g: &[f32], w: &[f32]| {
        g.iter()
            .zip(w)
            .all(|(g, w)| (g - w).abs() <= 1e-5 * w.abs().max(1.0))
    };
    assert!(close(&r.to_vec::<f32>().unwrap(), &want));
    let mut out = Tensor::zeros(DType::Float32, &shape).unwrap();
    s.addcmul_out(&t1, &t2, 0.5, &mut out).unwrap();
    assert!(close(&out.to_vec::<f32>().unwrap(), &want));
    let mut x = s.broadcast_to(&shape).unwrap();
    x.addcmul_(&t1, &t2, 0.5).unwrap();
    assert!(close(&x.to_vec::<f32>().unwrap(), &want));

    let (_, want) = naive3(
        (&sv, &[3, 1, 1]),
        (&t1v, &[4, 1]),
        (&t2v, &[1, 6]),
        |a, b, c| a + 2.0 * b / c,
    );
    assert!(close(
        &s.addcdiv(&t1, &t2, 2.0).unwrap().to_vec::<f32>().unwrap(),
        &want
    ));
    let mut out = Tensor::zeros(DType::Float32, &shape).unwrap();
    s.addcdiv_out(&t1, &t2, 2.0, &mut out).unwrap();
    assert!(close(&out.to_vec::<f32>().unwrap(), &want));
    let mut x = s.broadcast_to(&shape).unwrap();
    x.addcdiv_(&t1, &t2, 2.0).unwrap();
    assert!(close(&x.to_vec::<f32>().unwrap(), &want));

    let w = t(&[0.0f32, 0.25, 1.0], &[3, 1, 1]);
    let (shape, want) = naive3(
        (&t1v, &[4, 1]),
        (&t2v, &[1, 6]),
        (&[0.0f32, 0.25, 1.0][..], &[3, 1, 1]),
        |a, b, w| a + w * (b - a),
    );
    let r = t1.lerp(&t2, &w).unwrap();
    assert_eq!(r.shape(), &shape[..]);
    assert!(close(&r.to_vec::<f32>().unwrap(), &want));
    let mut out = Tensor::zeros(DType::Float32, &shape).unwrap();
    t1.lerp_out(&t2, &w, &mut out).unwrap();
    assert!(close(&out.to_vec::<f32>().unwrap(), &want));
    let mut x = t1.broadcast_to(&shape).unwrap();
    x.lerp_(&t2, &w).unwrap();
    assert!(close(&x.to_vec::<f32>().unwrap(), &want));

    let xv = [-3i32, -1, 0, 2, 5];
    let lo = t(&[-2i32, 0], &[2, 1]);
    let hi = t(&[1i32, 3, 4, 9, 9], &[5]);
    let (shape, want) = naive3(
        (&xv, &[5]),
        (&[-2i32, 0][..], &[2, 1]),
        (&[1i32, 3, 4, 9, 9][..], &[5]),
        |x, l, h| x.max(l).min(h),
    );
    let x = t(&xv, &[5]);
    assert_eq!(x.clamp(&lo, &hi).unwrap().to_vec::<i32>().unwrap(), want);
    let mut out = Tensor::zeros(DType::Int32, &shape).unwrap();
    x.clamp_out(&lo, &hi, &mut out).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), want);
    let mut y = x.broadcast_to(&shape).unwrap();
    y.clamp_(&lo, &hi).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), want);
    assert_eq!(
        x.clamp_min(0).unwrap().to_vec::<i32>().unwrap(),
        [0, 0, 0, 2, 5]
    );
    assert_eq!(
        x.clamp_max(0).unwrap().to_vec::<i32>().unwrap(),
        [-3, -1, 0, 0, 0]
    );
    let mut y = x.clone();
    y.clamp_min_(-1).unwrap();
    y.clamp_max_(3).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [-1, -1, 0, 2, 3]);
    let mut out = Tensor::zeros(DType::Int32, &[5]).unwrap();
    x.clamp_min_out(1, &mut out).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), [1, 1, 1, 2, 5]);
    x.clamp_max_out(1, &mut out).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), [-3, -1, 0, 1, 1]);
    // NaN propagates through clamp.
    let f = t(&[f32::NAN, 5.0], &[2]);
    let r = f.clamp(0.0, 1.0).unwrap().to_vec::<f32>().unwrap();
    assert!(r[0].is_nan() && r[1] == 1.0);
}

#[test]
fn alpha_scales_the_second_operand() {
    let a = t(&[1i64, 2, 3], &[3]);
    let b = t(&[10i64], &[1]);
    assert_eq!(
        a.add_scaled(&b, 2.0).unwrap().to_vec::<i64>().unwrap(),
        [21, 22, 23]
    );
    assert_eq!(
        a.sub_scaled(&b, 3.0).unwrap().to_vec::<i64>().unwrap(),
        [-29, -28, -27]
    );
    let mut out = Tensor::zeros(DType::Int64, &[3]).unwrap();
    a.add_scaled_out(&b, -1.0, &mut out).unwrap();
    assert_eq!(out.to_vec::<i64>().unwrap(), [-9, -8, -7]);
    a.sub_scaled_out(&b, -1.0, &mut out).unwrap();
    assert_eq!(out.to_vec::<i64>().unwrap(), [11, 12, 13]);
    let mut x = a.clone();
    x.add_scaled_(&b, 1.0).unwrap();
    x.sub_scaled_(&b, 2.0).unwrap();
    assert_eq!(x.to_vec::<i64>().unwrap(), [-9, -8, -7]);
    assert_err(
        a.add_scaled(&b, 1.5).unwrap_err(),
        ErrorCode::InvalidArgument,
        "For integral input tensors, argument alpha must not be a floating point number.",
    );
    assert_eq!(
        a.binary_alpha(BinaryOp::Mul, &b, 1.0).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    let f = t(&[1.0f32, 2.0], &[2]);
    assert_eq!(
        f.add_scaled(&f, 0.5).unwrap().to_vec::<f32>().unwrap(),
        [1.5, 3.0]
    );
}

// ------------------------------------------------------------ scalars and operators

#[test]
fn scalars_take_the_tensor_dtype_unless_of_a_higher_kind() {
    let i = t(&[1i32, 2], &[2]);
    assert_eq!(i.add(3).unwrap().dtype(), DType::Int32);
    assert_eq!(i.add(3i64).unwrap().dtype(), DType::Int32);
    let r = i.add(0.5).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>().unwrap()),
        (DType::Float32, vec![1.5, 2.5])
    );
    let b = t(&[true, false], &[2]);
    let r = b.add(1).unwrap();
    assert_eq!(
        (r.dtype(), r.to_vec::<i64>().unwrap()),
        (DType::Int64, vec![2, 1])
    );
    assert_eq!((&b & true).dtype(), DType::Bool);
    let h = t(&[F16::from_f32(1.0)], &[1]);
    assert_eq!(h.mul(2.0).unwrap().dtype(), DType::Float16);
    let d = t(&[1.0f64], &[1]);
    assert_eq!(d.mul(2.0f32).unwrap().dtype(), DType::Float64);
    let u = t(&[250u8], &[1]);
    assert_eq!((&u + 10u8).to_vec::<u8>().unwrap(), [4], "uint8 wraps");
    // A scalar on the left.
    assert_eq!((10 - &i).to_vec::<i32>().unwrap(), [9, 8]);
    assert_eq!((1.0 / &i).to_vec::<f32>().unwrap(), [1.0, 0.5]);
    assert_eq!((2 << &i).to_vec::<i32>().unwrap(), [4, 8]);
    assert_eq!((true ^ &b).to_vec::<bool>().unwrap(), [false, true]);
}

#[test]
fn operators_for_every_owned_and_borrowed_pair() {
    let a = || t(&[6i32, 7], &[2, 1]);
    let b = || t(&[2i32, 3, 4], &[3]);
    let want = [8, 9, 10, 9, 10, 11];
    assert_eq!((a() + b()).to_vec::<i32>().unwrap(), want);
    assert_eq!((a() + &b()).to_vec::<i32>().unwrap(), want);
    assert_eq!((&a() + b()).to_vec::<i32>().unwrap(), want);
    assert_eq!((&a() + &b()).to_vec::<i32>().unwrap(), want);
    let (av, bv) = (a(), b());
    let (va, vb) = (av.view().unwrap(), bv.view().unwrap());
    assert_eq!((&va + &vb).to_vec::<i32>().unwrap(), want);
    assert_eq!((va.clone() + vb.clone()).to_vec::<i32>().unwrap(), want);
    let ra: &TensorRef = &av;
    assert_eq!((ra + &*bv).to_vec::<i32>().unwrap(), want);
    let mut buf = [6i32, 7];
    let m = TensorViewMut::from_slice(&mut buf, &[2, 1]).unwrap();
    assert_eq!((&m + &vb).to_vec::<i32>().unwrap(), want);
    assert_eq!((m + vb).to_vec::<i32>().unwrap(), want);

    let (x, y) = (&a(), &b());
    let (xv, yv) = ([6i64, 7], [2i64, 3, 4]);
    let check = |r: Tensor, f: fn(i64, i64) -> i64| {
        let (_, w) = naive_binary(&xv, &[2, 1], &yv, &[3], f);
        let got: Vec<i64> = r.to_dtype(DType::Int64).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(got, w);
    };
    check(x - y, |a, b| a - b);
    check(x * y, |a, b| a * b);
    check(x % y, |a, b| a.rem_euclid(b));
    check(x & y, |a, b| a & b);
    check(x | y, |a, b| a | b);
    check(x ^ y, |a, b| a ^ b);
    check(x << y, |a, b| a << b);
    check(x >> y, |a, b| a >> b);
    assert_eq!(
        (x / y).to_vec::<f32>().unwrap(),
        [3.0, 2.0, 1.5, 3.5, 7.0 / 3.0, 1.75]
    );

    // Assignment forms, with tensors and scalars, on Tensor, TensorViewMut and &mut TensorRef.
    let mut z = t(&[1i32, 2, 3], &[3]);
    z += 1;
    z -= &t(&[1i32], &[1]);
    z *= t(&[2i32, 2, 2], &[3]);
    z %= 5;
    z <<= 1;
    z >>= 1;
    z |= 8;
    z &= 12;
    z ^= 1;
    assert_eq!(z.to_vec::<i32>().unwrap(), [9, 13, 9]);
    let mut f = t(&[1.0f32, 2.0], &[2]);
    f /= 4.0;
    assert_eq!(f.to_vec::<f32>().unwrap(), [0.25, 0.5]);
    let mut buf = [1.0f64, 2.0];
    {
        let mut m = TensorViewMut::from_slice(&mut buf, &[2]).unwrap();
        m += 1.0;
        let r: &mut TensorRef = &mut m;
        *r *= 10.0;
    }
    assert_eq!(buf, [20.0, 30.0]);
}

// ------------------------------------------------------------ shapes

#[test]
fn broadcast_shapes_n_and_tensors() {
    assert_eq!(
        broadcast_shapes_n(&[&[5, 1, 4, 1], &[3, 1, 1], &[1]]).unwrap(),
        [5, 3, 4, 1]
    );
    assert_eq!(broadcast_shapes_n(&[]).unwrap(), [] as [i64; 0]);
    assert_eq!(broadcast_shapes_n(&[&[0], &[1]]).unwrap(), [0]);
    assert_err(
        broadcast_shapes_n(&[&[5, 2, 4, 1], &[3, 1, 1]]).unwrap_err(),
        ErrorCode::NotBroadcastable,
        "Attempting to broadcast a dimension of length 3 at -3! Mismatching argument at index 1 \
         had (3, 1, 1); but expected shape should be broadcastable to [5, 2, 4, 1]",
    );
    let a = t(&[1i8, 2, 3], &[3]);
    let b = t(&[4i8, 5], &[2, 1]);
    let c = Tensor::scalar(9i8).unwrap();
    let v = broadcast_tensors(&[&a, &b, &c]).unwrap();
    assert_eq!(v.len(), 3);
    for x in &v {
        assert_eq!(x.shape(), &[2, 3]);
    }
    assert_eq!(v[0].to_vec::<i8>().unwrap(), [1, 2, 3, 1, 2, 3]);
    assert_eq!(v[1].to_vec::<i8>().unwrap(), [4, 4, 4, 5, 5, 5]);
    assert_eq!(v[2].to_vec::<i8>().unwrap(), [9; 6]);
    assert_eq!(v[2].strides(), &[0, 0]);
    let d = t(&[1i8, 2], &[2]);
    assert_err(
        broadcast_tensors(&[&a, &d]).unwrap_err(),
        ErrorCode::NotBroadcastable,
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
    );
}

#[test]
fn expand_errors() {
    let x = Tensor::zeros(DType::Float32, &[3, 1, 7]).unwrap();
    assert_err(
        x.expand(&[1, 3]).unwrap_err(),
        ErrorCode::ShapeMismatch,
        "expand(torch.FloatTensor{[3, 1, 7]}, size=[1, 3]): the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (3)",
    );
    let e = x.expand(&[3, 3, 8]).unwrap_err();
    assert_err(
        e.clone(),
        ErrorCode::ShapeMismatch,
        "The expanded size of the tensor (8) must match the existing size (7) at non-singleton dimension 2.  Target sizes: [3, 3, 8].  Tensor sizes: [3, 1, 7]",
    );
    assert_eq!(
        (e.detail.dim, e.detail.size_a, e.detail.size_b),
        (Some(2), Some(8), Some(7))
    );
    let v = x.expand(&[2, -1, 4, -1]).unwrap();
    assert_eq!(v.shape(), &[2, 3, 4, 7]);
    assert_eq!(x.expand_as(&v).unwrap().shape(), &[2, 3, 4, 7]);
}

#[test]
fn sum_to_shape_reverses_broadcasting() {
    let v = ivalues(24, 31);
    let x = t(&v, &[2, 3, 4]);
    for target in [&[1, 3, 1][..], &[3, 4], &[4], &[2, 1, 4], &[], &[1, 1, 1]] {
        let s = x.sum_to_shape(target).unwrap();
        assert_eq!(s.dtype(), DType::Int64);
        assert_eq!(s.shape(), target);
        // Naive: add each element into the target cell it broadcast from.
        let mut want = vec![0i64; numel(target)];
        for (k, idx) in indices(&[2, 3, 4]).iter().enumerate() {
            let skip = 3 - target.len();
            let off = target.iter().enumerate().fold(0i64, |o, (d, &n)| {
                o * n + if n == 1 { 0 } else { idx[skip + d] }
            });
            want[off as usize] += i64::from(v[k]);
        }
        assert_eq!(s.to_vec::<i64>().unwrap(), want, "{target:?}");
    }
    let f = x
        .to_dtype(DType::Float32)
        .unwrap()
        .sum_to_shape(&[3, 1])
        .unwrap();
    assert_eq!(f.dtype(), DType::Float32);
    assert_eq!(
        t(&[true, true, false], &[3])
            .sum_to_shape(&[1])
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [2]
    );
    assert_err(
        x.sum_to_shape(&[5]).unwrap_err(),
        ErrorCode::ShapeMismatch,
        "size {[5]} is not expandable to size {[2, 3, 4]}.",
    );
}

#[test]
fn size_zero_dimensions() {
    let e = Tensor::zeros(DType::Float32, &[0]).unwrap();
    let one = t(&[1.0f32], &[1]);
    let r = e.add(&one).unwrap();
    assert_eq!(
        (r.shape(), r.numel(), r.to_vec::<f32>().unwrap()),
        (&[0][..], 0, vec![])
    );
    assert_eq!(
        t(&[1.0f32; 2], &[2, 1])
            .add(Tensor::zeros(DType::Float32, &[2, 0]).unwrap())
            .unwrap()
            .shape(),
        &[2, 0]
    );
    assert_err(
        e.add(t(&[1.0f32, 2.0], &[2])).unwrap_err(),
        ErrorCode::NotBroadcastable,
        "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 0",
    );
}

#[test]
fn op_and_dtype_names() {
    assert_eq!(BinaryOp::DivFloor.name(), "div_floor");
    assert_eq!(BinaryOp::Add.name(), "add");
    for (k, op) in BinaryOp::ALL.iter().enumerate() {
        assert_eq!(op.raw() as usize, k);
        assert_ne!(op.name(), "unknown");
    }
    let names: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
    assert_eq!(
        names,
        ["Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"]
    );
    let sizes: Vec<usize> = DType::ALL.iter().map(|d| d.size()).collect();
    assert_eq!(sizes, [1, 1, 1, 2, 4, 8, 2, 2, 4, 8]);
    assert_eq!(
        ErrorCode::NotBroadcastable.name(),
        "BC_ERR_NOT_BROADCASTABLE"
    );
    assert_eq!(ErrorCode::from_raw(99), Some(ErrorCode::Unknown(99)));
    assert_eq!(ErrorCode::Unknown(99).name(), "BC_ERR_UNKNOWN");
}

#[test]
fn errors_are_std_errors() {
    fn run() -> Result<(), Box<dyn std::error::Error>> {
        let a = Tensor::zeros(DType::Float32, &[2])?;
        a.add(&Tensor::zeros(DType::Float32, &[3])?)?;
        Ok(())
    }
    let e = run().unwrap_err();
    assert_eq!(
        e.to_string(),
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"
    );
    let be = e.downcast::<bcast::Error>().unwrap();
    assert_eq!(be.code, ErrorCode::NotBroadcastable);
    assert_eq!(be.code.to_string(), "BC_ERR_NOT_BROADCASTABLE");
}

type Alloc = fn(&TensorRef, &TensorRef) -> bcast::Result<Tensor>;
type Out = fn(&TensorRef, &TensorRef, &mut TensorRef) -> bcast::Result<()>;
type InPlace = fn(&mut TensorRef, &TensorRef) -> bcast::Result<()>;

macro_rules! forms {
    ($($op:ident $name:ident $out:ident $inplace:ident;)*) => {
        vec![$((
            BinaryOp::$op,
            (|a: &TensorRef, b: &TensorRef| a.$name(b)) as Alloc,
            (|a: &TensorRef, b: &TensorRef, o: &mut TensorRef| a.$out(b, o)) as Out,
            (|a: &mut TensorRef, b: &TensorRef| a.$inplace(b)) as InPlace,
        )),*]
    };
}

/// Bits of a result, as f64 values, so that results of different ops compare.
fn bits(t: &TensorRef) -> Vec<u64> {
    t.to_dtype(DType::Float64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect()
}

#[test]
fn every_named_method_is_its_op_in_all_three_forms() {
    let all = forms! {
        Add add add_out add_; Sub sub sub_out sub_; Mul mul mul_out mul_; Div div div_out div_;
        DivTrunc div_trunc div_trunc_out div_trunc_; DivFloor div_floor div_floor_out div_floor_;
        Remainder remainder remainder_out remainder_; Fmod fmod fmod_out fmod_; Pow pow pow_out pow_;
        Maximum maximum maximum_out maximum_; Minimum minimum minimum_out minimum_;
        Fmax fmax fmax_out fmax_; Fmin fmin fmin_out fmin_; Atan2 atan2 atan2_out atan2_;
        Hypot hypot hypot_out hypot_; Copysign copysign copysign_out copysign_;
        Eq eq eq_out eq_; Ne ne ne_out ne_; Lt lt lt_out lt_; Le le le_out le_; Gt gt gt_out gt_; Ge ge ge_out ge_;
        LogicalAnd logical_and logical_and_out logical_and_; LogicalOr logical_or logical_or_out logical_or_;
        LogicalXor logical_xor logical_xor_out logical_xor_;
        BitwiseAnd bitwise_and bitwise_and_out bitwise_and_; BitwiseOr bitwise_or bitwise_or_out bitwise_or_;
        BitwiseXor bitwise_xor bitwise_xor_out bitwise_xor_;
        ShiftLeft shift_left shift_left_out shift_left_; ShiftRight shift_right shift_right_out shift_right_;
    };
    assert_eq!(all.len(), BinaryOp::ALL.len());
    // Data on which no two ops of a group agree (checked below): negatives,
    // zeros, equal pairs, a NaN.
    let fa = t(&[-7.5f64, 3.0, 0.0, 2.0, f64::NAN, -1.0], &[6]);
    let fb = t(&[2.0f64, 3.0, 0.5, -4.0, 1.0, 0.0], &[6]);
    let ia = t(&[-7i64, 12, 5, 1], &[4]);
    let ib = t(&[2i64, 3, 5, 0], &[4]);
    let mut seen: Vec<(bool, Vec<u64>, BinaryOp)> = Vec::new();
    for (op, alloc, out, inplace) in all {
        let int = matches!(
            op,
            BinaryOp::BitwiseAnd
                | BinaryOp::BitwiseOr
                | BinaryOp::BitwiseXor
                | BinaryOp::ShiftLeft
                | BinaryOp::ShiftRight
        );
        let (a, b) = if int { (&ia, &ib) } else { (&fa, &fb) };
        let want = a.binary(op, b).unwrap();
        let r = alloc(a, b).unwrap();
        assert_eq!((r.dtype(), bits(&r)), (want.dtype(), bits(&want)), "{op:?}");
        let mut o = Tensor::zeros(want.dtype(), want.shape()).unwrap();
        out(a, b, &mut o).unwrap();
        assert_eq!(bits(&o), bits(&want), "{op:?} out=");
        let mut s = a.clone();
        inplace(&mut s, b).unwrap();
        assert_eq!(
            bits(&s),
            bits(&want.to_dtype(a.dtype()).unwrap()),
            "{op:?} in place"
        );
        for (i2, b2, op2) in &seen {
            assert!(
                !(*i2 == int && *b2 == bits(&want)),
                "{op:?} and {op2:?} agree on the test data"
            );
        }
        seen.push((int, bits(&want), op));
    }
}
