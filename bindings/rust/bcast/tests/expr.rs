//! Fused expressions (`bcast::expr`, `bc_expr`): built and parsed chains on
//! broadcast inputs of mixed dtypes, compared bit for bit (and error for
//! error) with the same ops run one by one through the crate's eager
//! methods; out=, contexts, threads, and the builders' own errors.

mod common;

use bcast::expr::{Expr, Node};
use bcast::{BinaryOp, Context, DType, ErrorCode, Policy, Tensor, TensorRef, UnaryOp};
use common::*;

/// Every element's bits, in the tensor's own dtype (NaN payloads and the
/// sign of zero included).
fn bits(t: &TensorRef) -> Vec<u64> {
    match t.dtype() {
        DType::Bool => t
            .to_vec::<bool>()
            .unwrap()
            .into_iter()
            .map(u64::from)
            .collect(),
        DType::UInt8 => t
            .to_vec::<u8>()
            .unwrap()
            .into_iter()
            .map(u64::from)
            .collect(),
        DType::Int8 => t
            .to_vec::<i8>()
            .unwrap()
            .into_iter()
            .map(|v| v as u64)
            .collect(),
        DType::Int16 => t
            .to_vec::<i16>()
            .unwrap()
            .into_iter()
            .map(|v| v as u64)
            .collect(),
        DType::Int32 => t
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(|v| v as u64)
            .collect(),
        DType::Int64 => t
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(|v| v as u64)
            .collect(),
        DType::Float16 => t
            .to_vec::<bcast::F16>()
            .unwrap()
            .into_iter()
            .map(|v| v.to_bits().into())
            .collect(),
        DType::BFloat16 => t
            .to_vec::<bcast::BF16>()
            .unwrap()
            .into_iter()
            .map(|v| v.to_bits().into())
            .collect(),
        DType::Float32 => t
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(|v| v.to_bits().into())
            .collect(),
        DType::Float64 => t
            .to_vec::<f64>()
            .unwrap()
            .into_iter()
            .map(f64::to_bits)
            .collect(),
    }
}

#[track_caller]
fn assert_same(fused: &TensorRef, eager: &TensorRef) {
    assert_eq!(fused.dtype(), eager.dtype());
    assert_eq!(fused.shape(), eager.shape());
    assert!(
        bits(fused) == bits(eager),
        "values differ from the eager chain"
    );
}

/// A tensor of `shape` and `dtype` with values in [-4, 4) and, for floating
/// dtypes, NaN, infinities and signed zeros first.
fn input(dtype: DType, shape: &[i64], seed: u64) -> Tensor {
    let mut v: Vec<f64> = values(numel(shape), seed)
        .into_iter()
        .map(f64::from)
        .collect();
    let specials = [
        f64::NAN,
        -0.0,
        0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1.0,
        0.5,
    ];
    let floating = matches!(
        dtype,
        DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64
    );
    if floating {
        for (d, s) in v.iter_mut().zip(specials) {
            *d = s;
        }
    }
    Tensor::from_slice(&v, shape)
        .unwrap()
        .to_dtype(dtype)
        .unwrap()
}

/// `where(x > 0, x, 0.1 * x)` by the builders.
fn leaky() -> Expr {
    let mut e = Expr::new(1).unwrap();
    let x = e.input(0).unwrap();
    let zero = e.number(0).unwrap();
    let pos = e.call("gt", &[x, zero]).unwrap();
    let slope = e.number(0.1).unwrap();
    let neg = e.call("mul", &[slope, x]).unwrap();
    e.call("where", &[pos, x, neg]).unwrap();
    e
}

fn leaky_eager(x: &TensorRef) -> bcast::Result<Tensor> {
    let cond = x.gt(0)?;
    let neg = x.rbinary(BinaryOp::Mul, 0.1)?;
    x.where_cond(&cond, &neg)
}

/// `clamp((a - b) * c, 0, 1)` by the builders.
fn clamp_chain() -> Expr {
    let mut e = Expr::new(3).unwrap();
    let (a, b, c) = (
        e.input(0).unwrap(),
        e.input(1).unwrap(),
        e.input(2).unwrap(),
    );
    let d = e.binary(BinaryOp::Sub, a, b).unwrap();
    let m = e.call("mul", &[d, c]).unwrap();
    let lo = e.number(0).unwrap();
    let hi = e.number(1).unwrap();
    e.call("clamp", &[m, lo, hi]).unwrap();
    e
}

