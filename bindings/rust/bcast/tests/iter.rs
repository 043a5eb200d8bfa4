//! The host-loop iterator (`bcast::iter`, `bc_iter`): every layout through
//! the typed forms and through blocks, conversions, serial and pull-mode
//! runs, failing and panicking loops, reset, contexts. The reference is a
//! naive broadcasting loop over index tuples written here; the loops compute
//! small-integer expressions, exact in every dtype used.

mod common;

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::{self, ThreadId};

use bcast::iter::{self, Block, InputRow, Iter, RunError, CODE_LOOP_ERROR, CODE_LOOP_PANIC};
use bcast::{
    Context, DType, Error, ErrorCode, Policy, Scheduler, Tensor, TensorRef, TensorView,
    TensorViewMut, BF16, F16,
};
use common::*;

// ---------------------------------------------------------------- reference

/// Row-major offset in `shape` of the index `idx` of a broadcast shape.
fn source(shape: &[i64], idx: &[i64]) -> usize {
    let skip = idx.len() - shape.len();
    shape.iter().enumerate().fold(0i64, |off, (d, &size)| {
        off * size + if size == 1 { 0 } else { idx[skip + d] }
    }) as usize
}

/// `f` over inputs (row-major values, shape) broadcast together, naively.
fn naive<const N: usize>(
    ins: [(&[f64], &[i64]); N],
    f: impl Fn([f64; N]) -> f64,
) -> (Vec<i64>, Vec<f64>) {
    let shape = ins.iter().fold(Vec::new(), |acc, (_, s)| {
        naive_shape(&acc, s).expect("not broadcastable")
    });
    let vals = indices(&shape)
        .iter()
        .map(|idx| f(std::array::from_fn(|k| ins[k].0[source(ins[k].1, idx)])))
        .collect();
    (shape, vals)
}

/// Small integers (-16..16) as f64, exact in every dtype but bool.
fn ints(n: usize, seed: u64) -> Vec<f64> {
    ivalues(n, seed).iter().map(|&v| f64::from(v)).collect()
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// A tensor's elements as f64, read in its own dtype.
fn read(t: &TensorRef) -> Vec<f64> {
    match t.dtype() {
        DType::Float32 => t
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|&v| v.into())
            .collect(),
        DType::Float64 => t.to_vec::<f64>().unwrap(),
        DType::Float16 => t
            .to_vec::<F16>()
            .unwrap()
            .iter()
            .map(|&v| v.into())
            .collect(),
        DType::BFloat16 => t
            .to_vec::<BF16>()
            .unwrap()
            .iter()
            .map(|&v| v.into())
            .collect(),
        DType::Int64 => t
            .to_vec::<i64>()
            .unwrap()
            .iter()
            .map(|&v| v as f64)
            .collect(),
        DType::Int32 => t
            .to_vec::<i32>()
            .unwrap()
            .iter()
            .map(|&v| v.into())
            .collect(),
        DType::Int16 => t
            .to_vec::<i16>()
            .unwrap()
            .iter()
            .map(|&v| v.into())
            .collect(),
        DType::Int8 => t
            .to_vec::<i8>()
            .unwrap()
            .iter()
            .map(|&v| v.into())
            .collect(),
        DType::UInt8 => t
            .to_vec::<u8>()
            .unwrap()
            .iter()
            .map(|&v| v.into())
            .collect(),
        DType::Bool => t
            .to_vec::<bool>()
            .unwrap()
            .iter()
            .map(|&v| f64::from(u8::from(v)))
            .collect(),
    }
}

// ---------------------------------------------------------------- layouts

