package bcast

import (
	"testing"
)

// Every example of the broadcasting notes (shared/reference), with its
// values and its error text.

const (
	msgBroadcastWarning = "self and other do not have the same shape, but are broadcastable, and have the same number of elements. Changing behavior in a backwards incompatible manner to broadcasting rather than viewing as 1-dimensional."
	msgLegacyPointwise  = "other is not broadcastable to self, but they have the same number of elements. Falling back to deprecated pointwise behavior."
)

// addCase adds iota tensors of two shapes and checks the result against the
// naive reference.
func addCase(t *testing.T, sa, sb []int64, want []int64) {
	t.Helper()
	av, bv := iotaF32(numel(sa), 1), iotaF32(numel(sb), 100)
	a := must(FromFloat32s(av, sa...))(t)
	b := must(FromFloat32s(bv, sb...))(t)
	closeAll(t, a, b)
	c := must(Add(a, b))(t)
	defer c.Close()
	wantShape(t, c, want...)
	if c.DType() != Float32 {
		t.Fatalf("dtype %v", c.DType())
	}
	ref, so := refBinary(av, sa, bv, sb, func(x, y float32) float32 { return x + y })
	wantShape(t, c, so...)
	wantFloats(t, must(c.Float32s())(t), ref)
}

func TestReferenceSameShapes(t *testing.T) {
	// x=torch.empty(5,7,3); y=torch.empty(5,7,3): same shapes always broadcast.
	addCase(t, []int64{5, 7, 3}, []int64{5, 7, 3}, []int64{5, 7, 3})
}

func TestReferenceEmptyIsNotBroadcastable(t *testing.T) {
	// x=torch.empty((0,)); y=torch.empty(2,2): 0 against 2 fails.
	x := must(FromFloat32s(nil, 0))(t)
	y := must(Zeros(Float32, 2, 2))(t)
	closeAll(t, x, y)
	_, err := Add(x, y)
	wantErr(t, err, ErrNotBroadcastable,
		"The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 1",
		&Detail{Dim: 1, SizeA: 0, SizeB: 2})
	_, err = BroadcastShapes([]int64{0}, []int64{2, 2})
	wantErr(t, err, ErrNotBroadcastable,
		"The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 1",
		&Detail{Dim: 1, SizeA: 0, SizeB: 2})
}

func TestReferenceTrailingDimensionsLineUp(t *testing.T) {
	// x=torch.empty(5,3,4,1); y=torch.empty(3,1,1): broadcastable.
	addCase(t, []int64{5, 3, 4, 1}, []int64{3, 1, 1}, []int64{5, 3, 4, 1})
}

func TestReferenceThirdTrailingDimensionDiffers(t *testing.T) {
	// x=torch.empty(5,2,4,1); y=torch.empty(3,1,1): 2 != 3.
	x := must(Zeros(Float32, 5, 2, 4, 1))(t)
	y := must(Zeros(Float32, 3, 1, 1))(t)
	closeAll(t, x, y)
	msg := "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
	det := &Detail{Dim: 1, SizeA: 2, SizeB: 3}
	_, err := Add(x, y)
	wantErr(t, err, ErrNotBroadcastable, msg, det)
	_, err = BroadcastShapes(x.Shape(), y.Shape())
	wantErr(t, err, ErrNotBroadcastable, msg, det)
	// The operands swapped: tensor a is now y.
	_, err = Add(y, x)
	wantErr(t, err, ErrNotBroadcastable,
		"The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1",
		&Detail{Dim: 1, SizeA: 3, SizeB: 2})
}

func TestReferenceResultSize(t *testing.T) {
	// x=torch.empty(5,1,4,1); y=torch.empty(3,1,1); (x+y).size() == [5, 3, 4, 1]
	addCase(t, []int64{5, 1, 4, 1}, []int64{3, 1, 1}, []int64{5, 3, 4, 1})
	// x=torch.empty(1); y=torch.empty(3,1,7); (x+y).size() == [3, 1, 7]
	addCase(t, []int64{1}, []int64{3, 1, 7}, []int64{3, 1, 7})
	got := must(BroadcastShapes([]int64{5, 1, 4, 1}, []int64{3, 1, 1}))(t)
	wantEqual(t, got, []int64{5, 3, 4, 1})
	got = must(BroadcastShapes([]int64{1}, []int64{3, 1, 7}))(t)
	wantEqual(t, got, []int64{3, 1, 7})
}

