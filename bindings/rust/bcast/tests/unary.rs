//! Unary ops: a handful against plain Rust (1 ulp for the transcendentals,
//! exact for the rest), parameters, errors, the out= and in-place forms,
//! `to_dtype`, the `-` and `!` operators and the context forms.

use bcast::{Context, DType, Element, ErrorCode, Tensor, TensorRef, UnaryOp};

fn t<T: Element>(v: &[T], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

/// Distance in units in the last place between two finite f64 (or both NaN: 0).
fn ulps64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a == b {
        return 0;
    }
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 {
            i64::MIN - i
        } else {
            i
        }
    };
    key(a).abs_diff(key(b))
}

fn ulps32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a == b {
        return 0;
    }
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i32::MIN - i
        } else {
            i
        }
    };
    u64::from(key(a).abs_diff(key(b)))
}

/// Inputs spread over [-8, 8] plus some edge values.
fn inputs() -> Vec<f64> {
    let mut v: Vec<f64> = (0..97)
        .map(|i| -8.0 + f64::from(i) * (16.0 / 96.0))
        .collect();
    v.extend([0.0, -0.0, 1e-300, -1e-300, 0.5, 1.0, 2.0, 700.0, -745.0]);
    v
}

type Reference = fn(f64) -> f64;

fn transcendentals() -> [(UnaryOp, Reference); 10] {
    [
        (UnaryOp::Exp, f64::exp),
        (UnaryOp::Expm1, f64::exp_m1),
        (UnaryOp::Log, f64::ln),
        (UnaryOp::Log2, f64::log2),
        (UnaryOp::Log1p, f64::ln_1p),
        (UnaryOp::Sin, f64::sin),
        (UnaryOp::Cos, f64::cos),
        (UnaryOp::Tanh, f64::tanh),
        (UnaryOp::Atan, f64::atan),
        (UnaryOp::Sinh, f64::sinh),
    ]
}

#[test]
fn transcendentals_f64_within_one_ulp() {
    let xs = inputs();
    let x = t(&xs, &[xs.len() as i64]);
    for (op, f) in transcendentals() {
        let got = x.unary(op).unwrap();
        assert_eq!(got.dtype(), DType::Float64, "{op:?}");
        for (g, &xi) in got.to_vec::<f64>().unwrap().iter().zip(&xs) {
            let want = f(xi);
            assert!(
                ulps64(*g, want) <= 1,
                "{}({xi:e}): got {g:e}, Rust {want:e}",
                op.name()
            );
        }
    }
}

#[test]
fn transcendentals_f32_within_one_ulp() {
    let xs: Vec<f32> = inputs()
        .iter()
        .map(|&v| v as f32)
        .filter(|v| v.abs() < 80.0)
        .collect();
    let x = t(&xs, &[xs.len() as i64]);
    for (op, f) in transcendentals() {
        let got = x.unary(op).unwrap();
        assert_eq!(got.dtype(), DType::Float32, "{op:?}");
        for (g, &xi) in got.to_vec::<f32>().unwrap().iter().zip(&xs) {
            // f64 result rounded once: within half an ulp of the f32 answer.
            let want = f(f64::from(xi)) as f32;
            assert!(
                ulps32(*g, want) <= 1,
                "{}({xi:e}) f32: got {g:e}, Rust {want:e}",
                op.name()
            );
        }
    }
}

#[test]
fn named_methods_match_unary() {
    let x = t(&[0.25f64, 1.5, 3.0], &[3]);
    assert_eq!(
        x.exp().unwrap().to_vec::<f64>().unwrap(),
        x.unary(UnaryOp::Exp).unwrap().to_vec::<f64>().unwrap()
    );
    let want: Vec<f64> = [0.25f64, 1.5, 3.0].iter().map(|v| v.sqrt()).collect();
    assert_eq!(x.sqrt().unwrap().to_vec::<f64>().unwrap(), want);
    // Integers give Float32 for the float ops.
    let i = t(&[1i32, 4, 9], &[3]);
    let r = i.sqrt().unwrap();
    assert_eq!(r.dtype(), DType::Float32);
    assert_eq!(r.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0]);
}