/// How an operand is laid out.
#[derive(Clone, Copy)]
enum Lay {
    /// Row-major.
    Contiguous,
    /// A 2-D transpose: row-major [c, r] memory seen as [r, c].
    Transposed,
    /// A row-major tensor of this shape, expanded (stride 0) to the operand's.
    Expanded(&'static [i64]),
}

struct Layout {
    name: &'static str,
    ops: Vec<(&'static [i64], Lay)>,
}

fn layouts() -> Vec<Layout> {
    use Lay::*;
    let l = |name, ops| Layout { name, ops };
    vec![
        l(
            "same",
            vec![(&[37, 53][..], Contiguous), (&[37, 53], Contiguous)],
        ),
        l("row", vec![(&[37, 53], Contiguous), (&[53], Contiguous)]),
        l(
            "column",
            vec![(&[37, 53], Contiguous), (&[37, 1], Contiguous)],
        ),
        l(
            "outer",
            vec![(&[37, 1], Contiguous), (&[1, 53], Contiguous)],
        ),
        l(
            "transposed",
            vec![(&[37, 53], Transposed), (&[53], Contiguous)],
        ),
        l(
            "both transposed",
            vec![(&[53, 37], Transposed), (&[53, 37], Transposed)],
        ),
        l(
            "transposed column",
            vec![(&[37, 53], Transposed), (&[37, 1], Contiguous)],
        ),
        l(
            "expanded",
            vec![(&[4, 37, 53], Expanded(&[37, 1])), (&[53], Contiguous)],
        ),
        l(
            "expanded middle",
            vec![
                (&[37, 53], Contiguous),
                (&[5, 37, 53], Expanded(&[5, 1, 53])),
            ],
        ),
        l("0-dim", vec![(&[37, 53], Contiguous), (&[], Contiguous)]),
        l("all 0-dim", vec![(&[], Contiguous), (&[], Contiguous)]),
        l("one input", vec![(&[37, 53], Transposed)]),
        l(
            "middle",
            vec![
                (&[5, 1, 7], Contiguous),
                (&[5, 6, 1], Contiguous),
                (&[6, 7], Contiguous),
            ],
        ),
        l(
            "short rows",
            vec![
                (&[64, 3], Contiguous),
                (&[64, 1], Contiguous),
                (&[3], Contiguous),
            ],
        ),
        l("empty", vec![(&[0, 5], Contiguous), (&[5], Contiguous)]),
        l(
            "empty expanded",
            vec![(&[3, 0, 5], Expanded(&[1, 0, 1])), (&[5], Contiguous)],
        ),
        l(
            "large row",
            vec![(&[300, 1000], Contiguous), (&[1000], Contiguous)],
        ),
        l(
            "large column",
            vec![
                (&[1000, 300], Transposed),
                (&[1000, 1], Contiguous),
                (&[300], Contiguous),
            ],
        ),
    ]
}

/// The operands' memory: for each, (data, memory shape) and its logical
/// (row-major values, shape) for the reference.
struct Operands {
    data: Vec<Vec<f32>>,
    logical: Vec<(Vec<f64>, Vec<i64>)>,
}

fn operands(l: &Layout, seed: u64) -> Operands {
    let mut data = Vec::new();
    let mut logical = Vec::new();
    for (k, &(shape, lay)) in l.ops.iter().enumerate() {
        let seed = seed * 10 + k as u64;
        match lay {
            Lay::Contiguous => {
                let v = ints(numel(shape), seed);
                data.push(f32s(&v));
                logical.push((v, shape.to_vec()));
            }
            Lay::Transposed => {
                let (r, c) = (shape[0] as usize, shape[1] as usize);
                let mem = ints(r * c, seed); // [c, r] row-major
                let v = (0..r * c).map(|f| mem[(f % c) * r + f / c]).collect();
                data.push(f32s(&mem));
                logical.push((v, shape.to_vec()));
            }
            Lay::Expanded(from) => {
                let v = ints(numel(from), seed);
                let expanded = indices(shape)
                    .iter()
                    .map(|idx| v[source(from, idx)])
                    .collect();
                data.push(f32s(&v));
                logical.push((expanded, shape.to_vec()));
            }
        }
    }
    Operands { data, logical }
}

/// Strides of a row-major `from` expanded to `to` (0 where it repeats).
fn expanded_strides(from: &[i64], to: &[i64]) -> Vec<i64> {
    let mut strides = vec![0; to.len()];
    let skip = to.len() - from.len();
    let mut step = 1;
    for d in (0..from.len()).rev() {
        strides[skip + d] = if from[d] == 1 { 0 } else { step };
        step *= from[d];
    }
    strides
}

/// Views of the operands, as `layout` lays them out.
fn views<'a>(l: &Layout, ops: &'a Operands) -> Vec<TensorView<'a>> {
    l.ops
        .iter()
        .zip(&ops.data)
        .map(|(&(shape, lay), data)| match lay {
            Lay::Contiguous => TensorView::from_slice(data, shape).unwrap(),
            Lay::Transposed => TensorView::from_slice_strided(data, shape, &[1, shape[0]]).unwrap(),
            Lay::Expanded(from) => {
                TensorView::from_slice_strided(data, shape, &expanded_strides(from, shape)).unwrap()
            }
        })
        .collect()
}

/// The expression each arity computes, as the reference and the loops see it.
fn expr(v: &[f64]) -> f64 {
    match *v {
        [a] => 2.0 * a - 1.0,
        [a, b] => 3.0 * a - b,
        [a, b, c] => 3.0 * a + b - c,
        _ => unreachable!(),
    }
}

fn reference(ops: &Operands) -> (Vec<i64>, Vec<f64>) {
    let l = &ops.logical;
    match l.len() {
        1 => naive([(&l[0].0[..], &l[0].1[..])], |v| expr(&v)),
        2 => naive(
            [(&l[0].0[..], &l[0].1[..]), (&l[1].0[..], &l[1].1[..])],
            |v| expr(&v),
        ),
        3 => naive(
            [
                (&l[0].0[..], &l[0].1[..]),
                (&l[1].0[..], &l[1].1[..]),
                (&l[2].0[..], &l[2].1[..]),
            ],
            |v| expr(&v),
        ),
        _ => unreachable!(),
    }
}