func TestReferenceInPlaceKeepsShape(t *testing.T) {
	// x=torch.empty(5,3,4,1); y=torch.empty(3,1,1); x.add_(y).size() == [5, 3, 4, 1]
	sx, sy := []int64{5, 3, 4, 1}, []int64{3, 1, 1}
	xv, yv := iotaF32(60, 0), iotaF32(3, 1000)
	x := must(FromFloat32s(xv, sx...))(t)
	y := must(FromFloat32s(yv, sy...))(t)
	closeAll(t, x, y)
	ok(t, AddInPlace(x, y))
	wantShape(t, x, sx...)
	ref, _ := refBinary(xv, sx, yv, sy, func(a, b float32) float32 { return a + b })
	wantFloats(t, must(x.Float32s())(t), ref)
}

func TestReferenceInPlaceCannotGrow(t *testing.T) {
	// x=torch.empty(1,3,1); y=torch.empty(3,1,7); x.add_(y) fails.
	resetSettings(t)
	xv := []float32{1, 2, 3}
	x := must(FromFloat32s(xv, 1, 3, 1))(t)
	y := must(Zeros(Float32, 3, 1, 7))(t)
	closeAll(t, x, y)
	err := AddInPlace(x, y)
	wantErr(t, err, ErrShapeMismatch,
		"output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]", nil)
	wantFloats(t, must(x.Float32s())(t), xv) // nothing written

	// The notes' older wording, under the legacy mode.
	SetLegacyPointwise(true)
	err = AddInPlace(x, y)
	wantErr(t, err, ErrShapeMismatch,
		"The expanded size of the tensor (1) must match the existing size (7) at non-singleton dimension 2.  Target sizes: [1, 3, 1].  Tensor sizes: [3, 1, 7]",
		&Detail{Dim: 2, SizeA: 1, SizeB: 7})
	wantFloats(t, must(x.Float32s())(t), xv)

	// The same shapes through the out= form.
	SetLegacyPointwise(false)
	err = AddOut(x, y, x)
	wantErr(t, err, ErrShapeMismatch,
		"output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]", nil)
}

func TestReferenceBackwardsIncompatibleBroadcast(t *testing.T) {
	// torch.add(torch.ones(4,1), torch.randn(4)) is [4, 4], not [4, 1].
	bv := []float32{0.5, -1.25, 3, 7}
	a := must(FromFloat32s([]float32{1, 1, 1, 1}, 4, 1))(t)
	b := must(FromFloat32s(bv, 4))(t)
	closeAll(t, a, b)
	c := must(Add(a, b))(t)
	defer c.Close()
	wantShape(t, c, 4, 4)
	var want []float32
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			want = append(want, 1+bv[j])
		}
	}
	wantFloats(t, must(c.Float32s())(t), want)
}

func TestReferenceBroadcastWarning(t *testing.T) {
	// torch.utils.backcompat.broadcast_warning.enabled=True
	// torch.add(torch.ones(4,1), torch.ones(4)) warns, and still broadcasts.
	warnings := collectWarnings(t)
	a := must(FromFloat32s([]float32{1, 1, 1, 1}, 4, 1))(t)
	b := must(FromFloat32s([]float32{1, 1, 1, 1}, 4))(t)
	closeAll(t, a, b)

	c := must(Add(a, b))(t) // off by default: no warning
	c.Close()
	if w := warnings(); len(w) != 0 {
		t.Fatalf("warnings with the warning off: %q", w)
	}

	SetBroadcastWarning(true)
	if !BroadcastWarning() {
		t.Fatal("BroadcastWarning() false after SetBroadcastWarning(true)")
	}
	c = must(Add(a, b))(t)
	defer c.Close()
	wantShape(t, c, 4, 4)
	want := make([]float32, 16)
	for i := range want {
		want[i] = 2
	}
	wantFloats(t, must(c.Float32s())(t), want)
	wantEqual(t, warnings(), []string{msgBroadcastWarning})

	// Same shapes, or different element counts: no warning.
	d := must(Add(a, a))(t)
	d.Close()
	e := must(Zeros(Float32, 3))(t)
	defer e.Close()
	f := must(Add(a, e))(t)
	f.Close()
	if w := warnings(); len(w) != 0 {
		t.Fatalf("unexpected warnings: %q", w)
	}
}

