//! Host-defined ops on bcast's broadcasting, dtype conversion and threads
//! (`bcast::iter`), checked against naive loops written here.
//!
//! - `quantize`: per-channel int8 quantization, `clamp(round(x / scale) +
//!   zero_point, -128, 127)`, over a transposed float32 activation, a float16
//!   scale per channel and an int32 zero point per channel, into `Int8`. It
//!   refuses a scale that is not positive (a loop error, not a panic).
//! - `softplus_threshold`: PyTorch's `softplus(x, beta, threshold)` with a
//!   threshold per row: `x` where `beta * x > threshold`, else
//!   `log1p(exp(beta * x)) / beta`, each operand in a dtype of its own
//!   through `Iter` and its blocks (a repeated `beta` read once per row).
//!
//! Run: `cargo run --example host_op` (bindings/rust/test.sh runs it).

use bcast::iter::{self, Iter, RunError};
use bcast::{DType, Tensor, TensorRef, TensorView, F16};

/// Per-channel int8 quantization of `x` ([rows, channels]) with `scale` and
/// `zero_point` of shape [channels] (or anything that broadcasts).
fn quantize(
    x: &TensorRef,
    scale: &TensorRef,
    zero_point: &TensorRef,
) -> Result<Tensor, RunError<String>> {
    iter::zip3_map(
        x,
        scale,
        zero_point,
        DType::Int8,
        |x: &[f32], s: &[f32], z: &[f32], q: &mut [f32]| {
            for j in 0..q.len() {
                if s[j].is_nan() || s[j] <= 0.0 {
                    return Err(format!("quantize: scale {} is not positive", s[j]));
                }
                q[j] = ((x[j] / s[j]).round() + z[j]).clamp(-128.0, 127.0);
            }
            Ok(())
        },
    )
}

/// `softplus(x, beta, threshold)` with `x` float32, `beta` a float64
/// scalar, `threshold` float32 (broadcast), computed in float64 into a
/// float32 output.
fn softplus_threshold(
    x: &TensorRef,
    beta: &TensorRef,
    threshold: &TensorRef,
) -> bcast::Result<Tensor> {
    let mut it = Iter::builder(&[x, beta, threshold])
        .loop_dtypes(&[
            DType::Float64,
            DType::Float32,
            DType::Float64,
            DType::Float32,
        ])
        .out_dtype(DType::Float32)
        .build()?;
    it.run(|mut blk| {
        for i in 0..blk.rows() {
            let x = blk.input::<f32>(0, i);
            let beta = blk.input::<f64>(1, i);
            let threshold = blk.input::<f32>(2, i);
            let out = blk.output::<f64>(i);
            for (j, o) in out.iter_mut().enumerate() {
                let bx = beta.get(j) * f64::from(x.get(j));
                *o = if bx > f64::from(threshold.get(j)) {
                    f64::from(x.get(j))
                } else {
                    bx.exp().ln_1p() / beta.get(j)
                };
            }
        }
    })?;
    it.into_output()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (rows, channels) = (513usize, 24usize);
    // The activation, transposed: [channels, rows] memory seen as [rows, channels].
    let mem: Vec<f32> = (0..rows * channels)
        .map(|k| ((k * 7919) % 2001) as f32 / 100.0 - 10.0)
        .collect();
    let x =
        TensorView::from_slice_strided(&mem, &[rows as i64, channels as i64], &[1, rows as i64])?;
    let xs = |r: usize, c: usize| mem[c * rows + r];
    let scales: Vec<f32> = (0..channels).map(|c| 0.02 + 0.01 * c as f32).collect();
    let scale = Tensor::from_slice(
        &scales.iter().map(|&s| F16::from_f32(s)).collect::<Vec<_>>(),
        &[channels],
    )?;
    let zps: Vec<i32> = (0..channels).map(|c| c as i32 % 5 - 2).collect();
    let zero_point = Tensor::from_slice(&zps, &[channels])?;

    let q = quantize(&x, &scale, &zero_point)?;
    assert_eq!(q.shape(), &[rows as i64, channels as i64]);
    let got = q.to_vec::<i8>()?;
    let mut clamped = 0;
    for r in 0..rows {
        for c in 0..channels {
            // The scale as the loop sees it: float16, widened to float32.
            let s = F16::from_f32(scales[c]).to_f32();
            let want = ((xs(r, c) / s).round() + zps[c] as f32).clamp(-128.0, 127.0) as i8;
            assert_eq!(got[r * channels + c], want, "quantize at ({r}, {c})");
            clamped += usize::from(want == 127 || want == -128);
        }
    }
    println!("quantize: {rows}x{channels} int8, {clamped} clamped, matches the naive loop");

    let bad = Tensor::from_slice(&[F16::from_f32(0.5), F16::from_f32(0.0)], &[2])?;
    let xs2 = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    let zero = Tensor::scalar(0i32)?;
    match quantize(&xs2, &bad, &zero) {
        Err(RunError::Loop(msg)) => println!("quantize refused: {msg}"),
        other => panic!("expected the loop's error, got {other:?}"),
    }

    // softplus with a per-row threshold (a column: repeated along rows) and
    // a 0-dim beta.
    let threshold_v: Vec<f32> = (0..rows).map(|r| (r % 4) as f32 * 2.0).collect();
    let threshold = Tensor::from_slice(&threshold_v, &[rows, 1])?;
    let beta = Tensor::scalar(1.5f64)?;
    let y = softplus_threshold(&x, &beta, &threshold)?;
    let got = y.to_vec::<f32>()?;
    let mut worst = 0f64;
    for r in 0..rows {
        for c in 0..channels {
            let v = f64::from(xs(r, c));
            let want = if 1.5 * v > f64::from(threshold_v[r]) {
                v
            } else {
                (1.5 * v).exp().ln_1p() / 1.5
            };
            let err = (f64::from(got[r * channels + c]) - want).abs() / want.abs().max(1e-30);
            worst = worst.max(err);
        }
    }
    assert!(worst <= f64::from(f32::EPSILON), "relative error {worst}");
    println!("softplus_threshold: {rows}x{channels} float32, worst relative error {worst:.2e}");
    Ok(())
}