/// The typed form of the layout's arity, in f32, into a new tensor of `dtype`.
fn typed(ins: &[TensorView<'_>], dtype: DType) -> Tensor {
    let r = match ins {
        [a] => iter::map(a, dtype, |a: &[f32], o: &mut [f32]| {
            assert_eq!(a.len(), o.len());
            for (o, a) in o.iter_mut().zip(a) {
                *o = 2.0 * a - 1.0;
            }
        }),
        [a, b] => iter::zip_map(a, b, dtype, |a: &[f32], b: &[f32], o: &mut [f32]| {
            assert!(a.len() == o.len() && b.len() == o.len());
            for ((o, a), b) in o.iter_mut().zip(a).zip(b) {
                *o = 3.0 * a - b;
            }
        }),
        [a, b, c] => iter::zip3_map(
            a,
            b,
            c,
            dtype,
            |a: &[f32], b: &[f32], c: &[f32], o: &mut [f32]| {
                assert!(a.len() == o.len() && b.len() == o.len() && c.len() == o.len());
                for (j, o) in o.iter_mut().enumerate() {
                    *o = 3.0 * a[j] + b[j] - c[j];
                }
            },
        ),
        _ => unreachable!(),
    };
    r.unwrap()
}

#[test]
fn typed_forms_on_every_layout() {
    for (n, l) in layouts().iter().enumerate() {
        let ops = operands(l, n as u64);
        let ins = views(l, &ops);
        let (shape, want) = reference(&ops);
        for dtype in [DType::Float32, DType::Float64, DType::Int32] {
            let got = typed(&ins, dtype);
            assert_eq!(got.shape(), &shape[..], "{}", l.name);
            assert_eq!(got.dtype(), dtype, "{}", l.name);
            assert_eq!(read(&got), want, "{} into {dtype:?}", l.name);
        }
    }
}

/// The `_out` forms into a transposed output (a strided view of a buffer).
#[test]
fn out_forms_into_a_transposed_output() {
    for (n, l) in layouts().iter().enumerate() {
        let ops = operands(l, 100 + n as u64);
        let ins = views(l, &ops);
        let (shape, want) = reference(&ops);
        if shape.len() != 2 {
            continue;
        }
        let (r, c) = (shape[0], shape[1]);
        let mut buf = vec![7.0f64; (r * c) as usize]; // [c, r] row-major
        {
            let mut out = TensorViewMut::from_slice_strided(&mut buf, &shape, &[1, r]).unwrap();
            let f1 = |a: &[f64], o: &mut [f64]| {
                for (o, a) in o.iter_mut().zip(a) {
                    *o = 2.0 * a - 1.0;
                }
            };
            let f2 = |a: &[f64], b: &[f64], o: &mut [f64]| {
                for j in 0..o.len() {
                    o[j] = 3.0 * a[j] - b[j];
                }
            };
            let f3 = |a: &[f64], b: &[f64], c: &[f64], o: &mut [f64]| {
                for j in 0..o.len() {
                    o[j] = 3.0 * a[j] + b[j] - c[j];
                }
            };
            match &ins[..] {
                [a] => iter::map_out(a, &mut out, f1),
                [a, b] => iter::zip_map_out(a, b, &mut out, f2),
                [a, b, c] => iter::zip3_map_out(a, b, c, &mut out, f3),
                _ => unreachable!(),
            }
            .unwrap();
        }
        let got: Vec<f64> = (0..(r * c) as usize)
            .map(|f| buf[(f % c as usize) * r as usize + f / c as usize])
            .collect();
        assert_eq!(got, want, "{}", l.name);
    }
}

/// The same expression through blocks: rows read with `Block::input`
/// (contiguous or repeated, as `is_repeated` says), each operand in its own
/// dtype (f32 inputs, an f64 output).
#[test]
fn blocks_on_every_layout() {
    for (n, l) in layouts().iter().enumerate() {
        let ops = operands(l, 200 + n as u64);
        let ins = views(l, &ops);
        let refs: Vec<&TensorRef> = ins.iter().map(|v| &**v).collect();
        let (shape, want) = reference(&ops);
        let mut it = Iter::builder(&refs)
            .out_dtype(DType::Float64)
            .build()
            .unwrap();
        assert_eq!(it.numel(), numel(&shape), "{}", l.name);
        let mut want_dtypes = vec![DType::Float64];
        want_dtypes.extend(vec![DType::Float32; refs.len()]);
        assert_eq!(it.loop_dtypes(), &want_dtypes[..]);
        let elements = AtomicUsize::new(0);
        let repeated_seen = AtomicBool::new(false);
        it.run(|mut blk: Block<'_>| {
            assert!(blk.rows() >= 1 && blk.row_len() >= 1);
            assert_eq!(blk.num_inputs(), refs.len());
            assert_eq!(blk.output_dtype(), DType::Float64);
            elements.fetch_add(blk.rows() * blk.row_len(), Ordering::Relaxed);
            for i in 0..blk.rows() {
                let rows: Vec<InputRow<'_, f32>> = (0..blk.num_inputs())
                    .map(|k| blk.input::<f32>(k, i))
                    .collect();
                for (k, row) in rows.iter().enumerate() {
                    assert_eq!(row.len(), blk.row_len());
                    let rep = matches!(row, InputRow::Repeated { .. });
                    assert_eq!(rep, blk.is_repeated(k));
                    if rep {
                        repeated_seen.store(true, Ordering::Relaxed);
                    }
                }
                let out = blk.output::<f64>(i);
                for (j, o) in out.iter_mut().enumerate() {
                    let v: Vec<f64> = rows.iter().map(|r| f64::from(r.get(j))).collect();
                    *o = expr(&v);
                }
            }
        })
        .unwrap();
        assert_eq!(
            elements.load(Ordering::Relaxed),
            numel(&shape),
            "{}",
            l.name
        );
        let out = it.into_output().unwrap();
        assert_eq!(out.shape(), &shape[..]);
        assert_eq!(read(&out), want, "{}", l.name);
        if l.name == "column" {
            assert!(
                repeated_seen.load(Ordering::Relaxed),
                "a column is repeated along rows"
            );
        }
    }
}

/// Mixed storage dtypes, converted for a float64 loop and back into the
/// output's dtype; and the output's own dtype through `_out`.
#[test]
fn mixed_dtypes_through_conversion() {
    let (sa, sb, sc) = ([37i64, 53], [53i64], [37i64, 1]);
    let va = ints(numel(&sa), 1);
    let vb = ints(numel(&sb), 2);
    let vc: Vec<f64> = ints(numel(&sc), 3).iter().map(|v| v.abs()).collect();
    let a = Tensor::from_slice(&va.iter().map(|&v| v as i32).collect::<Vec<_>>(), &sa).unwrap();
    let b = Tensor::from_slice(
        &vb.iter().map(|&v| F16::from_f64(v)).collect::<Vec<_>>(),
        &sb,
    )
    .unwrap();
    let c = Tensor::from_slice(&vc.iter().map(|&v| v as u8).collect::<Vec<_>>(), &sc).unwrap();
    let (shape, want) = naive(
        [(&va[..], &sa[..]), (&vb[..], &sb[..]), (&vc[..], &sc[..])],
        |v| expr(&v),
    );
    let f = |a: &[f64], b: &[f64], c: &[f64], o: &mut [f64]| {
        for j in 0..o.len() {
            o[j] = 3.0 * a[j] + b[j] - c[j];
        }
    };
    for dtype in [DType::BFloat16, DType::Int64, DType::Int16, DType::Float16] {
        let got = iter::zip3_map(&a, &b, &c, dtype, f).unwrap();
        assert_eq!((got.shape(), got.dtype()), (&shape[..], dtype));
        assert_eq!(read(&got), want, "{dtype:?}");
        let mut out = Tensor::zeros(dtype, &shape).unwrap();
        iter::zip3_map_out(&a, &b, &c, &mut out, f).unwrap();
        assert_eq!(read(&out), want, "{dtype:?} out=");
    }
    // i32 in an i64 loop, into a bool output: nonzero is true.
    let nz = iter::map(&a, DType::Bool, |a: &[i64], o: &mut [i64]| {
        for (o, a) in o.iter_mut().zip(a) {
            *o = i64::from(*a != 0);
        }
    })
    .unwrap();
    let want: Vec<bool> = va.iter().map(|&v| v != 0.0).collect();
    assert_eq!(nz.to_vec::<bool>().unwrap(), want);
}