fn clamp_eager(a: &TensorRef, b: &TensorRef, c: &TensorRef) -> bcast::Result<Tensor> {
    a.sub(b)?.mul(c)?.clamp(0, 1)
}

/// Shapes and dtypes of (a, b, c): broadcast against each other, with
/// 20000 elements or more where the evaluation runs in several tiles.
fn clamp_cases() -> Vec<[(DType, Vec<i64>); 3]> {
    use DType::*;
    vec![
        [
            (Float32, vec![20, 1, 1000]),
            (Float16, vec![1, 3, 1]),
            (Int32, vec![1000]),
        ],
        [
            (Int16, vec![4, 1]),
            (UInt8, vec![1, 3]),
            (BFloat16, vec![3]),
        ],
        [
            (Float64, vec![2, 3, 4]),
            (Float32, vec![]),
            (Int64, vec![1, 4]),
        ],
        [(Int32, vec![7, 1, 3]), (Int8, vec![5, 1]), (Bool, vec![3])],
        [
            (BFloat16, vec![300, 70]),
            (Float16, vec![70]),
            (Float16, vec![300, 1]),
        ],
    ]
}

#[test]
fn leaky_relu_matches_the_eager_chain_bit_for_bit() {
    let e = leaky();
    assert_eq!(e.num_nodes(), 6);
    use DType::*;
    for dtype in [
        Float16, BFloat16, Float32, Float64, Int32, Int64, UInt8, Bool,
    ] {
        for shape in [&[5, 1, 7][..], &[130, 257], &[]] {
            let x = input(dtype, shape, 7);
            match (e.eval(&[&x]), leaky_eager(&x)) {
                (Ok(fused), Ok(eager)) => assert_same(&fused, &eager),
                (Err(fused), Err(eager)) => assert_eq!(fused, eager),
                (fused, eager) => panic!("{dtype:?}: fused {fused:?}, eager {eager:?}"),
            }
        }
        // A broadcast (stride-0) view as the input.
        let x = input(dtype, &[3, 1], 11);
        let wide = x.expand(&[3, 40]).unwrap();
        assert_same(&e.eval(&[&wide]).unwrap(), &leaky_eager(&wide).unwrap());
    }
}

#[test]
fn clamp_chain_matches_the_eager_chain_bit_for_bit() {
    let e = clamp_chain();
    assert_eq!(e.num_nodes(), 8);
    for (k, [(da, sa), (db, sb), (dc, sc)]) in clamp_cases().into_iter().enumerate() {
        let a = input(da, &sa, 1 + k as u64);
        let b = input(db, &sb, 100 + k as u64);
        let c = input(dc, &sc, 200 + k as u64);
        match (e.eval(&[&a, &b, &c]), clamp_eager(&a, &b, &c)) {
            (Ok(fused), Ok(eager)) => assert_same(&fused, &eager),
            (Err(fused), Err(eager)) => assert_eq!(fused, eager),
            (fused, eager) => panic!("case {k}: fused {fused:?}, eager {eager:?}"),
        }
    }
}

