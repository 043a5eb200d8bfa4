package bcast

import (
	"errors"
	"testing"
)

func TestBroadcastShapesN(t *testing.T) {
	got := must(BroadcastShapesN([]int64{5, 1, 4, 1}, []int64{3, 1, 1}, []int64{1, 4, 2}))(t)
	wantEqual(t, got, []int64{5, 3, 4, 2})
	got = must(BroadcastShapesN())(t)
	wantEqual(t, got, []int64{})
	got = must(BroadcastShapesN([]int64{}, []int64{2, 0}))(t)
	wantEqual(t, got, []int64{2, 0})
	got = must(BroadcastShapesN([]int64{7}))(t)
	wantEqual(t, got, []int64{7})
	// PyTorch 2.x's torch.broadcast_shapes texts.
	_, err := BroadcastShapesN([]int64{5, 2, 4, 1}, []int64{3, 1, 1})
	wantErr(t, err, ErrNotBroadcastable, "Attempting to broadcast a dimension of length 3 at -3! Mismatching argument at index 1 had (3, 1, 1); but expected shape should be broadcastable to [5, 2, 4, 1]", nil)
	_, err = BroadcastShapesN([]int64{2}, []int64{1}, []int64{3})
	wantErr(t, err, ErrNotBroadcastable, "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 2 had (3,); but expected shape should be broadcastable to [2]", nil)
	_, err = BroadcastShapesN([]int64{-1})
	wantErr(t, err, ErrInvalidArgument, "", nil)
}

func TestBroadcastShapesAgainstReference(t *testing.T) {
	shapes := [][]int64{{}, {1}, {3}, {0}, {2, 1}, {1, 3}, {2, 3}, {4, 1, 3}, {4, 2, 1}, {1, 1, 1}, {5, 0, 1}}
	for _, a := range shapes {
		for _, b := range shapes {
			want, okRef := refBroadcastShape(a, b)
			got, err := BroadcastShapes(a, b)
			if okRef != (err == nil) {
				t.Fatalf("%v %v: reference ok=%v, got err %v", a, b, okRef, err)
			}
			if err == nil {
				wantEqual(t, got, want)
			} else if !errors.Is(err, ErrNotBroadcastable) {
				t.Fatalf("%v %v: %v", a, b, err)
			}
			gotN, errN := BroadcastShapesN(a, b)
			if (errN == nil) != okRef {
				t.Fatalf("%v %v: N-ary err %v", a, b, errN)
			}
			if errN == nil {
				wantEqual(t, gotN, want)
			}
		}
	}
	_, err := BroadcastShapes([]int64{-2}, []int64{1})
	wantErr(t, err, ErrInvalidArgument, "", nil)
}

func TestExpand(t *testing.T) {
	x := must(FromInt32s([]int32{1, 2, 3}, 3, 1))(t)
	defer x.Close()
	v := must(x.Expand(2, 3, 4))(t)
	defer v.Close()
	wantShape(t, v, 2, 3, 4)
	wantEqual(t, must(v.Strides())(t), []int64{0, 1, 0})
	if v.IsContiguous() {
		t.Error("an expanded view reports contiguous")
	}
	wantEqual(t, must(v.Int32s())(t), []int32{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3})

	// -1 keeps a size.
	w := must(x.Expand(-1, 5))(t)
	defer w.Close()
	wantShape(t, w, 3, 5)

	// The view shares storage: it outlives the handle it came from, and
	// sees writes through another handle.
	base := must(FromFloat32s([]float32{1, 2}, 2))(t)
	e := must(base.Expand(3, 2))(t)
	defer e.Close()
	one := must(FromFloat32s([]float32{10}))(t)
	defer one.Close()
	ok(t, AddInPlace(base, one))
	base.Close()
	wantFloats(t, must(e.Float32s())(t), []float32{11, 12, 11, 12, 11, 12})

	// Writing into an expanded view is refused.
	err := AddInPlace(e, one)
	wantErr(t, err, ErrOverlap,
		"unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.", nil)
	out := must(x.Expand(3, 4))(t)
	y := must(Zeros(Int32, 3, 4))(t)
	closeAll(t, out, y)
	err = AddOut(y, x, out)
	wantErr(t, err, ErrOverlap,
		"unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.", nil)
}