/// Each operand in a dtype of its own: f32 and i64 inputs, a bool output.
#[test]
fn per_operand_loop_dtypes() {
    let (sx, st) = ([20i64, 30], [30i64]);
    let vx = ints(600, 5);
    let vt = ints(30, 6);
    let x = Tensor::from_slice(&f32s(&vx), &sx).unwrap();
    let t = Tensor::from_slice(&vt.iter().map(|&v| v as i16).collect::<Vec<_>>(), &st).unwrap();
    let mut it = Iter::builder(&[&x, &t])
        .loop_dtypes(&[DType::Bool, DType::Float32, DType::Int64])
        .out_dtype(DType::Int8)
        .build()
        .unwrap();
    it.run(|mut blk| {
        for i in 0..blk.rows() {
            let (x, t) = (blk.input::<f32>(0, i), blk.input::<i64>(1, i));
            for (j, o) in blk.output::<bool>(i).iter_mut().enumerate() {
                *o = f64::from(x.get(j)) > t.get(j) as f64;
            }
        }
    })
    .unwrap();
    let (_, want) = naive([(&vx[..], &sx[..]), (&vt[..], &st[..])], |[x, t]| {
        f64::from(u8::from(x > t))
    });
    let out = it.into_output().unwrap();
    assert_eq!(out.dtype(), DType::Int8);
    assert_eq!(read(&out), want);
}

#[test]
fn the_default_output_dtype_is_the_result_type() {
    let a = Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
    let b = Tensor::scalar(0.5f64).unwrap(); // 0-dim, of a higher category: it decides
    let it = Iter::builder(&[&a, &b]).build().unwrap();
    assert_eq!(
        it.loop_dtypes(),
        &[DType::Float64, DType::Int32, DType::Float64]
    );
    let c = Tensor::from_slice(&[1i64], &[1]).unwrap();
    let it = Iter::builder(&[&a, &c]).build().unwrap();
    assert_eq!(it.loop_dtypes()[0], DType::Int64);
}

// ---------------------------------------------------------------- outputs

/// The loop's output rows hold valid values on entry, never uninitialised
/// memory: the output's own (zeros for an allocated one), or in bcast's
/// buffers (conversion, streamed tiles) zeros or what the loop wrote for an
/// earlier block. A loop that never writes leaves such values.
#[test]
fn output_rows_hold_valid_values() {
    let a = Tensor::from_slice(&f32s(&ints(300 * 200, 8)), &[300, 200]).unwrap();
    for (out_dtype, loop_dtype) in [
        (DType::Float32, DType::Float32),
        (DType::Int16, DType::Float64),
    ] {
        // The loop writes 1s: it sees 0s, 1s, or the caller's 7s where it
        // writes the caller's tensor in place.
        let saw_other = AtomicBool::new(false);
        let f = |_: &[f32], o: &mut [f32]| {
            if o.iter().any(|v| ![0.0, 1.0, 7.0].contains(v)) {
                saw_other.store(true, Ordering::Relaxed);
            }
            o.fill(1.0);
        };
        let y = iter::map(&a, out_dtype, f).unwrap();
        assert!(read(&y).iter().all(|&v| v == 1.0));
        let mut sevens = Tensor::zeros(out_dtype, &[300, 200]).unwrap();
        sevens.fill(7i16).unwrap();
        iter::map_out(&a, &mut sevens, f).unwrap();
        assert!(read(&sevens).iter().all(|&v| v == 1.0));
        assert!(!saw_other.load(Ordering::Relaxed));

        // Blocks the loop never wrote keep the caller's 7s, or get a
        // conversion buffer's zeros.
        let mut out = Tensor::zeros(out_dtype, &[300, 200]).unwrap();
        out.fill(7i16).unwrap();
        let mut it = Iter::builder(&[&a])
            .out(&mut out)
            .loop_dtype(loop_dtype)
            .build()
            .unwrap();
        it.run(|_blk| ()).unwrap();
        let want = if loop_dtype == out_dtype { 7.0 } else { 0.0 };
        assert!(read(&it.output().unwrap()).iter().all(|&v| v == want));
        drop(it);
        assert!(read(&out).iter().all(|&v| v == want));
    }
    // An allocated output reads as zeros before any run.
    let mut it = Iter::builder(&[&a])
        .out_dtype(DType::Float64)
        .build()
        .unwrap();
    assert!(read(&it.output().unwrap()).iter().all(|&v| v == 0.0));
}

#[test]
fn a_given_output_is_read_after_the_iterator() {
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let mut out = Tensor::zeros(DType::Float32, &[3]).unwrap();
    let mut it = Iter::builder(&[&a]).out(&mut out).build().unwrap();
    it.run(|mut blk| {
        let x = blk.input::<f32>(0, 0);
        for (j, o) in blk.output::<f32>(0).iter_mut().enumerate() {
            *o = -x.get(j);
        }
    })
    .unwrap();
    assert_eq!(
        it.output().unwrap().to_vec::<f32>().unwrap(),
        [-1.0, -2.0, -3.0]
    );
    let e = it.into_output().unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
    assert_eq!(out.to_vec::<f32>().unwrap(), [-1.0, -2.0, -3.0]);
}