#[test]
fn exact_ops() {
    let xs = [-2.5f32, -0.0, 0.0, 1.5, 2.5, -7.75, f32::INFINITY, f32::NAN];
    let x = t(&xs, &[8]);
    let check = |got: Tensor, f: fn(f32) -> f32| {
        assert_eq!(got.dtype(), DType::Float32);
        for (g, &xi) in got.to_vec::<f32>().unwrap().iter().zip(&xs) {
            let w = f(xi);
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "{xi}: got {g}, want {w}"
            );
        }
    };
    check(x.neg().unwrap(), |v| -v);
    check(x.abs().unwrap(), f32::abs);
    check(x.floor().unwrap(), f32::floor);
    check(x.ceil().unwrap(), f32::ceil);
    check(x.trunc().unwrap(), f32::trunc);
    check(x.round().unwrap(), f32::round_ties_even);
    // max(x, 0) as PyTorch's clamp_min: -0.0 is not below 0 and stays.
    check(x.relu().unwrap(), |v| if v < 0.0 { 0.0 } else { v });

    let nan = x.isnan().unwrap();
    assert_eq!(nan.dtype(), DType::Bool);
    let want: Vec<bool> = xs.iter().map(|v| v.is_nan()).collect();
    assert_eq!(nan.to_vec::<bool>().unwrap(), want);
    let want: Vec<bool> = xs.iter().map(|v| v.is_sign_negative()).collect();
    assert_eq!(x.signbit().unwrap().to_vec::<bool>().unwrap(), want);

    // Integers keep their dtype; the most negative stays as it is under abs.
    let i = t(&[i32::MIN, -3, 0, 5], &[4]);
    assert_eq!(
        i.abs().unwrap().to_vec::<i32>().unwrap(),
        [i32::MIN, 3, 0, 5]
    );
    assert_eq!(
        i.neg().unwrap().to_vec::<i32>().unwrap(),
        [i32::MIN, 3, 0, -5]
    );
    assert_eq!(
        i.floor().unwrap().to_vec::<i32>().unwrap(),
        [i32::MIN, -3, 0, 5]
    );
    assert_eq!(
        i.isnan().unwrap().to_vec::<bool>().unwrap(),
        [false, false, false, false]
    );
}