func TestExpandErrors(t *testing.T) {
	x := must(Zeros(Float32, 3, 1, 7))(t)
	defer x.Close()
	_, err := x.Expand(3, 3, 1)
	wantErr(t, err, ErrShapeMismatch,
		"The expanded size of the tensor (1) must match the existing size (7) at non-singleton dimension 2.  Target sizes: [3, 3, 1].  Tensor sizes: [3, 1, 7]",
		&Detail{Dim: 2, SizeA: 1, SizeB: 7})
	_, err = x.Expand(1, 3)
	wantErr(t, err, ErrShapeMismatch,
		"expand(torch.FloatTensor{[3, 1, 7]}, size=[1, 3]): the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (3)", nil)
	lead := must(x.Expand(2, 3, 1, 7))(t)
	wantShape(t, lead, 2, 3, 1, 7)
	lead.Close()
	_, err = x.Expand(2, 4, 1, 7)
	wantErr(t, err, ErrShapeMismatch,
		"The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4, 1, 7].  Tensor sizes: [3, 1, 7]",
		&Detail{Dim: 1, SizeA: 4, SizeB: 3})
	l := must(Zeros(Int64, 2))(t)
	defer l.Close()
	_, err = l.Expand()
	wantErr(t, err, ErrShapeMismatch,
		"expand(torch.LongTensor{[2]}, size=[]): the number of sizes provided (0) must be greater or equal to the number of dimensions in the tensor (1)", nil)
}

func TestBroadcastTensors(t *testing.T) {
	a := must(FromFloat64s([]float64{1, 2, 3}, 3, 1))(t)
	b := must(FromFloat64s([]float64{10, 20}, 2))(t)
	c := must(FromFloat64s([]float64{100}))(t)
	closeAll(t, a, b, c)
	vs := must(BroadcastTensors(a, b, c))(t)
	if len(vs) != 3 {
		t.Fatalf("%d views", len(vs))
	}
	defer func() {
		for _, v := range vs {
			v.Close()
		}
	}()
	for _, v := range vs {
		wantShape(t, v, 3, 2)
	}
	wantFloats(t, must(vs[0].Float64s())(t), []float64{1, 1, 2, 2, 3, 3})
	wantFloats(t, must(vs[1].Float64s())(t), []float64{10, 20, 10, 20, 10, 20})
	wantFloats(t, must(vs[2].Float64s())(t), []float64{100, 100, 100, 100, 100, 100})
	wantEqual(t, must(vs[2].Strides())(t), []int64{0, 0})

	none := must(BroadcastTensors())(t)
	if len(none) != 0 {
		t.Fatalf("%d views of nothing", len(none))
	}

	d := must(Zeros(Float64, 4))(t)
	defer d.Close()
	vs2, err := BroadcastTensors(a, b, d)
	if vs2 != nil {
		t.Fatal("views returned with an error")
	}
	wantErr(t, err, ErrNotBroadcastable, "", nil)
}

func TestSumToShape(t *testing.T) {
	x := must(FromFloat32s(iotaF32(6, 1), 2, 3))(t) // [[1 2 3] [4 5 6]]
	defer x.Close()
	cases := []struct {
		shape []int64
		want  []float32
	}{
		{[]int64{1, 3}, []float32{5, 7, 9}},
		{[]int64{3}, []float32{5, 7, 9}},
		{[]int64{2, 1}, []float32{6, 15}},
		{[]int64{1, 1}, []float32{21}},
		{[]int64{}, []float32{21}},
		{[]int64{2, 3}, []float32{1, 2, 3, 4, 5, 6}},
	}
	for _, c := range cases {
		s := must(x.SumToShape(c.shape...))(t)
		wantShape(t, s, c.shape...)
		if s.DType() != Float32 {
			t.Fatalf("dtype %v", s.DType())
		}
		wantFloats(t, must(s.Float32s())(t), c.want)
		s.Close()
	}
	// Integers and Bool sum to Int64, as torch.sum.
	for _, dt := range []DType{Bool, Uint8, Int8, Int16, Int32, Int64} {
		y := must(Zeros(dt, 4, 2))(t)
		one := must(FromBools([]bool{true}))(t)
		ok(t, Copy(y, one))
		s := must(y.SumToShape(2))(t)
		if s.DType() != Int64 {
			t.Errorf("%v sums to %v", dt, s.DType())
		}
		wantEqual(t, must(s.Int64s())(t), []int64{4, 4})
		s.Close()
		y.Close()
		one.Close()
	}
	// Sums of an expanded view count each broadcast element.
	e := must(x.Expand(4, 2, 3))(t)
	defer e.Close()
	s := must(e.SumToShape(1))(t)
	defer s.Close()
	wantFloats(t, must(s.Float32s())(t), []float32{84})

	_, err := x.SumToShape(4)
	wantErr(t, err, ErrShapeMismatch, "", nil)
	_, err = x.SumToShape(2, 2, 3)
	if err == nil {
		t.Fatal("a shape with more dimensions than the tensor was accepted")
	}
}