// ---------------------------------------------------------------- failures

/// A serial loop failing on its k-th call, for every k: the run stops there
/// and returns that error.
#[test]
fn a_loop_failing_at_every_call() {
    let a = Tensor::from_slice(&f32s(&ints(300 * 500, 9)), &[300, 500]).unwrap();
    let b = Tensor::from_slice(&f32s(&ints(500, 10)), &[500]).unwrap();
    let mut it = Iter::builder(&[&a, &b])
        .loop_dtype(DType::Float64)
        .out_dtype(DType::Float32)
        .build()
        .unwrap();
    let mut calls = 0usize;
    it.run_serial(|_blk| calls += 1).unwrap();
    assert!(calls > 1, "{calls} calls");
    assert!(it.num_chunks() > 1);
    for k in 0..calls {
        let mut seen = 0usize;
        let r = it.run_serial(|_blk| {
            seen += 1;
            if seen - 1 == k {
                Err(format!("failed at call {k}"))
            } else {
                Ok(())
            }
        });
        assert_eq!(r, Err(RunError::Loop(format!("failed at call {k}"))));
        assert_eq!(seen, k + 1, "no call after the failure");
        assert_eq!(it.callback_code(), CODE_LOOP_ERROR);
    }
    // A run after a failure starts afresh.
    it.run_serial(|_blk| Ok::<(), String>(())).unwrap();
    assert_eq!(it.callback_code(), 0);
}

/// On threads: the first error comes back, the context records the status.
#[test]
fn a_parallel_loop_failing_on_a_context() {
    let a = Tensor::from_slice(&f32s(&ints(1024 * 1024, 11)), &[1024, 1024]).unwrap();
    let b = Tensor::from_slice(&f32s(&ints(1024, 12)), &[1024]).unwrap();
    let mut ctx = Context::new().unwrap();
    let mut it = Iter::builder(&[&a, &b]).context(&mut ctx).build().unwrap();
    let calls = AtomicUsize::new(0);
    it.run(|_blk| {
        calls.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    let total = calls.load(Ordering::Relaxed);
    for k in [0, total / 2, total - 1] {
        let calls = AtomicUsize::new(0);
        let r = it.run(|_blk| {
            if calls.fetch_add(1, Ordering::Relaxed) == k {
                Err(k)
            } else {
                Ok(())
            }
        });
        assert_eq!(r, Err(RunError::Loop(k)));
    }
    assert_eq!(it.callback_code(), CODE_LOOP_ERROR);
    drop(it);
    let e = ctx.last_error().expect("the failure is recorded");
    assert_err(e, ErrorCode::Callback, "the host loop returned 1");
}

/// A panic in the loop reaches the caller (on every thread it may run on),
/// the process goes on, and the iterator can run again.
#[test]
fn a_panicking_loop_reaches_the_caller() {
    let mut av = f32s(&ints(1024 * 1024, 13));
    av[700_000] = 1000.0; // the marker
    let a = Tensor::from_slice(&av, &[1024, 1024]).unwrap();
    let b = Tensor::from_slice(&f32s(&ints(1024, 14)), &[1, 1024]).unwrap();
    let message = |p: Box<dyn std::any::Any + Send>| -> String {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap()
    };
    // The typed form, on bcast's threads: the row with the marker panics.
    let r = catch_unwind(AssertUnwindSafe(|| {
        iter::zip_map(
            &a,
            &b,
            DType::Float32,
            |a: &[f32], _: &[f32], _: &mut [f32]| {
                if a.contains(&1000.0) {
                    panic!("the loop panicked");
                }
            },
        )
    }));
    assert_eq!(message(r.unwrap_err()), "the loop panicked");

    // Iter::run, run_serial and run_chunk.
    let mut it = Iter::builder(&[&a, &b]).build().unwrap();
    let r = catch_unwind(AssertUnwindSafe(|| {
        it.run(|blk| assert!(blk.rows() == 0, "run {}", 1))
    }));
    assert_eq!(message(r.unwrap_err()), "run 1");
    assert_eq!(it.callback_code(), CODE_LOOP_PANIC);
    let r = catch_unwind(AssertUnwindSafe(|| {
        it.run_serial(|blk| assert!(blk.rows() == 0, "serial"))
    }));
    assert_eq!(message(r.unwrap_err()), "serial");
    it.clear_failure();
    let r = catch_unwind(AssertUnwindSafe(|| {
        it.run_chunk(1, |blk| assert!(blk.rows() == 0, "chunk"))
    }));
    assert_eq!(message(r.unwrap_err()), "chunk");
    it.clear_failure();
    it.run_chunk(1, |_blk| ()).expect("the chunk is free again");

    // Still usable: a full run gives the right result.
    it.run(|mut blk| {
        for i in 0..blk.rows() {
            let (x, y) = (blk.input::<f32>(0, i), blk.input::<f32>(1, i));
            for (j, o) in blk.output::<f32>(i).iter_mut().enumerate() {
                *o = x.get(j) - y.get(j);
            }
        }
    })
    .unwrap();
    let (av, bv) = (read(&a), read(&b));
    let (_, want) = naive(
        [(&av[..], &[1024, 1024][..]), (&bv[..], &[1, 1024][..])],
        |[x, y]| x - y,
    );
    assert_eq!(read(&it.into_output().unwrap()), want);
}

/// Using a block wrongly panics with a message, resumed on the caller.
#[test]
fn block_misuse_panics() {
    let a = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let mut it = Iter::builder(&[&a]).build().unwrap();
    let r = catch_unwind(AssertUnwindSafe(|| {
        it.run(|blk| {
            let _row = blk.input::<f64>(0, 0);
        })
    }));
    let p = r.unwrap_err();
    assert_eq!(
        p.downcast_ref::<String>().unwrap(),
        "bcast: the loop sees input 0 in Float32, not Float64"
    );
    let r = catch_unwind(AssertUnwindSafe(|| {
        it.run(|blk| {
            let _row = blk.input::<f32>(1, 0);
        })
    }));
    assert_eq!(
        r.unwrap_err().downcast_ref::<String>().unwrap(),
        "bcast: input 1 of a loop over 1 inputs"
    );
    let r = catch_unwind(AssertUnwindSafe(|| {
        it.run(|mut blk| {
            let _row = blk.output::<f32>(blk.rows());
        })
    }));
    assert!(r
        .unwrap_err()
        .downcast_ref::<String>()
        .unwrap()
        .starts_with("bcast: row 1 of a block of 1 rows"));
}

// ---------------------------------------------------------------- pull mode

/// The host runs the chunks on its own threads, in any order; each element
/// exactly once; the loop sees no bcast thread.
#[test]
fn pull_mode_on_scoped_threads() {
    let (sa, sb, sc) = ([1000i64, 300], [1000i64, 1], [300i64]);
    let (va, vb, vc) = (ints(300_000, 15), ints(1000, 16), ints(300, 17));
    let a_mem = f32s(&va);
    let a = TensorView::from_slice(&a_mem, &sa).unwrap();
    let b = Tensor::from_slice(&vb.iter().map(|&v| v as i16).collect::<Vec<_>>(), &sb).unwrap();
    let c = Tensor::from_slice(&vc[..], &sc[..]).unwrap();
    let it = Iter::builder(&[&a, &b, &c])
        .loop_dtype(DType::Float64)
        .out_dtype(DType::Float32)
        .build()
        .unwrap();
    let n = it.num_chunks();
    assert!(n >= 4, "{n} chunks");
    let next = AtomicUsize::new(0);
    let elements = AtomicUsize::new(0);
    let threads = Mutex::new(HashSet::<ThreadId>::new());
    let mut host_threads = HashSet::new();
    thread::scope(|s| {
        let handles: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        if k >= n {
                            break;
                        }
                        it.run_chunk(n - 1 - k, |mut blk| {
                            threads.lock().unwrap().insert(thread::current().id());
                            elements.fetch_add(blk.rows() * blk.row_len(), Ordering::Relaxed);
                            for i in 0..blk.rows() {
                                let ins: Vec<_> = (0..3).map(|k| blk.input::<f64>(k, i)).collect();
                                for (j, o) in blk.output::<f64>(i).iter_mut().enumerate() {
                                    *o = expr(&[ins[0].get(j), ins[1].get(j), ins[2].get(j)]);
                                }
                            }
                        })
                        .unwrap();
                    }
                    thread::current().id()
                })
            })
            .collect();
        host_threads.extend(handles.into_iter().map(|h| h.join().unwrap()));
    });
    assert_eq!(elements.load(Ordering::Relaxed), 300_000);
    assert!(threads.lock().unwrap().is_subset(&host_threads));
    let e = it.run_chunk(n, |_blk| ()).unwrap_err();
    assert_eq!(
        e,
        RunError::Bcast(Error::new(
            ErrorCode::InvalidArgument,
            format!("chunk {n} is out of range: the iterator has {n} chunks")
        ))
    );
    let (_, want) = naive(
        [(&va[..], &sa[..]), (&vb[..], &sb[..]), (&vc[..], &sc[..])],
        |v| expr(&v),
    );
    assert_eq!(read(&it.into_output().unwrap()), want);
}