#[test]
fn eval_out_writes_what_eval_returns() {
    let e = clamp_chain();
    let a = input(DType::Float32, &[20, 1, 1000], 1);
    let b = input(DType::Float16, &[1, 3, 1], 2);
    let c = input(DType::Int32, &[1000], 3);
    let expected = clamp_eager(&a, &b, &c).unwrap();

    let mut out = Tensor::zeros(DType::Float32, &[20, 3, 1000]).unwrap();
    e.eval_out(&[&a, &b, &c], &mut out).unwrap();
    assert_same(&out, &expected);

    // Another dtype where the last op's out= form takes it (sub's does).
    let mut sub = Expr::new(2).unwrap();
    let (x, y) = (sub.input(0).unwrap(), sub.input(1).unwrap());
    sub.call("sub", &[x, y]).unwrap();
    let mut out64 = Tensor::zeros(DType::Float64, &[20, 3, 1000]).unwrap();
    let mut eager64 = Tensor::zeros(DType::Float64, &[20, 3, 1000]).unwrap();
    sub.eval_out(&[&a, &b], &mut out64).unwrap();
    a.sub_out(&b, &mut eager64).unwrap();
    assert_same(&out64, &eager64);

    // Where clamp's out= form refuses another dtype, so does the expression.
    let err = e.eval_out(&[&a, &b, &c], &mut out64).unwrap_err();
    let eager_err = expected.clamp_out(0, 1, &mut eager64).unwrap_err();
    assert_eq!(err.code, ErrorCode::Dtype);
    assert_eq!(err, eager_err);

    // A wrong shape: the eager out= error, and `out` unchanged.
    let mut small = Tensor::full(7.0f32, &[3, 1000]).unwrap();
    let err = e.eval_out(&[&a, &b, &c], &mut small).unwrap_err();
    let mut eager_small = Tensor::full(7.0f32, &[3, 1000]).unwrap();
    let eager_err = a
        .sub(&b)
        .unwrap()
        .mul(&c)
        .unwrap()
        .clamp_out(0, 1, &mut eager_small)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::ShapeMismatch);
    assert_eq!(err, eager_err);
    assert!(small.to_vec::<f32>().unwrap().iter().all(|&v| v == 7.0));

    // A float result into an integer out: refused as the eager out= form.
    let mut ints = Tensor::zeros(DType::Int32, &[20, 3, 1000]).unwrap();
    let err = e.eval_out(&[&a, &b, &c], &mut ints).unwrap_err();
    let eager_err = expected
        .clamp_out(
            0,
            1,
            &mut Tensor::zeros(DType::Int32, &[20, 3, 1000]).unwrap(),
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Dtype);
    assert_eq!(err.message, eager_err.message);
}

#[test]
fn a_dtype_error_is_the_eager_ops_error() {
    // (a + b) & b on float32: bitwise_and refuses floating dtypes.
    let mut e = Expr::new(2).unwrap();
    let (a, b) = (e.input(0).unwrap(), e.input(1).unwrap());
    let s = e.binary(BinaryOp::Add, a, b).unwrap();
    e.call("bitwise_and", &[s, b]).unwrap();
    let ta = input(DType::Float32, &[2, 3], 1);
    let tb = input(DType::Float32, &[3], 2);
    let fused = e.eval(&[&ta, &tb]).unwrap_err();
    let eager = ta.add(&tb).unwrap().bitwise_and(&tb).unwrap_err();
    assert_eq!(fused.code, ErrorCode::Dtype);
    assert!(!fused.message.is_empty());
    assert_eq!(fused, eager);

    // The same on a context: recorded there, with the same text.
    let ctx = Context::new().unwrap();
    let on_ctx = ctx.expr_eval(&e, &[&ta, &tb]).unwrap_err();
    assert_eq!(on_ctx, eager);
    assert_eq!(ctx.last_error(), Some(eager.clone()));

    // A broadcast error, from the first op that fails.
    let tc = input(DType::Float32, &[4], 3);
    let fused = e.eval(&[&ta, &tc]).unwrap_err();
    let eager = ta.add(&tc).unwrap_err();
    assert_eq!(fused.code, ErrorCode::NotBroadcastable);
    assert_eq!(fused, eager);
}

#[test]
fn wrong_input_count_and_builder_errors() {
    let e = clamp_chain();
    let a = input(DType::Float32, &[3], 1);
    let a: &TensorRef = &a;
    for inputs in [&[a][..], &[a, a, a, a]] {
        let err = e.eval(inputs).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        assert!(!err.message.is_empty());
    }
    let mut out = Tensor::zeros(DType::Float32, &[3]).unwrap();
    let err = e.eval_out(&[a], &mut out).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);

    // An empty expression has no value.
    let empty = Expr::new(1).unwrap();
    assert_eq!(empty.num_nodes(), 0);
    assert_eq!(
        empty.eval(&[a]).unwrap_err().code,
        ErrorCode::InvalidArgument
    );

    let mut e = Expr::new(2).unwrap();
    let x = e.input(0).unwrap();
    let invalid = |r: bcast::Result<Node>| {
        let err = r.unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument, "{}", err.message);
        assert!(!err.message.is_empty());
    };
    invalid(e.input(2));
    invalid(e.call("no_such_op", &[x]));
    invalid(e.call("add", &[x]));
    invalid(e.call("neg", &[x, x]));
    invalid(e.call("add\0", &[x, x]));
    // A node number the expression does not have yet, from another one.
    let mut other = Expr::new(1).unwrap();
    for _ in 0..5 {
        other.input(0).unwrap();
    }
    let far = other.input(0).unwrap();
    invalid(e.call("neg", &[far]));
    assert!(Expr::new(bcast::expr::MAX_NODES + 1).is_err());
    // Failed builders add no node.
    assert_eq!(e.num_nodes(), 1);
    let y = e.unary(UnaryOp::Neg, x).unwrap();
    assert_eq!(y.index(), 1);
}

