//! Reductions against naive loops in plain Rust: every op over every subset
//! of dims of a 3-D tensor, with and without keepdim; integer, bool and
//! float32 dtypes; NaN and ties; empty and 0-dim inputs; strided and
//! expanded inputs; dtype= and correction; max_dim/min_dim; the out= and
//! context forms; PyTorch's refusals.

use bcast::{Context, DType, Element, ErrorCode, ReduceOp, ReduceParams, Tensor, TensorView};

fn t<T: Element>(v: &[T], shape: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

/// The result's shape and, per output element in row-major order, the input
/// elements it reduces (in row-major order), for `dims` already in
/// `0..shape.len()` (empty: every dim).
fn groups<T: Copy>(
    data: &[T],
    shape: &[i64],
    dims: &[usize],
    keepdim: bool,
) -> (Vec<i64>, Vec<Vec<T>>) {
    let all = dims.is_empty();
    let reduced = |d: usize| all || dims.contains(&d);
    let kept: Vec<i64> = (0..shape.len())
        .map(|d| if reduced(d) { 1 } else { shape[d] })
        .collect();
    let n_out: i64 = kept.iter().product();
    let mut out = vec![Vec::new(); n_out as usize];
    let n: i64 = shape.iter().product();
    for flat in 0..n {
        // Index of `flat` in `shape`, then its output position.
        let mut rest = flat;
        let mut idx = vec![0i64; shape.len()];
        for d in (0..shape.len()).rev() {
            idx[d] = rest % shape[d];
            rest /= shape[d];
        }
        let mut pos = 0i64;
        for d in 0..shape.len() {
            pos = pos * kept[d] + if reduced(d) { 0 } else { idx[d] };
        }
        out[pos as usize].push(data[flat as usize]);
    }
    let result_shape = if keepdim {
        kept
    } else {
        (0..shape.len())
            .filter(|&d| !reduced(d))
            .map(|d| shape[d])
            .collect()
    };
    (result_shape, out)
}

fn naive_var(v: &[f64], correction: f64) -> f64 {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let ss: f64 = v.iter().map(|x| (x - mean) * (x - mean)).sum();
    ss / (n - correction).max(0.0)
}

/// The float64 reference of an op over one group.
fn naive_f64(op: ReduceOp, v: &[f64]) -> f64 {
    let nonnan: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    let first_index = |better: fn(f64, f64) -> bool| {
        let mut best = 0;
        for (i, &x) in v.iter().enumerate() {
            if v[best].is_nan() {
                break;
            }
            if x.is_nan() || better(x, v[best]) {
                best = i;
            }
        }
        best as f64
    };
    match op {
        ReduceOp::Sum => v.iter().sum(),
        ReduceOp::Nansum => nonnan.iter().sum(),
        ReduceOp::Prod => v.iter().product(),
        ReduceOp::Mean => v.iter().sum::<f64>() / v.len() as f64,
        ReduceOp::Nanmean => nonnan.iter().sum::<f64>() / nonnan.len() as f64,
        ReduceOp::Amax => v.iter().copied().fold(f64::NEG_INFINITY, |a, x| {
            if a.is_nan() || x.is_nan() {
                f64::NAN
            } else {
                a.max(x)
            }
        }),
        ReduceOp::Amin => v.iter().copied().fold(f64::INFINITY, |a, x| {
            if a.is_nan() || x.is_nan() {
                f64::NAN
            } else {
                a.min(x)
            }
        }),
        ReduceOp::Argmax => first_index(|x, best| x > best),
        ReduceOp::Argmin => first_index(|x, best| x < best),
        ReduceOp::Any => f64::from(u8::from(v.iter().any(|&x| x != 0.0))),
        ReduceOp::All => f64::from(u8::from(v.iter().all(|&x| x != 0.0))),
        ReduceOp::CountNonzero => v.iter().filter(|&&x| x != 0.0).count() as f64,
        ReduceOp::Var => naive_var(v, 1.0),
        ReduceOp::Std => naive_var(v, 1.0).sqrt(),
        ReduceOp::Logsumexp => {
            let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
        }
    }
}

/// The result read as f64, whatever its dtype.
fn values(x: &Tensor) -> Vec<f64> {
    match x.dtype() {
        DType::Float64 => x.to_vec::<f64>().unwrap(),
        DType::Float32 => x
            .to_vec::<f32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::Int64 => x
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(|v| v as f64)
            .collect(),
        DType::Int32 => x
            .to_vec::<i32>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::UInt8 => x
            .to_vec::<u8>()
            .unwrap()
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::Bool => x
            .to_vec::<bool>()
            .unwrap()
            .into_iter()
            .map(|b| f64::from(u8::from(b)))
            .collect(),
        d => panic!("unexpected result dtype {d:?}"),
    }
}

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got.is_nan() && want.is_nan())
        || got == want
        || (got - want).abs() <= rel * want.abs().max(1e-300)
}