func TestReferenceLegacyPointwise(t *testing.T) {
	// Not broadcastable, same number of elements: an error by default, and
	// the deprecated 1-D behaviour with a warning in the legacy mode.
	warnings := collectWarnings(t)
	av, bv := iota64(6, 1), iota64(6, 10)
	a := must(FromFloat64s(av, 2, 3))(t)
	b := must(FromFloat64s(bv, 3, 2))(t)
	closeAll(t, a, b)
	_, err := Add(a, b)
	wantErr(t, err, ErrNotBroadcastable,
		"The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1",
		&Detail{Dim: 1, SizeA: 3, SizeB: 2})

	SetLegacyPointwise(true)
	if !LegacyPointwise() {
		t.Fatal("LegacyPointwise() false after SetLegacyPointwise(true)")
	}
	c := must(Mul(a, b))(t)
	defer c.Close()
	wantShape(t, c, 2, 3)
	want := make([]float64, 6)
	for i := range want {
		want[i] = av[i] * bv[i]
	}
	wantFloats(t, must(c.Float64s())(t), want)
	wantEqual(t, warnings(), []string{msgLegacyPointwise})

	// In place, the result keeps self's shape.
	ok(t, SubInPlace(a, b))
	wantShape(t, a, 2, 3)
	for i := range want {
		want[i] = av[i] - bv[i]
	}
	wantFloats(t, must(a.Float64s())(t), want)
	wantEqual(t, warnings(), []string{msgLegacyPointwise})

	// Different element counts are still an error.
	x := must(Zeros(Float64, 2, 4))(t)
	defer x.Close()
	_, err = Add(a, x)
	wantErr(t, err, ErrNotBroadcastable,
		"The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1", nil)
}

func TestReferenceNotesExample(t *testing.T) {
	// a = torch.tensor([[1], [2], [3]]); b = torch.tensor([[4, 5, 6, 7]]); a + b
	a := must(FromInt64s([]int64{1, 2, 3}, 3, 1))(t)
	b := must(FromInt64s([]int64{4, 5, 6, 7}, 1, 4))(t)
	closeAll(t, a, b)
	c := must(Add(a, b))(t)
	defer c.Close()
	wantShape(t, c, 3, 4)
	if c.DType() != Int64 {
		t.Fatalf("dtype %v, want Long", c.DType())
	}
	wantEqual(t, must(c.Int64s())(t), []int64{5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10})
}

func TestZeroDimBroadcastsWithAnything(t *testing.T) {
	s := must(FromFloat32s([]float32{10}))(t)
	x := must(FromFloat32s(iotaF32(4, 0), 2, 2))(t)
	z := must(FromFloat32s(nil, 0, 3))(t)
	closeAll(t, s, x, z)
	wantShape(t, s)
	if s.NumEl() != 1 || s.NDim() != 0 {
		t.Fatalf("0-dim: numel %d ndim %d", s.NumEl(), s.NDim())
	}
	c := must(Add(x, s))(t)
	defer c.Close()
	wantShape(t, c, 2, 2)
	wantFloats(t, must(c.Float32s())(t), []float32{10, 11, 12, 13})
	d := must(Add(s, z))(t)
	defer d.Close()
	wantShape(t, d, 0, 3)
	if v := must(d.Float32s())(t); len(v) != 0 {
		t.Fatalf("values of an empty tensor: %v", v)
	}
	e := must(Add(s, s))(t)
	defer e.Close()
	wantShape(t, e)
	wantFloats(t, must(e.Float32s())(t), []float32{20})
}

func TestSizeZeroDimensions(t *testing.T) {
	// 0 with 1 gives 0; 0 with 2 fails.
	got := must(BroadcastShapes([]int64{0, 3}, []int64{1, 3}))(t)
	wantEqual(t, got, []int64{0, 3})
	_, err := BroadcastShapes([]int64{0}, []int64{2})
	wantErr(t, err, ErrNotBroadcastable,
		"The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 0",
		&Detail{Dim: 0, SizeA: 0, SizeB: 2})
	a := must(Zeros(Int32, 0, 3))(t)
	b := must(Zeros(Int32, 1, 3))(t)
	closeAll(t, a, b)
	c := must(Mul(a, b))(t)
	defer c.Close()
	wantShape(t, c, 0, 3)
}
