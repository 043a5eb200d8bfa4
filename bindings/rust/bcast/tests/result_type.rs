//! `result_type` and `DType::can_cast_to` against PyTorch's answers in
//! tests/data/result_types.txt (written by tests/gen_result_types.py from
//! torch.result_type, PyTorch's N-ary promotion and torch.can_cast).

use bcast::{result_type, DType, ErrorCode, Scalar, Tensor, TensorRef};

const NAMES: [&str; 10] = [
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
];

fn dtype(name: &str) -> DType {
    DType::ALL[NAMES
        .iter()
        .position(|n| *n == name)
        .unwrap_or_else(|| panic!("dtype {name}"))]
}

fn table() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../tests/data/result_types.txt"
    );
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn rows(kind: &str) -> Vec<Vec<String>> {
    table()
        .lines()
        .filter_map(|l| l.strip_prefix(kind).and_then(|r| r.strip_prefix(' ')))
        .map(|l| l.split(' ').map(str::to_string).collect())
        .collect()
}

#[test]
fn result_type_matches_pytorch_on_every_pair_and_triple() {
    let rows = rows("rt");
    assert_eq!(rows.len(), 23 * 23 + 2300);
    for row in rows {
        let (ops, expected) = row.split_at(row.len() - 1);
        let mut owned: Vec<Tensor> = Vec::new();
        let mut scalars: Vec<Scalar> = Vec::new();
        for op in ops {
            let (kind, what) = op.split_once(':').unwrap();
            match kind {
                "T" => owned.push(Tensor::zeros(dtype(what), &[2]).unwrap()),
                "Z" => owned.push(Tensor::zeros(dtype(what), &[]).unwrap()),
                _ => scalars.push(match what {
                    "bool" => Scalar::Bool(true),
                    "int" => Scalar::Int(3),
                    _ => Scalar::Float(2.5),
                }),
            }
        }
        let tensors: Vec<&TensorRef> = owned.iter().map(|t| &**t).collect();
        let want = dtype(&expected[0]);
        assert_eq!(result_type(&tensors, &scalars).unwrap(), want, "{ops:?}");
        // The order of operands never matters.
        let rev_t: Vec<&TensorRef> = tensors.iter().rev().copied().collect();
        let rev_s: Vec<Scalar> = scalars.iter().rev().copied().collect();
        assert_eq!(
            result_type(&rev_t, &rev_s).unwrap(),
            want,
            "{ops:?} reversed"
        );
    }
}

#[test]
fn can_cast_matches_pytorch_on_every_pair() {
    let rows = rows("cc");
    assert_eq!(rows.len(), 100);
    for row in rows {
        assert_eq!(
            dtype(&row[0]).can_cast_to(dtype(&row[1])),
            row[2] == "1",
            "{row:?}"
        );
    }
}

#[test]
fn no_operand_is_an_error() {
    let err = result_type(&[], &[]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert!(err.message.contains("at least one"), "{}", err.message);
    assert_eq!(
        result_type(&[], &[Scalar::from(1i64), Scalar::from(0.5f32)]).unwrap(),
        DType::Float32
    );
}

#[test]
fn tensors_bcast_makes_are_writable() {
    let t = Tensor::zeros(DType::Int32, &[3]).unwrap();
    assert!(t.is_writable());
    assert!(t.view().unwrap().is_writable());
}