/// A 2x3x4 float64 tensor of distinct values, some negative, none zero.
fn data_234() -> Vec<f64> {
    (0..24)
        .map(|i| ((i * 7) % 24) as f64 * 0.375 - 4.1)
        .collect()
}

/// Every subset of 0..n (the empty one meaning every dim).
fn subsets(n: usize) -> Vec<Vec<usize>> {
    (0..1usize << n)
        .map(|m| (0..n).filter(|d| m >> d & 1 == 1).collect())
        .collect()
}

#[test]
fn every_op_over_every_subset_of_dims_float64() {
    let data = data_234();
    let shape = [2i64, 3, 4];
    let x = t(&data, &shape);
    for op in ReduceOp::ALL {
        for dims in subsets(3) {
            if matches!(op, ReduceOp::Argmax | ReduceOp::Argmin) && dims.len() > 1 {
                continue;
            }
            for keepdim in [false, true] {
                let (want_shape, gs) = groups(&data, &shape, &dims, keepdim);
                let d: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
                let got = x.reduce(op, &d, keepdim).unwrap();
                // argmax/argmin over every dim index the flattened tensor.
                let want: Vec<f64> =
                    if dims.is_empty() && matches!(op, ReduceOp::Argmax | ReduceOp::Argmin) {
                        vec![naive_f64(op, &data)]
                    } else {
                        gs.iter().map(|g| naive_f64(op, g)).collect()
                    };
                let want_shape = if dims.is_empty() && !keepdim {
                    vec![]
                } else {
                    want_shape
                };
                let ctx = format!("{op:?} dims {d:?} keepdim {keepdim}");
                if !(dims.is_empty()
                    && keepdim
                    && matches!(op, ReduceOp::Argmax | ReduceOp::Argmin))
                {
                    assert_eq!(got.shape(), want_shape.as_slice(), "{ctx}");
                }
                let want_dtype = match op {
                    ReduceOp::Argmax | ReduceOp::Argmin | ReduceOp::CountNonzero => DType::Int64,
                    ReduceOp::Any | ReduceOp::All => DType::Bool,
                    _ => DType::Float64,
                };
                assert_eq!(got.dtype(), want_dtype, "{ctx}");
                let g = values(&got);
                assert_eq!(g.len(), want.len(), "{ctx}");
                for (k, (&a, &b)) in g.iter().zip(&want).enumerate() {
                    assert!(close(a, b, 1e-13), "{ctx} [{k}]: got {a}, want {b}");
                }
            }
        }
    }
}

#[test]
fn negative_dims_count_from_the_end() {
    let data = data_234();
    let x = t(&data, &[2, 3, 4]);
    let a = x.sum(&[-1, -3], false).unwrap();
    let b = x.sum(&[2, 0], false).unwrap();
    assert_eq!(a.shape(), &[3]);
    assert_eq!(a.to_vec::<f64>().unwrap(), b.to_vec::<f64>().unwrap());
    let (_, gs) = groups(&data, &[2, 3, 4], &[0, 2], false);
    for (got, g) in a.to_vec::<f64>().unwrap().iter().zip(&gs) {
        assert!(close(*got, g.iter().sum(), 1e-13));
    }
}