/// A chunk that is running refuses a second run of itself; a failed chunk
/// stops the chunks after it until the failure is cleared.
#[test]
fn pull_mode_refusals() {
    let a = Tensor::from_slice(&f32s(&ints(200_000, 18)), &[400, 500]).unwrap();
    let mut it = Iter::builder(&[&a]).build().unwrap();
    assert!(it.num_chunks() >= 2);
    let (started_tx, started_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    thread::scope(|s| {
        let it = &it;
        s.spawn(move || {
            let mut signal = Some((started_tx, go_rx));
            it.run_chunk(0, |_blk| {
                if let Some((started, go)) = signal.take() {
                    started.send(()).unwrap();
                    go.recv().unwrap();
                }
            })
            .unwrap();
        });
        started_rx.recv().unwrap();
        let e = it.run_chunk(0, |_blk| ()).unwrap_err();
        assert_eq!(
            e,
            RunError::Bcast(Error::new(
                ErrorCode::InvalidArgument,
                "chunk 0 is already running on another thread"
            ))
        );
        it.run_chunk(1, |_blk| ())
            .expect("another chunk runs meanwhile");
        go_tx.send(()).unwrap();
    });

    let n = it.num_chunks();
    for i in 0..n {
        it.clear_failure();
        assert_eq!(
            it.run_chunk(i, |_blk| Err::<(), _>("no")),
            Err(RunError::Loop("no"))
        );
        let mut ran = false;
        let e = it
            .run_chunk((i + 1) % n, |_blk| {
                ran = true;
                Ok::<(), &str>(())
            })
            .unwrap_err();
        assert!(!ran, "a chunk ran after the failure");
        assert_eq!(
            e,
            RunError::Bcast(Error::new(
                ErrorCode::Callback,
                "chunk ".to_string()
                    + &((i + 1) % n).to_string()
                    + " did not run: the loop failed in another chunk (code 1)"
            ))
        );
    }
    it.clear_failure();
    it.run_chunk(0, |_blk| ()).unwrap();
}

// ---------------------------------------------------------------- reset

#[test]
fn reset_to_new_operands() {
    let (sa, sb) = ([40i64, 30], [30i64]);
    let (a1, b1, a2, b2) = (ints(1200, 19), ints(30, 20), ints(1200, 21), ints(30, 22));
    let ta1 = Tensor::from_slice(&a1.iter().map(|&v| v as i32).collect::<Vec<_>>(), &sa).unwrap();
    let tb1 = Tensor::from_slice(&b1.iter().map(|&v| v as i32).collect::<Vec<_>>(), &sb).unwrap();
    // The second a: transposed memory, same shape and dtype.
    let a2_mem: Vec<i32> = (0..1200)
        .map(|f| a2[(f % 40) * 30 + f / 40] as i32)
        .collect();
    let ta2 = TensorView::from_slice_strided(&a2_mem, &sa, &[1, 40]).unwrap();
    let tb2 = Tensor::from_slice(&b2.iter().map(|&v| v as i32).collect::<Vec<_>>(), &sb).unwrap();
    let run = |it: &mut Iter<'_>| {
        it.run(|mut blk| {
            for i in 0..blk.rows() {
                let (x, y) = (blk.input::<f64>(0, i), blk.input::<f64>(1, i));
                for (j, o) in blk.output::<f64>(i).iter_mut().enumerate() {
                    *o = 3.0 * x.get(j) - y.get(j);
                }
            }
        })
        .unwrap()
    };
    // Everything an iterator is reset to lives as long as the iterator.
    let wrong = Tensor::zeros(DType::Int32, &[40, 31]).unwrap();
    let wrong_dtype = Tensor::zeros(DType::Int16, &[30]).unwrap();
    let mut given = Tensor::zeros(DType::Int64, &sa).unwrap();
    let mut it = Iter::builder(&[&ta1, &tb1])
        .loop_dtype(DType::Float64)
        .out_dtype(DType::Int64)
        .build()
        .unwrap();
    run(&mut it);
    let out1 = it.output().unwrap().to_tensor().unwrap();
    it.reset(&[&ta2, &tb2], None).unwrap();
    assert!(
        read(&it.output().unwrap()).iter().all(|&v| v == 0.0),
        "a new, zeroed output"
    );
    run(&mut it);
    let (_, want1) = naive([(&a1[..], &sa[..]), (&b1[..], &sb[..])], |[x, y]| {
        3.0 * x - y
    });
    let (_, want2) = naive([(&a2[..], &sa[..]), (&b2[..], &sb[..])], |[x, y]| {
        3.0 * x - y
    });
    assert_eq!(read(&out1), want1);
    assert_eq!(read(&it.output().unwrap()), want2);

    // Another shape, dtype or input count is refused; the operands stay.
    assert_err(
        it.reset(&[&wrong, &tb2], None).unwrap_err(),
        ErrorCode::ShapeMismatch,
        "input 0 has shape [40, 31], the iterator was planned for [40, 30]",
    );
    assert_err(
        it.reset(&[&ta1, &wrong_dtype], None).unwrap_err(),
        ErrorCode::Dtype,
        "input 1 has dtype Short, the iterator was planned for Int",
    );
    let e = it.reset(&[&ta1], None).unwrap_err();
    assert_err(
        e,
        ErrorCode::InvalidArgument,
        "reset with 1 inputs an iterator over 2",
    );
    run(&mut it);
    assert_eq!(
        read(&it.output().unwrap()),
        want2,
        "kept the second operands"
    );

    // Into a given output; then back to the first operands.
    it.reset(&[&ta1, &tb1], Some(&mut given)).unwrap();
    run(&mut it);
    assert!(it.into_output().is_err());
    assert_eq!(read(&given), want1);
}