#[test]
fn parameters() {
    let xs = [-3.0f32, -0.5, 0.0, 2.0];
    let x = t(&xs, &[4]);
    // Defaults: leaky_relu's negative_slope is 0.01.
    let slope = 0.01f64 as f32;
    let want: Vec<f32> = xs
        .iter()
        .map(|&v| if v > 0.0 { v } else { v * slope })
        .collect();
    assert_eq!(x.leaky_relu().unwrap().to_vec::<f32>().unwrap(), want);
    // negative_slope = 0.2, used as a float32 like PyTorch's.
    let slope = 0.2f64 as f32;
    let want: Vec<f32> = xs
        .iter()
        .map(|&v| if v > 0.0 { v } else { v * slope })
        .collect();
    let got = x.unary_with(UnaryOp::LeakyRelu, &[Some(0.2)]).unwrap();
    assert_eq!(got.to_vec::<f32>().unwrap(), want);
    // None (or nothing) is the default.
    assert_eq!(
        x.unary_with(UnaryOp::LeakyRelu, &[None])
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        x.leaky_relu().unwrap().to_vec::<f32>().unwrap()
    );

    // softplus(x, beta=2, threshold=5) in float64:
    // log1p(exp(beta*x)) / beta, or x where beta*x > threshold.
    let ys = [-4.0f64, -1.0, 0.0, 0.5, 2.0, 2.5, 3.0, 10.0];
    let y = t(&ys, &[8]);
    let got = y
        .unary_with(UnaryOp::Softplus, &[Some(2.0), Some(5.0)])
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    for (g, &v) in got.iter().zip(&ys) {
        if 2.0 * v > 5.0 {
            assert_eq!(*g, v, "softplus({v}) above the threshold is x");
        } else {
            let want = (2.0 * v).exp().ln_1p() / 2.0;
            assert!(ulps64(*g, want) <= 4, "softplus({v}): {g:e} vs {want:e}");
        }
    }
    // beta alone: the default threshold 20.
    let got = y.unary_with(UnaryOp::Softplus, &[Some(2.0)]).unwrap();
    let last = got.to_vec::<f64>().unwrap()[7];
    let want = 20.0f64.exp().ln_1p() / 2.0; // 2 * 10 is not > 20
    assert!(ulps64(last, want) <= 4, "{last:e} vs {want:e}");

    // nan_to_num(posinf=100): nan keeps its default 0, neginf the lowest float.
    let z = t(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.5], &[4]);
    let got = z
        .unary_with(UnaryOp::NanToNum, &[None, Some(100.0)])
        .unwrap();
    assert_eq!(got.to_vec::<f64>().unwrap(), [0.0, 100.0, f64::MIN, 1.5]);

    // Too many parameters, and an op that takes none.
    let e = x
        .unary_with(UnaryOp::LeakyRelu, &[Some(0.1), Some(0.2)])
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(e.message, "leaky_relu() takes 1 parameter, got 2");
    let e = x.unary_with(UnaryOp::Exp, &[Some(1.0)]).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    // gelu's approximate must be BC_GELU_NONE or BC_GELU_TANH.
    let e = x.unary_with(UnaryOp::Gelu, &[Some(7.0)]).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert!(x
        .unary_with(UnaryOp::Gelu, &[Some(f64::from(bcast::sys::BC_GELU_TANH))])
        .is_ok());
}

#[test]
fn param_names_follow_the_table() {
    assert_eq!(UnaryOp::ALL.len(), 55);
    for (k, op) in UnaryOp::ALL.iter().enumerate() {
        assert_eq!(op.raw() as usize, k);
        assert_ne!(op.name(), "unknown");
        assert!(op.param_names().len() <= 3);
    }
    assert_eq!(UnaryOp::LeakyRelu.name(), "leaky_relu");
    assert_eq!(UnaryOp::LeakyRelu.param_names(), ["negative_slope"]);
    assert_eq!(UnaryOp::Hardtanh.param_names(), ["min_val", "max_val"]);
    assert_eq!(UnaryOp::NanToNum.param_names(), ["nan", "posinf", "neginf"]);
}

const NEG_BOOL: &str = "Negation, the `-` operator, on a bool tensor is not supported. \
                        If you are trying to invert a mask, use the `~` or `logical_not()` \
                        operator instead.";

#[test]
fn errors() {
    let b = t(&[true, false], &[2]);
    let e = b.neg().unwrap_err();
    assert_eq!(e.code, ErrorCode::Dtype);
    assert_eq!(e.message, NEG_BOOL);
    // In-place: an integer tensor cannot hold exp's result.
    let mut i = t(&[1i64, 2], &[2]);
    let e = i.exp_().unwrap_err();
    assert_eq!(e.code, ErrorCode::Dtype);
    assert_eq!(i.to_vec::<i64>().unwrap(), [1, 2], "unchanged on failure");
    // bitwise_not of a float, as PyTorch's "not implemented for 'Float'".
    let f = t(&[1.0f32], &[1]);
    let e = f.bitwise_not().unwrap_err();
    assert_eq!(e.code, ErrorCode::Dtype);
    assert!(e.message.contains("'Float'"), "{}", e.message);
    // out= of the wrong shape.
    let mut out = Tensor::zeros(DType::Float32, &[3]).unwrap();
    assert_eq!(
        f.exp_out(&mut out).unwrap_err().code,
        ErrorCode::ShapeMismatch
    );
}