#[test]
fn named_methods_all_forms_and_reduce_agree_with_the_reference() {
    let data = data_234();
    let x = t(&data, &[2, 3, 4]);
    let (_, gs) = groups(&data, &[2, 3, 4], &[1], true);
    let want_sum: Vec<f64> = gs.iter().map(|g| g.iter().sum()).collect();
    let s = x.sum(&[1], true).unwrap();
    assert_eq!(s.shape(), &[2, 1, 4]);
    for (a, b) in s.to_vec::<f64>().unwrap().iter().zip(&want_sum) {
        assert!(close(*a, *b, 1e-13));
    }
    let all = x.mean_all().unwrap();
    assert_eq!(all.ndim(), 0);
    assert!(close(
        all.item::<f64>().unwrap(),
        data.iter().sum::<f64>() / 24.0,
        1e-13
    ));
    let dims = vec![0i64, 2];
    assert_eq!(x.amax(&dims, false).unwrap().shape(), &[3]);
    assert_eq!(
        x.amax_all().unwrap().item::<f64>().unwrap(),
        data.iter().copied().fold(f64::MIN, f64::max)
    );
    assert_eq!(
        x.argmin_all().unwrap().item::<i64>().unwrap(),
        naive_f64(ReduceOp::Argmin, &data) as i64
    );
    assert_eq!(x.count_nonzero_all().unwrap().item::<i64>().unwrap(), 24);
    assert!(x.all_all().unwrap().item::<bool>().unwrap());
    assert!(x
        .any(&[0usize, 1], false)
        .unwrap()
        .to_vec::<bool>()
        .unwrap()
        .iter()
        .all(|&b| b));
    let v = x.var(&[2], false).unwrap().to_vec::<f64>().unwrap();
    let sd = x.std(&[2], false).unwrap().to_vec::<f64>().unwrap();
    for (k, g) in groups(&data, &[2, 3, 4], &[2], false).1.iter().enumerate() {
        assert!(close(v[k], naive_var(g, 1.0), 1e-13));
        assert!(close(sd[k], naive_var(g, 1.0).sqrt(), 1e-13));
    }
}

#[test]
fn integer_and_bool_dtypes_follow_pytorch_and_are_exact() {
    let big = [i32::MAX, i32::MAX, 7, -3, 1 << 20, 5];
    let x = t(&big, &[2, 3]);
    let s = x.sum(&[1], false).unwrap();
    assert_eq!(s.dtype(), DType::Int64);
    let want: Vec<i64> = big
        .chunks(3)
        .map(|r| r.iter().map(|&v| i64::from(v)).sum())
        .collect();
    assert_eq!(s.to_vec::<i64>().unwrap(), want);
    let p = x.prod(&[0], false).unwrap();
    assert_eq!(p.dtype(), DType::Int64);
    let want: Vec<i64> = (0..3)
        .map(|j| i64::from(big[j]).wrapping_mul(i64::from(big[j + 3])))
        .collect();
    assert_eq!(p.to_vec::<i64>().unwrap(), want);
    let m = x.amax(&[0], false).unwrap();
    assert_eq!(
        (m.dtype(), m.to_vec::<i32>().unwrap()),
        (DType::Int32, vec![i32::MAX, i32::MAX, 7])
    );
    assert_eq!(
        x.argmin(&[1], false).unwrap().to_vec::<i64>().unwrap(),
        [2, 0]
    );

    let b = t(&[true, false, true, true, false, false], &[2, 3]);
    let bs = b.sum(&[1], false).unwrap();
    assert_eq!(
        (bs.dtype(), bs.to_vec::<i64>().unwrap()),
        (DType::Int64, vec![2, 1])
    );
    assert_eq!(
        b.any(&[1], false).unwrap().to_vec::<bool>().unwrap(),
        [true, true]
    );
    assert_eq!(
        b.all(&[0], false).unwrap().to_vec::<bool>().unwrap(),
        [true, false, false]
    );
    assert_eq!(
        b.count_nonzero(&[0], false)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [2, 0, 1]
    );

    let u = t(&[0u8, 3, 0, 0], &[2, 2]);
    let a = u.any(&[1], false).unwrap();
    assert_eq!(
        (a.dtype(), a.to_vec::<u8>().unwrap()),
        (DType::UInt8, vec![1, 0])
    );
    let a = u.all(&[0], false).unwrap();
    assert_eq!(
        (a.dtype(), a.to_vec::<u8>().unwrap()),
        (DType::UInt8, vec![0, 0])
    );
    let l = u.logsumexp(&[1], false).unwrap();
    assert_eq!(l.dtype(), DType::Float32);
    let want = [(1.0f64 + 3f64.exp()).ln() as f32, 2f64.ln() as f32];
    for (g, w) in l.to_vec::<f32>().unwrap().iter().zip(want) {
        assert!((g - w).abs() <= 2.0 * f32::EPSILON * w.abs(), "{g} {w}");
    }
}

