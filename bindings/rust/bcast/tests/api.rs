//! What a newcomer meets first: dtype names and the shape arguments.

use bcast::{broadcast_shapes, DType, ErrorCode, Tensor};

#[test]
fn dtype_display_and_debug_are_the_variant_name() {
    let names = [
        (DType::Bool, "Bool", "torch.bool", "Bool"),
        (DType::UInt8, "UInt8", "torch.uint8", "Byte"),
        (DType::Int8, "Int8", "torch.int8", "Char"),
        (DType::Int16, "Int16", "torch.int16", "Short"),
        (DType::Int32, "Int32", "torch.int32", "Int"),
        (DType::Int64, "Int64", "torch.int64", "Long"),
        (DType::Float16, "Float16", "torch.float16", "Half"),
        (DType::BFloat16, "BFloat16", "torch.bfloat16", "BFloat16"),
        (DType::Float32, "Float32", "torch.float32", "Float"),
        (DType::Float64, "Float64", "torch.float64", "Double"),
    ];
    assert_eq!(names.len(), DType::ALL.len());
    for (d, shown, torch, pytorch_message_name) in names {
        assert_eq!(format!("{d}"), shown);
        assert_eq!(format!("{d:?}"), shown);
        assert_eq!(d.torch_name(), torch);
        // The library's (PyTorch's) name, as its messages print it.
        assert_eq!(d.name(), pytorch_message_name);
    }
}

#[test]
fn binding_messages_name_both_dtypes_and_library_messages_stay_pytorchs() {
    let t = Tensor::from_slice(&[1.0f64, 2.0], &[2]).unwrap();
    let e = t.to_vec::<i32>().unwrap_err();
    assert_eq!(
        e.message,
        "expected a tensor of dtype Int32 (torch.int32) but got Float64 (torch.float64)"
    );
    let i = Tensor::from_slice(&[1i64, 2], &[2]).unwrap();
    let e = i.hypot(&i).unwrap_err();
    assert_eq!(e.message, "\"hypot_cpu\" not implemented for 'Long'");
}

#[test]
fn shapes_are_i64_or_usize() {
    let n: usize = 3;
    let rows: i64 = 2;
    let from_usize = Tensor::zeros(DType::Float32, &[rows as usize, n]).unwrap();
    let from_i64 = Tensor::zeros(DType::Float32, &[rows, 3]).unwrap();
    let from_literals = Tensor::zeros(DType::Float32, &[2, 3]).unwrap();
    let from_vec = Tensor::zeros(DType::Float32, &vec![2usize, 3]).unwrap();
    let from_slice = Tensor::zeros(DType::Float32, &[2usize, 3][..]).unwrap();
    let from_shape = Tensor::zeros(DType::Float32, from_i64.shape()).unwrap();
    for t in [
        &from_usize,
        &from_literals,
        &from_vec,
        &from_slice,
        &from_shape,
    ] {
        assert_eq!(t.shape(), &[2, 3]);
    }
    assert_eq!(Tensor::zeros(DType::Float32, &[]).unwrap().ndim(), 0);

    // numel() is usize: a shape made from it goes straight back in.
    let flat = Tensor::from_slice(&[1u8, 2, 3, 4, 5, 6], &[from_usize.numel()]).unwrap();
    let data: Vec<f32> = (0..6).map(|v| v as f32).collect();
    let m = Tensor::from_vec(data, &[2usize, 3]).unwrap();
    assert_eq!(flat.shape(), &[6]);
    assert_eq!(m.expand(&[4usize, 2, 3]).unwrap().shape(), &[4, 2, 3]);
    assert_eq!(m.sum_to_shape(&[1usize, 3]).unwrap().shape(), &[1, 3]);
    assert_eq!(
        m.broadcast_to(&vec![2i64, 2, 3]).unwrap().shape(),
        &[2, 2, 3]
    );
    assert_eq!(broadcast_shapes(&[3usize, 1], &[4i64]).unwrap(), [3, 4]);

    let e = Tensor::zeros(DType::Float32, &[usize::MAX]).unwrap_err();
    assert_eq!(e.code, ErrorCode::Overflow);
    // A negative size reaches the library, which refuses it in its words.
    let e = Tensor::zeros(DType::Float32, &[-1]).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidArgument);
}