#[test]
fn in_place() {
    let xs = [0.5f64, -1.25, 3.0];
    let mut x = t(&xs, &[3]);
    x.exp_().unwrap();
    let want: Vec<f64> = xs.iter().map(|v| v.exp()).collect();
    for (g, w) in x.to_vec::<f64>().unwrap().iter().zip(&want) {
        assert!(ulps64(*g, *w) <= 1);
    }
    let mut y = t(&[-3i32, 4], &[2]);
    y.neg_().unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [3, -4]);
    y.unary_(UnaryOp::Abs).unwrap();
    assert_eq!(y.to_vec::<i32>().unwrap(), [3, 4]);
    let mut z = t(&[-3.0f32, 4.0], &[2]);
    z.unary_with_(UnaryOp::LeakyRelu, &[Some(0.5)]).unwrap();
    assert_eq!(z.to_vec::<f32>().unwrap(), [-1.5, 4.0]);
    z.unary_with_(UnaryOp::Hardtanh, &[Some(-1.0), Some(2.0)])
        .unwrap();
    assert_eq!(z.to_vec::<f32>().unwrap(), [-1.0, 2.0]);
}

#[test]
fn out_forms() {
    // An int32 input's sqrt written into a float64 out (the float ops write
    // into any dtype the result casts to).
    let i = t(&[1i32, 4, 2], &[3]);
    let mut out = Tensor::zeros(DType::Float64, &[3]).unwrap();
    i.sqrt_out(&mut out).unwrap();
    let got = out.to_vec::<f64>().unwrap();
    assert_eq!(got[..2], [1.0, 2.0]);
    assert_eq!(got[2], f64::from(2.0f32.sqrt()), "computed in float32");
    // neg keeps the dtype: an out of another dtype is refused.
    let mut out = Tensor::zeros(DType::Int64, &[3]).unwrap();
    let e = i.neg_out(&mut out).unwrap_err();
    assert_eq!(e.code, ErrorCode::Dtype);
    let mut out = Tensor::zeros(DType::Int32, &[3]).unwrap();
    i.neg_out(&mut out).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), [-1, -4, -2]);
    // With parameters.
    let f = t(&[-2.0f32, 2.0], &[2]);
    let mut out = Tensor::zeros(DType::Float32, &[2]).unwrap();
    f.unary_with_out(UnaryOp::Elu, &[Some(0.0)], &mut out)
        .unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [0.0, 2.0]);
    // 0-dim.
    let s = Tensor::scalar(-1.5f32).unwrap();
    let mut out = Tensor::scalar(0.0f32).unwrap();
    s.abs_out(&mut out).unwrap();
    assert_eq!(out.item::<f32>().unwrap(), 1.5);
    // isnan into a Bool out.
    let mut out = Tensor::zeros(DType::Bool, &[2]).unwrap();
    t(&[f32::NAN, 0.0], &[2]).isnan_out(&mut out).unwrap();
    assert_eq!(out.to_vec::<bool>().unwrap(), [true, false]);
}

#[test]
fn to_dtype() {
    let f = t(&[1.5f32, -2.5, 300.0], &[3]);
    assert_eq!(
        f.to_dtype(DType::Int32).unwrap().to_vec::<i32>().unwrap(),
        [1, -2, 300]
    );
    let d = f.to_dtype(DType::Float64).unwrap();
    assert_eq!(d.dtype(), DType::Float64);
    assert_eq!(d.to_vec::<f64>().unwrap(), [1.5, -2.5, 300.0]);
    assert_eq!(
        f.to_dtype(DType::Bool).unwrap().to_vec::<bool>().unwrap(),
        [true, true, true]
    );
    // The same dtype is a copy, never an alias.
    let mut same = f.to_dtype(DType::Float32).unwrap();
    same.fill(0.0f32).unwrap();
    assert_eq!(f.to_vec::<f32>().unwrap(), [1.5, -2.5, 300.0]);
    // A strided view converts to a contiguous tensor.
    let data = [1i64, 2, 3, 4, 5, 6];
    let v = bcast::TensorView::from_slice_strided(&data, &[2, 2], &[1, 3]).unwrap();
    let c = v.to_dtype(DType::Float32).unwrap();
    assert!(c.is_contiguous());
    assert_eq!(c.to_vec::<f32>().unwrap(), [1.0, 4.0, 2.0, 5.0]);
    let ctx = Context::new().unwrap();
    assert_eq!(ctx.to_dtype(&f, DType::Int8).unwrap().dtype(), DType::Int8);
}