#[test]
fn float32_sums_are_the_float64_sum_rounded_once() {
    // Multiples of 1/4 below 2^12: every partial sum is exact in float64, so
    // the float32 result must be the exact sum rounded to float32.
    let n = 10_000usize;
    let data: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 16384) as f32 * 0.25 - 1000.0)
        .collect();
    let x = t(&data, &[100, 100]);
    let (_, rows) = groups(&data, &[100, 100], &[1], false);
    let (_, cols) = groups(&data, &[100, 100], &[0], false);
    let exact = |g: &Vec<f32>| g.iter().map(|&v| f64::from(v)).sum::<f64>();
    let s1 = x.sum(&[1], false).unwrap();
    assert_eq!(s1.dtype(), DType::Float32);
    let want1: Vec<f32> = rows.iter().map(|g| exact(g) as f32).collect();
    assert_eq!(s1.to_vec::<f32>().unwrap(), want1);
    let want0: Vec<f32> = cols.iter().map(|g| exact(g) as f32).collect();
    assert_eq!(x.sum(&[0], false).unwrap().to_vec::<f32>().unwrap(), want0);
    let total: f64 = data.iter().map(|&v| f64::from(v)).sum();
    assert_eq!(x.sum_all().unwrap().item::<f32>().unwrap(), total as f32);
    assert_eq!(
        x.mean_all().unwrap().item::<f32>().unwrap(),
        (total / n as f64) as f32
    );
}

#[test]
fn nan_propagates_and_nan_ops_skip_it() {
    let nan = f64::NAN;
    let data = [1.0, nan, 3.0, nan, -2.0, 5.0, 0.0, 4.0];
    let x = t(&data, &[2, 4]);
    let amax = x.amax(&[1], false).unwrap().to_vec::<f64>().unwrap();
    assert!(amax[0].is_nan() && amax[1] == 5.0, "{amax:?}");
    let amin = x.amin(&[1], false).unwrap().to_vec::<f64>().unwrap();
    assert!(amin[0].is_nan() && amin[1] == -2.0, "{amin:?}");
    // The index of the first NaN.
    assert_eq!(
        x.argmax(&[1], false).unwrap().to_vec::<i64>().unwrap(),
        [1, 1]
    );
    assert_eq!(
        x.argmin(&[1], false).unwrap().to_vec::<i64>().unwrap(),
        [1, 0]
    );
    assert_eq!(x.argmax_all().unwrap().item::<i64>().unwrap(), 1);
    assert!(x.sum(&[1], false).unwrap().to_vec::<f64>().unwrap()[0].is_nan());
    assert_eq!(
        x.nansum(&[1], false).unwrap().to_vec::<f64>().unwrap(),
        [4.0, 7.0]
    );
    assert_eq!(
        x.nanmean(&[1], false).unwrap().to_vec::<f64>().unwrap(),
        [2.0, 1.75]
    );
    // NaN is nonzero.
    assert_eq!(
        x.count_nonzero(&[1], false)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [4, 3]
    );
    let all_nan = t(&[nan, nan], &[2]);
    assert!(all_nan
        .nanmean_all()
        .unwrap()
        .item::<f64>()
        .unwrap()
        .is_nan());
    assert_eq!(all_nan.nansum_all().unwrap().item::<f64>().unwrap(), 0.0);
}