#[test]
fn context_forms_run_on_the_context() {
    let mut e = Expr::new(2).unwrap();
    let (a, b) = (e.input(0).unwrap(), e.input(1).unwrap());
    e.call("add", &[a, b]).unwrap();
    let ta = input(DType::Float32, &[3, 1], 1);
    let tb = input(DType::Float32, &[3], 2);

    let mut ctx = Context::new().unwrap();
    ctx.set_broadcast_policy(Policy::Error);
    let refused = ctx.expr_eval(&e, &[&ta, &tb]).unwrap_err();
    assert_eq!(refused, ctx.add(&ta, &tb).unwrap_err());
    assert_eq!(refused.code, ErrorCode::Policy);
    let mut out = Tensor::zeros(DType::Float32, &[3, 3]).unwrap();
    assert_eq!(
        ctx.expr_eval_out(&e, &[&ta, &tb], &mut out)
            .unwrap_err()
            .code,
        ErrorCode::Policy
    );
    // The default context allows it; so does a scope's eval outside ctx.
    assert_same(&e.eval(&[&ta, &tb]).unwrap(), &ta.add(&tb).unwrap());
    let in_scope = ctx.scope(|| e.eval(&[&ta, &tb])).unwrap_err();
    assert_eq!(in_scope.code, ErrorCode::Policy);

    ctx.set_broadcast_policy(Policy::Allow);
    ctx.expr_eval_out(&e, &[&ta, &tb], &mut out).unwrap();
    assert_same(&out, &ta.add(&tb).unwrap());
}

#[test]
fn one_expression_evaluates_on_many_threads() {
    let e = clamp_chain();
    let a = input(DType::Float32, &[20, 1, 1000], 1);
    let b = input(DType::Float16, &[1, 3, 1], 2);
    let c = input(DType::Int32, &[1000], 3);
    let expected = clamp_eager(&a, &b, &c).unwrap();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| e.eval(&[&a, &b, &c]).unwrap()))
            .collect();
        for h in handles {
            assert_same(&h.join().unwrap(), &expected);
        }
    });
    // An Expr moves between threads too.
    let moved = std::thread::spawn(move || e.num_nodes()).join().unwrap();
    assert_eq!(moved, 8);
}

// Parsing needs bc_expr_parse, which lands separately; until then these
// fail with "bc_expr_parse: not built yet".
#[test]
fn parsed_expressions_match_the_builders() {
    let p = Expr::parse("where(x > 0, x, 0.1 * x)", &["x"]).unwrap();
    let x = input(DType::BFloat16, &[130, 257], 5);
    assert_same(&p.eval(&[&x]).unwrap(), &leaky_eager(&x).unwrap());

    let p = Expr::parse("clamp((a - b) * c, 0, 1)", &["a", "b", "c"]).unwrap();
    for (k, [(da, sa), (db, sb), (dc, sc)]) in clamp_cases().into_iter().enumerate() {
        let a = input(da, &sa, 1 + k as u64);
        let b = input(db, &sb, 100 + k as u64);
        let c = input(dc, &sc, 200 + k as u64);
        match (p.eval(&[&a, &b, &c]), clamp_eager(&a, &b, &c)) {
            (Ok(fused), Ok(eager)) => assert_same(&fused, &eager),
            (Err(fused), Err(eager)) => assert_eq!(fused, eager),
            (fused, eager) => panic!("case {k}: fused {fused:?}, eager {eager:?}"),
        }
    }
}

#[test]
fn parse_errors() {
    let err = Expr::parse("where(x > 0, x", &["x"]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err.message.contains("column"), "{}", err.message);
    let err = Expr::parse("x + y", &["x"]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    // The binding's own checks, before the library sees the text.
    let err = Expr::parse("x\0", &["x"]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    let err = Expr::parse("x", &["x\0"]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
}