// ---------------------------------------------------------------- contexts

#[test]
fn checks_and_texts_of_bcast_ops() {
    let a3 = Tensor::zeros(DType::Float32, &[3]).unwrap();
    let a4 = Tensor::zeros(DType::Float32, &[4]).unwrap();
    let f = |_: &[f32], _: &[f32], _: &mut [f32]| ();
    let e = iter::zip_map(&a3, &a4, DType::Float32, f).unwrap_err();
    assert_eq!(
        e,
        RunError::Bcast(Error {
            code: ErrorCode::NotBroadcastable,
            message: "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0".into(),
            detail: bcast::ErrorDetail { dim: Some(0), size_a: Some(3), size_b: Some(4) },
        })
    );
    let s = Tensor::scalar(1.0f32).unwrap();
    let mut out2 = Tensor::full(5.0f32, &[2]).unwrap();
    let e = iter::zip_map_out(&s, &s, &mut out2, f).unwrap_err();
    let e = Error::from(e);
    assert_err(
        e,
        ErrorCode::ShapeMismatch,
        "output with shape [2] doesn't match the broadcast shape []",
    );
    assert_eq!(out2.to_vec::<f32>().unwrap(), [5.0, 5.0], "nothing written");

    let e = Iter::builder(&[]).build().unwrap_err();
    assert_err(
        e,
        ErrorCode::InvalidArgument,
        "an iterator takes 1 to 3 inputs, not 0",
    );
    let e = Iter::builder(&[&a3, &a3, &a3, &a3]).build().unwrap_err();
    assert_err(
        e,
        ErrorCode::InvalidArgument,
        "an iterator takes 1 to 3 inputs, not 4",
    );
    let e = Iter::builder(&[&a3])
        .loop_dtypes(&[DType::Float32])
        .build()
        .unwrap_err();
    assert_err(
        e,
        ErrorCode::InvalidArgument,
        "1 loop dtypes for an iterator over 2 operands (the output and 1 inputs)",
    );
    // An output with repeated elements is refused as an overlap.
    let mut buf = [0.0f32; 1];
    let mut ex = TensorViewMut::from_slice_strided(&mut buf, &[4], &[0]).unwrap();
    let e = Iter::builder(&[&a4]).out(&mut ex).build().unwrap_err();
    assert_eq!(e.code, ErrorCode::Overlap);
}