#[test]
fn ties_give_the_first_index() {
    let x = t(&[2i64, 7, 7, 1, 1, 7, 2, 1], &[2, 4]);
    assert_eq!(
        x.argmax(&[1], false).unwrap().to_vec::<i64>().unwrap(),
        [1, 1]
    );
    assert_eq!(
        x.argmin(&[1], false).unwrap().to_vec::<i64>().unwrap(),
        [3, 0]
    );
    assert_eq!(x.argmax_all().unwrap().item::<i64>().unwrap(), 1);
    let (v, i) = x.max_dim(1, false).unwrap();
    assert_eq!(
        (v.to_vec::<i64>().unwrap(), i.to_vec::<i64>().unwrap()),
        (vec![7, 7], vec![1, 1])
    );
    let (v, i) = x.min_dim(0, false).unwrap();
    assert_eq!(v.to_vec::<i64>().unwrap(), [1, 7, 2, 1]);
    assert_eq!(i.to_vec::<i64>().unwrap(), [1, 0, 1, 0]);
}

#[test]
fn max_dim_and_min_dim_against_the_reference() {
    let data = data_234();
    let shape = [2i64, 3, 4];
    let x = t(&data, &shape);
    for dim in 0..3usize {
        for keepdim in [false, true] {
            let (want_shape, gs) = groups(&data, &shape, &[dim], keepdim);
            for (is_max, op, arg) in [
                (true, ReduceOp::Amax, ReduceOp::Argmax),
                (false, ReduceOp::Amin, ReduceOp::Argmin),
            ] {
                let (v, i) = if is_max {
                    x.max_dim(dim as i64 - 3, keepdim).unwrap()
                } else {
                    x.min_dim(dim as i64, keepdim).unwrap()
                };
                assert_eq!(v.shape(), want_shape.as_slice());
                assert_eq!(i.shape(), want_shape.as_slice());
                assert_eq!((v.dtype(), i.dtype()), (DType::Float64, DType::Int64));
                let wv: Vec<f64> = gs.iter().map(|g| naive_f64(op, g)).collect();
                let wi: Vec<i64> = gs.iter().map(|g| naive_f64(arg, g) as i64).collect();
                assert_eq!(v.to_vec::<f64>().unwrap(), wv, "dim {dim} max {is_max}");
                assert_eq!(i.to_vec::<i64>().unwrap(), wi, "dim {dim} max {is_max}");

                let mut ov = Tensor::zeros(DType::Float64, &want_shape).unwrap();
                let mut oi = Tensor::zeros(DType::Int64, &want_shape).unwrap();
                if is_max {
                    x.max_dim_out(dim as i64, keepdim, &mut ov, &mut oi)
                        .unwrap();
                } else {
                    x.min_dim_out(dim as i64, keepdim, &mut ov, &mut oi)
                        .unwrap();
                }
                assert_eq!(ov.to_vec::<f64>().unwrap(), wv);
                assert_eq!(oi.to_vec::<i64>().unwrap(), wi);
            }
        }
    }
    // bool is taken.
    let b = t(&[false, true, true, false], &[2, 2]);
    let (v, i) = b.max_dim(1, false).unwrap();
    assert_eq!(
        (v.to_vec::<bool>().unwrap(), i.to_vec::<i64>().unwrap()),
        (vec![true, true], vec![1, 0])
    );
    // An indices out= of another dtype is refused.
    let mut ov = Tensor::zeros(DType::Bool, &[2]).unwrap();
    let mut oi = Tensor::zeros(DType::Int32, &[2]).unwrap();
    let err = b.max_dim_out(1, false, &mut ov, &mut oi).unwrap_err();
    assert_eq!(err.code, ErrorCode::Dtype, "{err}");
}