#[test]
fn operators() {
    let x = t(&[1.5f32, -2.0], &[2]);
    assert_eq!((-&x).to_vec::<f32>().unwrap(), [-1.5, 2.0]);
    let r: &TensorRef = &x;
    assert_eq!((-r).to_vec::<f32>().unwrap(), [-1.5, 2.0]);
    let v = x.view().unwrap();
    assert_eq!((-&v).to_vec::<f32>().unwrap(), [-1.5, 2.0]);
    assert_eq!((-v).to_vec::<f32>().unwrap(), [-1.5, 2.0]);
    assert_eq!((-x).to_vec::<f32>().unwrap(), [-1.5, 2.0]);

    let i = t(&[0i32, 5, -1], &[3]);
    assert_eq!((!&i).to_vec::<i32>().unwrap(), [-1, -6, 0]);
    let b = t(&[true, false], &[2]);
    assert_eq!((!&b).to_vec::<bool>().unwrap(), [false, true]);
    assert_eq!((!b).to_vec::<bool>().unwrap(), [false, true]);
    let u = t(&[0u8, 0xF0], &[2]);
    assert_eq!((!u).to_vec::<u8>().unwrap(), [0xFF, 0x0F]);
    // Combined with the binary operators.
    let y = t(&[1.0f64, 2.0], &[2]);
    assert_eq!((-&y + 3.0).to_vec::<f64>().unwrap(), [2.0, 1.0]);
}

#[test]
#[should_panic(expected = "Negation, the `-` operator, on a bool tensor is not supported")]
fn neg_operator_on_bool_panics() {
    let b = t(&[true], &[1]);
    let _ = -&b;
}

#[test]
#[should_panic(expected = "not implemented for 'Float'")]
fn not_operator_on_float_panics() {
    let f = t(&[1.0f32], &[1]);
    let _ = !f;
}

#[test]
fn context_forms() {
    let mut ctx = Context::new().unwrap();
    ctx.set_num_threads(Some(1)).unwrap();
    let x = t(&[0.0f64, 1.0], &[2]);
    assert_eq!(ctx.exp(&x).unwrap().to_vec::<f64>().unwrap()[0], 1.0);
    assert_eq!(
        ctx.unary(UnaryOp::Neg, &x)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [-0.0, -1.0]
    );
    let mut out = Tensor::zeros(DType::Float64, &[2]).unwrap();
    ctx.abs_out(&x, &mut out).unwrap();
    assert_eq!(out.to_vec::<f64>().unwrap(), [0.0, 1.0]);
    let mut y = t(&[-2.0f64, 2.0], &[2]);
    ctx.relu_(&mut y).unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), [0.0, 2.0]);
    let r = ctx
        .unary_with(UnaryOp::Hardtanh, &x, &[Some(0.5), Some(0.75)])
        .unwrap();
    assert_eq!(r.to_vec::<f64>().unwrap(), [0.5, 0.75]);
    // The error is the context's, and reaches the caller.
    let b = t(&[true], &[1]);
    let e = ctx.neg(&b).unwrap_err();
    assert_eq!(e.code, ErrorCode::Dtype);
    assert_eq!(e.message, NEG_BOOL);
    // Moved to another thread.
    let got = std::thread::spawn(move || ctx.sqrt(&x).unwrap().to_vec::<f64>().unwrap())
        .join()
        .unwrap();
    assert_eq!(got, [0.0, 1.0]);
}
