//! Fused expressions (`bcast::expr`): a leaky ReLU, `where(x > 0, x, 0.1 *
//! x)`, and a normalisation step, `clamp((a - b) * c, 0, 1)`, over broadcast
//! inputs of mixed dtypes, each run in one pass and checked bit for bit
//! against the same ops run one by one.
//!
//! Run: `cargo run --example expr` (bindings/rust/test.sh runs it).

use bcast::expr::Expr;
use bcast::{BinaryOp, DType, Tensor, TensorRef};

fn leaky_relu() -> bcast::Result<Expr> {
    let mut e = Expr::new(1)?;
    let x = e.input(0)?;
    let zero = e.number(0)?;
    let pos = e.call("gt", &[x, zero])?;
    let slope = e.number(0.1)?;
    let neg = e.call("mul", &[slope, x])?;
    e.call("where", &[pos, x, neg])?;
    Ok(e)
}

/// `clamp((a - b) * c, 0, 1)`: `a` the data, `b` a per-column offset, `c` a
/// per-row scale.
fn normalise() -> bcast::Result<Expr> {
    let mut e = Expr::new(3)?;
    let (a, b, c) = (e.input(0)?, e.input(1)?, e.input(2)?);
    let d = e.call("sub", &[a, b])?;
    let m = e.call("mul", &[d, c])?;
    let (lo, hi) = (e.number(0)?, e.number(1)?);
    e.call("clamp", &[m, lo, hi])?;
    Ok(e)
}

fn same_bits(x: &TensorRef, y: &TensorRef) -> bcast::Result<bool> {
    Ok(x.dtype() == y.dtype()
        && x.shape() == y.shape()
        && x.to_dtype(DType::Float64)?
            .to_vec::<f64>()?
            .iter()
            .zip(y.to_dtype(DType::Float64)?.to_vec::<f64>()?)
            .all(|(p, q)| p.to_bits() == q.to_bits()))
}

fn main() -> bcast::Result<()> {
    let data: Vec<f32> = (0..4096)
        .map(|i| ((i * 37) % 101) as f32 / 25.0 - 2.0)
        .collect();
    let x = Tensor::from_slice(&data, &[64, 64])?.to_dtype(DType::BFloat16)?;
    let leaky = leaky_relu()?;
    let fused = leaky.eval(&[&x])?;
    // `0.1 * x`, the number first, as the expression has it: on bfloat16 and
    // float16, mul uses a number second unrounded (as PyTorch does) and a
    // number first not, so `x * 0.1` may differ in the last bit.
    let eager = x.where_cond(x.gt(0)?, x.rbinary(BinaryOp::Mul, 0.1)?)?;
    assert!(
        same_bits(&fused, &eager)?,
        "leaky relu differs from the eager chain"
    );
    println!(
        "leaky_relu: {} nodes, {:?} {:?}, first values {:?}",
        leaky.num_nodes(),
        fused.dtype(),
        fused.shape(),
        &fused.to_dtype(DType::Float32)?.to_vec::<f32>()?[..4]
    );

    let a = Tensor::from_slice(&data, &[64, 64])?;
    let b = Tensor::from_slice(&data[..64], &[64])?.to_dtype(DType::Float16)?;
    let c = Tensor::from_slice(&(0..64).map(|i| i % 3).collect::<Vec<i32>>(), &[64, 1])?;
    let norm = normalise()?;
    let mut out = Tensor::zeros(DType::Float32, &[64, 64])?;
    norm.eval_out(&[&a, &b, &c], &mut out)?;
    let eager = a.sub(&b)?.mul(&c)?.clamp(0, 1)?;
    assert!(
        same_bits(&out, &eager)?,
        "normalise differs from the eager chain"
    );
    println!(
        "normalise: {} nodes, {:?} {:?}, all in [0, 1]: {}",
        norm.num_nodes(),
        out.dtype(),
        out.shape(),
        out.to_vec::<f32>()?.iter().all(|v| (0.0..=1.0).contains(v))
    );
    Ok(())
}