#[test]
fn empty_and_zero_dim_inputs() {
    let e = Tensor::zeros(DType::Float32, &[2, 0, 3]).unwrap();
    let s = e.sum(&[1], false).unwrap();
    assert_eq!(
        (s.shape(), s.to_vec::<f32>().unwrap()),
        (&[2i64, 3][..], vec![0.0; 6])
    );
    assert_eq!(
        e.prod(&[1], true).unwrap().to_vec::<f32>().unwrap(),
        vec![1.0; 6]
    );
    assert_eq!(e.sum_all().unwrap().item::<f32>().unwrap(), 0.0);
    assert_eq!(
        e.count_nonzero(&[1], false)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![0; 6]
    );
    assert_eq!(
        e.any(&[1], false).unwrap().to_vec::<bool>().unwrap(),
        vec![false; 6]
    );
    assert_eq!(
        e.all(&[1], false).unwrap().to_vec::<bool>().unwrap(),
        vec![true; 6]
    );
    // Over a non-empty dim of an empty tensor: an empty result.
    assert_eq!(e.amax(&[2], false).unwrap().shape(), &[2, 0]);
    let err = e.amax(&[1], false).unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (
            ErrorCode::InvalidArgument,
            "amax(): Expected reduction dim 1 to have non-zero size."
        )
    );
    assert_eq!(
        e.argmax(&[1], false).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        e.max_dim(1, false).unwrap_err().code,
        ErrorCode::InvalidArgument
    );

    let z = Tensor::scalar(2.5f64).unwrap();
    for dims in [&[0i64][..], &[-1i64][..], &[][..]] {
        let s = z.sum(dims, false).unwrap();
        assert_eq!((s.ndim(), s.item::<f64>().unwrap()), (0, 2.5));
    }
    assert_eq!(z.sum(&[0], true).unwrap().ndim(), 0);
    assert_eq!(z.argmax(&[0], false).unwrap().item::<i64>().unwrap(), 0);
    let (v, i) = z.max_dim(0, false).unwrap();
    assert_eq!(
        (v.item::<f64>().unwrap(), i.item::<i64>().unwrap()),
        (2.5, 0)
    );
    assert_eq!(
        z.sum(&[1], false).unwrap_err().code,
        ErrorCode::InvalidArgument
    );
}

#[test]
fn strided_and_expanded_inputs_reduce_their_logical_values() {
    // A transposed view: logical (4, 3) over a row-major (3, 4) buffer.
    let buf: Vec<f64> = (0..12).map(|i| (i * 5 % 12) as f64 - 3.5).collect();
    let xt = TensorView::from_slice_strided(&buf, &[4, 3], &[1, 4]).unwrap();
    let logical: Vec<f64> = (0..4)
        .flat_map(|i| (0..3).map(move |j| (i, j)))
        .map(|(i, j)| buf[j * 4 + i])
        .collect();
    for op in [
        ReduceOp::Sum,
        ReduceOp::Amax,
        ReduceOp::Argmin,
        ReduceOp::Var,
        ReduceOp::Logsumexp,
    ] {
        for dim in 0..2usize {
            let (_, gs) = groups(&logical, &[4, 3], &[dim], false);
            let got = values(&xt.reduce(op, &[dim as i64], false).unwrap());
            for (k, (g, w)) in got
                .iter()
                .zip(gs.iter().map(|g| naive_f64(op, g)))
                .enumerate()
            {
                assert!(close(*g, w, 1e-13), "{op:?} dim {dim} [{k}]: {g} vs {w}");
            }
        }
    }
    // A row repeated 5 times by expand (stride 0).
    let row = t(&[1.5f64, -2.0, 4.0], &[1, 3]);
    let ex = row.expand(&[5, 3]).unwrap();
    assert_eq!(
        ex.sum(&[0], false).unwrap().to_vec::<f64>().unwrap(),
        [7.5, -10.0, 20.0]
    );
    assert_eq!(
        ex.mean(&[0], false).unwrap().to_vec::<f64>().unwrap(),
        [1.5, -2.0, 4.0]
    );
    assert_eq!(
        ex.var(&[0], false).unwrap().to_vec::<f64>().unwrap(),
        [0.0; 3]
    );
    assert_eq!(
        ex.argmax(&[1], false).unwrap().to_vec::<i64>().unwrap(),
        [2; 5]
    );
}