#[test]
fn contexts_policy_warnings_and_nested_calls() {
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let b = Tensor::from_slice(&[10.0f32, 20.0, 30.0], &[3]).unwrap();
    let add = |a: &[f32], b: &[f32], o: &mut [f32]| {
        for j in 0..o.len() {
            o[j] = a[j] + b[j];
        }
    };
    let mut ctx = Context::new().unwrap();
    ctx.set_broadcast_policy(Policy::Error);
    let msg = "broadcast policy is 'error': input 0 with shape [2, 3] and input 1 with shape [3] would be implicitly broadcast to [2, 3]";
    let e = Error::from(ctx.zip_map(&a, &b, DType::Float32, add).unwrap_err());
    assert_err(e, ErrorCode::Policy, msg);
    let e = Iter::builder(&[&a, &b])
        .context(&mut ctx)
        .build()
        .unwrap_err();
    assert_err(e, ErrorCode::Policy, msg);
    // The default context still allows it.
    let sum = iter::zip_map(&a, &b, DType::Float32, add).unwrap();
    assert_eq!(
        sum.to_vec::<f32>().unwrap(),
        [11.0, 22.0, 33.0, 14.0, 25.0, 36.0]
    );
    // Inside ctx.scope too, the loop's own bcast calls run on the default
    // context, not on the context running the loop.
    let col = Tensor::zeros(DType::Float32, &[2, 1]).unwrap();
    let r = ctx.zip_map(
        &a,
        &a,
        DType::Float32,
        |x: &[f32], _: &[f32], o: &mut [f32]| {
            let nested = b
                .add(&col)
                .expect("the default context allows the broadcast");
            assert_eq!(nested.shape(), &[2, 3]);
            o.copy_from_slice(x);
        },
    );
    assert_eq!(read(&r.unwrap()), read(&a));

    ctx.set_broadcast_policy(Policy::Warn);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    ctx.set_warning_handler(move |m| sink.lock().unwrap().push(m.to_string()));
    let mut out = Tensor::zeros(DType::Float64, &[2, 3]).unwrap();
    ctx.zip_map_out(&a, &b, &mut out, add).unwrap();
    assert_eq!(read(&out), [11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    assert_eq!(
        *seen.lock().unwrap(),
        ["implicit broadcast: input 0 with shape [2, 3] and input 1 with shape [3] broadcast to [2, 3]"]
    );
    // The other context forms.
    let m = ctx
        .map(&a, DType::Int32, |x: &[i32], o: &mut [i32]| {
            o.copy_from_slice(x)
        })
        .unwrap();
    assert_eq!(read(&m), read(&a));
    ctx.map_out(&a, &mut out, |x: &[f64], o: &mut [f64]| {
        o.copy_from_slice(x)
    })
    .unwrap();
    assert_eq!(read(&out), read(&a));
    let add3 = |a: &[f32], b: &[f32], c: &[f32], o: &mut [f32]| {
        for j in 0..o.len() {
            o[j] = a[j] + b[j] + c[j];
        }
    };
    let t = ctx.zip3_map(&a, &a, &a, DType::Float32, add3).unwrap();
    assert_eq!(read(&t), [3.0, 6.0, 9.0, 12.0, 15.0, 18.0]);
    ctx.zip3_map_out(&a, &a, &a, &mut out, add3).unwrap();
    assert_eq!(read(&out), [3.0, 6.0, 9.0, 12.0, 15.0, 18.0]);
}

struct Pool {
    runs: Arc<AtomicUsize>,
}

impl Scheduler for Pool {
    fn num_threads(&self) -> usize {
        3
    }
    fn run(&self, nchunks: usize, chunk: &(dyn Fn(usize) + Sync)) {
        self.runs.fetch_add(1, Ordering::SeqCst);
        thread::scope(|s| {
            for w in 1..3 {
                s.spawn(move || (w..nchunks).step_by(3).for_each(chunk));
            }
            (0..nchunks).step_by(3).for_each(chunk);
        });
    }
}

/// A context's scheduler runs a large loop's blocks.
#[test]
fn a_context_scheduler_runs_the_loop() {
    let runs = Arc::new(AtomicUsize::new(0));
    let mut ctx = Context::new().unwrap();
    ctx.set_scheduler(Pool {
        runs: Arc::clone(&runs),
    });
    let (sa, sb) = ([1024i64, 1024], [1024i64, 1]);
    let (va, vb) = (ints(1 << 20, 23), ints(1024, 24));
    let a = Tensor::from_slice(&f32s(&va), &sa).unwrap();
    let b = Tensor::from_slice(&f32s(&vb), &sb).unwrap();
    let threads = Mutex::new(HashSet::new());
    let got = ctx
        .zip_map(
            &a,
            &b,
            DType::Float32,
            |a: &[f32], b: &[f32], o: &mut [f32]| {
                threads.lock().unwrap().insert(thread::current().id());
                for j in 0..o.len() {
                    o[j] = 3.0 * a[j] - b[j];
                }
            },
        )
        .unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(threads.lock().unwrap().len() > 1);
    let (_, want) = naive([(&va[..], &sa[..]), (&vb[..], &sb[..])], |v| expr(&v));
    assert_eq!(read(&got), want);
}

#[test]
fn the_types_and_conversions() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Iter<'static>>();
    send_sync::<RunError<String>>();
    // An infallible loop's error is a bcast::Error, for `?`.
    fn uses_question_mark(a: &TensorRef) -> bcast::Result<Tensor> {
        Ok(iter::map(a, DType::Float32, |x: &[f32], o: &mut [f32]| {
            o.copy_from_slice(x)
        })?)
    }
    let a = Tensor::from_slice(&[1.5f32], &[1]).unwrap();
    assert_eq!(
        uses_question_mark(&a).unwrap().to_vec::<f32>().unwrap(),
        [1.5]
    );
    let e: Error =
        RunError::<std::convert::Infallible>::Bcast(Error::new(ErrorCode::Dtype, "x")).into();
    assert_eq!(e.message, "x");
    assert_eq!(RunError::<&str>::Loop("bad").to_string(), "bad");
}