#[test]
fn reduce_with_gives_dtype_and_correction() {
    let i = t(&[1i32, 2, 4, 8], &[2, 2]);
    // mean of an integer tensor is refused without dtype=.
    assert_eq!(i.mean(&[1], false).unwrap_err().code, ErrorCode::Dtype);
    let p = ReduceParams::new().with_dtype(DType::Float64);
    let m = i.reduce_with(ReduceOp::Mean, &[1], false, &p).unwrap();
    assert_eq!(
        (m.dtype(), m.to_vec::<f64>().unwrap()),
        (DType::Float64, vec![1.5, 6.0])
    );
    let s = i
        .reduce_with(
            ReduceOp::Sum,
            &[0],
            false,
            &ReduceParams::new().with_dtype(DType::Float32),
        )
        .unwrap();
    assert_eq!(
        (s.dtype(), s.to_vec::<f32>().unwrap()),
        (DType::Float32, vec![5.0, 10.0])
    );
    // dtype= on an op that has none.
    let err = i.reduce_with(ReduceOp::Amax, &[0], false, &p).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument, "{err}");

    let data = data_234();
    let x = t(&data, &[2, 3, 4]);
    for c in [0.0, 1.0, 2.5] {
        let p = ReduceParams::new().with_correction(c);
        let v = x.reduce_with(ReduceOp::Var, &[2], true, &p).unwrap();
        let sd = x.reduce_with(ReduceOp::Std, &[2], true, &p).unwrap();
        assert_eq!(v.shape(), &[2, 3, 1]);
        let (_, gs) = groups(&data, &[2, 3, 4], &[2], true);
        for (k, g) in gs.iter().enumerate() {
            let w = naive_var(g, c);
            assert!(
                close(v.to_vec::<f64>().unwrap()[k], w, 1e-13),
                "correction {c}"
            );
            assert!(
                close(sd.to_vec::<f64>().unwrap()[k], w.sqrt(), 1e-13),
                "correction {c}"
            );
        }
    }
    // The defaults: the same as reduce.
    let d = x
        .reduce_with(ReduceOp::Var, &[0], false, &ReduceParams::default())
        .unwrap();
    assert_eq!(
        d.to_vec::<f64>().unwrap(),
        x.var(&[0], false).unwrap().to_vec::<f64>().unwrap()
    );
    // With dtype= out's dtype must be that dtype.
    let mut out = Tensor::zeros(DType::Float32, &[2]).unwrap();
    let err = i
        .reduce_with_out(ReduceOp::Mean, &[1], false, &p, &mut out)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Dtype, "{err}");
    let mut out = Tensor::zeros(DType::Float64, &[2]).unwrap();
    i.reduce_with_out(ReduceOp::Mean, &[1], false, &p, &mut out)
        .unwrap();
    assert_eq!(out.to_vec::<f64>().unwrap(), [1.5, 6.0]);
}

#[test]
fn out_forms_write_into_an_existing_tensor() {
    let data = data_234();
    let x = t(&data, &[2, 3, 4]);
    let (_, gs) = groups(&data, &[2, 3, 4], &[0, 2], true);
    let mut out = Tensor::zeros(DType::Float64, &[1, 3, 1]).unwrap();
    x.sum_out(&[0, 2], true, &mut out).unwrap();
    for (g, w) in out.to_vec::<f64>().unwrap().iter().zip(&gs) {
        assert!(close(*g, w.iter().sum(), 1e-13));
    }
    x.reduce_out(ReduceOp::Amin, &[0, 2], true, &mut out)
        .unwrap();
    let want: Vec<f64> = gs.iter().map(|g| naive_f64(ReduceOp::Amin, g)).collect();
    assert_eq!(out.to_vec::<f64>().unwrap(), want);
    // sum computes in out's dtype: int32 into float64.
    let i = t(&[1i32, 2, 3, 4], &[2, 2]);
    let mut o = Tensor::zeros(DType::Float64, &[2]).unwrap();
    i.sum_out(&[1], false, &mut o).unwrap();
    assert_eq!(o.to_vec::<f64>().unwrap(), [3.0, 7.0]);
    // argmax needs an Int64 out.
    let mut o32 = Tensor::zeros(DType::Int32, &[2]).unwrap();
    assert_eq!(
        i.argmax_out(&[1], false, &mut o32).unwrap_err().code,
        ErrorCode::Dtype
    );
    let mut o64 = Tensor::zeros(DType::Int64, &[2]).unwrap();
    i.argmax_out(&[1], false, &mut o64).unwrap();
    assert_eq!(o64.to_vec::<i64>().unwrap(), [1, 1]);
    // A shape other than the result's is refused, never resized; out unchanged.
    let mut wrong = Tensor::full(9.0f64, &[2]).unwrap();
    let err = x.sum_out(&[0, 2], false, &mut wrong).unwrap_err();
    assert_eq!(err.code, ErrorCode::ShapeMismatch, "{err}");
    assert_eq!(wrong.to_vec::<f64>().unwrap(), [9.0; 2]);
}

#[test]
fn pytorch_refusals() {
    let x = Tensor::zeros(DType::Float32, &[2, 3]).unwrap();
    let err = x.sum(&[2], false).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert_eq!(
        err.message,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    let err = x.sum(&[0, -2], false).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert_eq!(
        err.message,
        "dim 0 appears multiple times in the list of dims"
    );
    let b = Tensor::zeros(DType::Bool, &[3]).unwrap();
    assert_eq!(b.argmax_all().unwrap_err().code, ErrorCode::Dtype);
    let i = Tensor::zeros(DType::Int64, &[3]).unwrap();
    for op in [
        ReduceOp::Mean,
        ReduceOp::Nanmean,
        ReduceOp::Var,
        ReduceOp::Std,
    ] {
        assert_eq!(
            i.reduce(op, &[0], false).unwrap_err().code,
            ErrorCode::Dtype,
            "{op:?}"
        );
    }
    // A usize dim too large for i64 never reaches the library.
    assert_eq!(
        x.sum(&[usize::MAX], false).unwrap_err().code,
        ErrorCode::Overflow
    );
}

#[test]
fn op_names_are_pytorchs() {
    // The variant's name in snake_case is PyTorch's name, which the library reports.
    for op in ReduceOp::ALL {
        let debug = format!("{op:?}");
        let mut snake = String::new();
        for (k, c) in debug.chars().enumerate() {
            if c.is_ascii_uppercase() && k > 0 {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        }
        assert_eq!(op.name(), snake);
    }
    assert_eq!(ReduceOp::ALL.len(), 15);
    assert_eq!(ReduceOp::CountNonzero.name(), "count_nonzero");
}

#[test]
fn context_forms_run_on_their_context_from_any_thread() {
    let ctx = Context::new().unwrap();
    let data = data_234();
    let x = t(&data, &[2, 3, 4]);
    // A Context is Send: moved to another thread, its methods run on it there.
    std::thread::spawn(move || {
        let got = ctx.sum(&x, &[2], false).unwrap();
        let (_, gs) = groups(&data, &[2, 3, 4], &[2], false);
        for (g, w) in got.to_vec::<f64>().unwrap().iter().zip(&gs) {
            assert!(close(*g, w.iter().sum(), 1e-13));
        }
        assert_eq!(
            ctx.count_nonzero_all(&x).unwrap().item::<i64>().unwrap(),
            24
        );
        let p = ReduceParams::new().with_correction(0.0);
        let v = ctx.reduce_with(ReduceOp::Var, &x, &[1], false, &p).unwrap();
        assert_eq!(v.shape(), &[2, 4]);
        let (mv, mi) = ctx.max_dim(&x, 0, true).unwrap();
        assert_eq!(
            (mv.shape(), mi.shape()),
            (&[1i64, 3, 4][..], &[1i64, 3, 4][..])
        );
        let mut out = Tensor::zeros(DType::Float64, &[3]).unwrap();
        ctx.amax_out(&x, &[0, 2], false, &mut out).unwrap();
        let (_, gs) = groups(&data, &[2, 3, 4], &[0, 2], false);
        let want: Vec<f64> = gs.iter().map(|g| naive_f64(ReduceOp::Amax, g)).collect();
        assert_eq!(out.to_vec::<f64>().unwrap(), want);
        // The error is the context's.
        let err = ctx.reduce(ReduceOp::Sum, &x, &[3], false).unwrap_err();
        assert_eq!(
            err.message,
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)"
        );
    })
    .join()
    .unwrap();
}
