package bcast

import (
	"math"
	"strings"
	"testing"
)

// Unary ops: a handful against the math package (1 ulp for the
// transcendentals, exact for the rest), parameters, errors, the Out and
// InPlace forms, To, and the Context forms.

const negBoolMessage = "Negation, the `-` operator, on a bool tensor is not supported. " +
	"If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."

// ulps64 is the distance in units in the last place between a and b (0 for
// two NaNs).
func ulps64(a, b float64) uint64 {
	if math.IsNaN(a) && math.IsNaN(b) || a == b {
		return 0
	}
	key := func(x float64) int64 {
		i := int64(math.Float64bits(x))
		if i < 0 {
			return math.MinInt64 - i
		}
		return i
	}
	d := key(a) - key(b)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

func ulps32(a, b float32) uint64 {
	if a != a && b != b || a == b {
		return 0
	}
	key := func(x float32) int64 {
		i := int32(math.Float32bits(x))
		if i < 0 {
			return int64(math.MinInt32) - int64(i)
		}
		return int64(i)
	}
	d := key(a) - key(b)
	if d < 0 {
		d = -d
	}
	return uint64(d)
}

func unaryInputs() []float64 {
	var v []float64
	for i := 0; i <= 96; i++ {
		v = append(v, -8+float64(i)*(16.0/96))
	}
	return append(v, 0, math.Copysign(0, -1), 1e-300, -1e-300, 0.5, 1, 2, 700, -745)
}

// The math functions that are themselves within an ulp (Log2, Log10 and
// Sinh are not: they are a few ulps off; Rust's tests check those against
// the C library's).
var unaryReferences = []struct {
	op UnaryOp
	f  func(float64) float64
}{
	{UnaryExp, math.Exp}, {UnaryExpm1, math.Expm1}, {UnaryLog, math.Log},
	{UnaryLog1p, math.Log1p}, {UnarySin, math.Sin}, {UnaryCos, math.Cos}, {UnaryTanh, math.Tanh},
	{UnaryAtan, math.Atan}, {UnarySqrt, math.Sqrt},
}

func TestUnaryTranscendentalsWithinOneUlp(t *testing.T) {
	xs := unaryInputs()
	x := must(FromFloat64s(xs, int64(len(xs))))(t)
	var xs32 []float32
	for _, v := range xs {
		if math.Abs(v) < 80 {
			xs32 = append(xs32, float32(v))
		}
	}
	x32 := must(FromFloat32s(xs32, int64(len(xs32))))(t)
	closeAll(t, x, x32)
	for _, r := range unaryReferences {
		got := must(Unary(r.op, x))(t)
		if got.DType() != Float64 {
			t.Fatalf("%v: dtype %v", r.op, got.DType())
		}
		for i, g := range must(got.Float64s())(t) {
			if want := r.f(xs[i]); ulps64(g, want) > 1 {
				t.Errorf("%v(%g): got %g, math %g", r.op, xs[i], g, want)
			}
		}
		got.Close()
		got32 := must(Unary(r.op, x32))(t)
		for i, g := range must(got32.Float32s())(t) {
			// The float64 result rounded once: within half an ulp of float32's.
			if want := float32(r.f(float64(xs32[i]))); ulps32(g, want) > 1 {
				t.Errorf("%v(%g) float32: got %g, math %g", r.op, xs32[i], g, want)
			}
		}
		got32.Close()
	}
}

func TestUnaryNamedFunctions(t *testing.T) {
	x := must(FromFloat64s([]float64{0.25, 1.5, 3}, 3))(t)
	i := must(FromInt32s([]int32{1, 4, 9}, 3))(t)
	closeAll(t, x, i)
	a := must(Exp(x))(t)
	b := must(Unary(UnaryExp, x))(t)
	s := must(Sqrt(i))(t)
	closeAll(t, a, b, s)
	wantFloats(t, must(a.Float64s())(t), must(b.Float64s())(t))
	if s.DType() != Float32 {
		t.Fatalf("sqrt of int32: %v, want Float32", s.DType())
	}
	wantFloats(t, must(s.Float32s())(t), []float32{1, 2, 3})
}

func TestUnaryExactOps(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	xs := []float32{-2.5, float32(math.Copysign(0, -1)), 0, 1.5, 2.5, -7.75, inf, nan}
	x := must(FromFloat32s(xs, 8))(t)
	closeAll(t, x)
	check := func(op UnaryOp, f func(float64) float64) {
		t.Helper()
		got := must(Unary(op, x))(t)
		defer got.Close()
		want := make([]float32, len(xs))
		for i, v := range xs {
			want[i] = float32(f(float64(v)))
		}
		wantFloats(t, must(got.Float32s())(t), want)
	}
	check(UnaryNeg, func(v float64) float64 { return -v })
	check(UnaryAbs, math.Abs)
	check(UnaryFloor, math.Floor)
	check(UnaryCeil, math.Ceil)
	check(UnaryTrunc, math.Trunc)
	check(UnaryRound, math.RoundToEven)

	isnan := must(Isnan(x))(t)
	signbit := must(Signbit(x))(t)
	closeAll(t, isnan, signbit)
	if isnan.DType() != Bool {
		t.Fatalf("isnan: %v, want Bool", isnan.DType())
	}
	wantNaN, wantSign := make([]bool, len(xs)), make([]bool, len(xs))
	for i, v := range xs {
		wantNaN[i], wantSign[i] = v != v, math.Signbit(float64(v))
	}
	wantEqual(t, must(isnan.Bools())(t), wantNaN)
	wantEqual(t, must(signbit.Bools())(t), wantSign)

	// Integers keep their dtype; the most negative stays as it is under abs.
	i := must(FromInt32s([]int32{math.MinInt32, -3, 0, 5}, 4))(t)
	ab, ng, fl := must(Abs(i))(t), must(Neg(i))(t), must(Floor(i))(t)
	closeAll(t, i, ab, ng, fl)
	wantEqual(t, must(ab.Int32s())(t), []int32{math.MinInt32, 3, 0, 5})
	wantEqual(t, must(ng.Int32s())(t), []int32{math.MinInt32, 3, 0, -5})
	wantEqual(t, must(fl.Int32s())(t), []int32{math.MinInt32, -3, 0, 5})
}

func TestUnaryParameters(t *testing.T) {
	xs := []float32{-3, -0.5, 0, 2}
	x := must(FromFloat32s(xs, 4))(t)
	closeAll(t, x)
	leaky := func(slope float32) []float32 {
		out := make([]float32, len(xs))
		for i, v := range xs {
			out[i] = v
			if v <= 0 {
				out[i] = v * slope
			}
		}
		return out
	}
	def := must(LeakyRelu(x))(t)
	p := must(UnaryWith(UnaryLeakyRelu, x, Param(0.2)))(t)
	d := must(UnaryWith(UnaryLeakyRelu, x, DefaultParam))(t)
	closeAll(t, def, p, d)
	wantFloats(t, must(def.Float32s())(t), leaky(float32(0.01)))
	wantFloats(t, must(p.Float32s())(t), leaky(float32(0.2)))
	wantFloats(t, must(d.Float32s())(t), leaky(float32(0.01)))

	// softplus(y, beta=2, threshold=5) in float64.
	ys := []float64{-4, -1, 0, 0.5, 2, 2.5, 3, 10}
	y := must(FromFloat64s(ys, 8))(t)
	sp := must(UnaryWith(UnarySoftplus, y, Param(2), Param(5)))(t)
	closeAll(t, y, sp)
	for i, g := range must(sp.Float64s())(t) {
		v := ys[i]
		if 2*v > 5 {
			if g != v {
				t.Errorf("softplus(%g) above the threshold: %g", v, g)
			}
		} else if want := math.Log1p(math.Exp(2*v)) / 2; ulps64(g, want) > 4 {
			t.Errorf("softplus(%g): got %g, want %g", v, g, want)
		}
	}

	// nan_to_num(posinf=100): nan keeps its default 0, neginf the lowest float.
	z := must(FromFloat64s([]float64{math.NaN(), math.Inf(1), math.Inf(-1), 1.5}, 4))(t)
	n := must(UnaryWith(UnaryNanToNum, z, DefaultParam, Param(100)))(t)
	closeAll(t, z, n)
	wantFloats(t, must(n.Float64s())(t), []float64{0, 100, -math.MaxFloat64, 1.5})

	_, err := UnaryWith(UnaryLeakyRelu, x, Param(0.1), Param(0.2))
	wantErr(t, err, ErrInvalidArgument, "leaky_relu() takes 1 parameter, got 2", nil)
	_, err = UnaryWith(UnaryExp, x, Param(1))
	wantErr(t, err, ErrInvalidArgument, "exp() takes 0 parameters, got 1", nil)
	_, err = UnaryWith(UnaryGelu, x, Param(7))
	wantErr(t, err, ErrInvalidArgument, "", nil)
	g := must(UnaryWith(UnaryGelu, x, Param(GeluTanh)))(t)
	g.Close()

	if got := UnarySoftplus.ParamNames(); len(got) != 2 || got[0] != "beta" || got[1] != "threshold" {
		t.Errorf("softplus params: %v", got)
	}
	if UnaryExp.ParamNames() != nil || UnaryOp(NumUnaryOps).ParamNames() != nil {
		t.Error("ParamNames of an op without parameters is not nil")
	}
}

func TestUnaryErrors(t *testing.T) {
	b := must(FromBools([]bool{true, false}, 2))(t)
	i := must(FromInt64s([]int64{1, 2}, 2))(t)
	f := must(FromFloat32s([]float32{1}, 1))(t)
	out := must(Zeros(Float32, 3))(t)
	closeAll(t, b, i, f, out)
	_, err := Neg(b)
	wantErr(t, err, ErrDtype, negBoolMessage, nil)
	// In place: an integer tensor cannot hold exp's result.
	wantErr(t, ExpInPlace(i), ErrDtype, "", nil)
	wantEqual(t, must(i.Int64s())(t), []int64{1, 2})
	_, err = BitwiseNot(f)
	wantErr(t, err, ErrDtype, "", nil)
	if !strings.Contains(err.Error(), "'Float'") {
		t.Errorf("bitwise_not of float32: %q", err)
	}
	wantErr(t, ExpOut(f, out), ErrShapeMismatch, "", nil)
	_, err = Exp(nil)
	if err == nil {
		t.Error("Exp(nil) succeeded")
	}
	closed := must(FromFloat32s([]float32{1}, 1))(t)
	closed.Close()
	_, err = Exp(closed)
	wantErr(t, err, ErrInvalidArgument, "use of closed Tensor", nil)
}

func TestUnaryInPlace(t *testing.T) {
	xs := []float64{0.5, -1.25, 3}
	x := must(FromFloat64s(xs, 3))(t)
	y := must(FromInt32s([]int32{-3, 4}, 2))(t)
	z := must(FromFloat32s([]float32{-3, 4}, 2))(t)
	closeAll(t, x, y, z)
	ok(t, ExpInPlace(x))
	for i, g := range must(x.Float64s())(t) {
		if want := math.Exp(xs[i]); ulps64(g, want) > 1 {
			t.Errorf("exp_(%g): %g, want %g", xs[i], g, want)
		}
	}
	ok(t, NegInPlace(y))
	wantEqual(t, must(y.Int32s())(t), []int32{3, -4})
	ok(t, UnaryInPlace(UnaryAbs, y))
	wantEqual(t, must(y.Int32s())(t), []int32{3, 4})
	ok(t, UnaryWithInPlace(UnaryLeakyRelu, z, Param(0.5)))
	wantFloats(t, must(z.Float32s())(t), []float32{-1.5, 4})
	ok(t, UnaryWithInPlace(UnaryHardtanh, z, Param(-1), Param(2)))
	wantFloats(t, must(z.Float32s())(t), []float32{-1, 2})
}

func TestUnaryOut(t *testing.T) {
	i := must(FromInt32s([]int32{1, 4, 2}, 3))(t)
	f64 := must(Zeros(Float64, 3))(t)
	i64 := must(Zeros(Int64, 3))(t)
	i32 := must(Zeros(Int32, 3))(t)
	closeAll(t, i, f64, i64, i32)
	// An int32 input's sqrt written into a Float64 out.
	ok(t, SqrtOut(i, f64))
	wantFloats(t, must(f64.Float64s())(t), []float64{1, 2, float64(float32(math.Sqrt(2)))})
	// neg keeps the dtype: an out of another dtype is refused.
	wantErr(t, NegOut(i, i64), ErrDtype, "", nil)
	ok(t, UnaryOut(UnaryNeg, i, i32))
	wantEqual(t, must(i32.Int32s())(t), []int32{-1, -4, -2})

	f := must(FromFloat32s([]float32{-2, 2}, 2))(t)
	o := must(Zeros(Float32, 2))(t)
	s := must(FromFloat32s([]float32{-1.5}))(t) // 0-dim
	o4 := must(Zeros(Float32))(t)
	bo := must(Zeros(Bool, 2))(t)
	n := must(FromFloat32s([]float32{float32(math.NaN()), 0}, 2))(t)
	closeAll(t, f, o, s, o4, bo, n)
	ok(t, UnaryWithOut(UnaryElu, f, o, Param(0)))
	wantEqual(t, must(o.Float32s())(t), []float32{0, 2})
	ok(t, AbsOut(s, o4))
	wantFloats(t, must(o4.Float32s())(t), []float32{1.5})
	ok(t, IsnanOut(n, bo))
	wantEqual(t, must(bo.Bools())(t), []bool{true, false})
}

func TestUnaryTo(t *testing.T) {
	f := must(FromFloat32s([]float32{1.5, -2.5, 300}, 3))(t)
	i := must(To(f, Int32))(t)
	d := must(f.To(Float64))(t)
	b := must(Default().To(f, Bool))(t)
	same := must(To(f, Float32))(t)
	closeAll(t, f, i, d, b, same)
	wantEqual(t, must(i.Int32s())(t), []int32{1, -2, 300})
	wantFloats(t, must(d.Float64s())(t), []float64{1.5, -2.5, 300})
	wantEqual(t, must(b.Bools())(t), []bool{true, true, true})
	// The same dtype is a copy, never an alias.
	ok(t, MulInPlace(same, must(FromFloat32s([]float32{0}))(t)))
	wantFloats(t, must(f.Float32s())(t), []float32{1.5, -2.5, 300})
	// An expanded view converts to a contiguous tensor.
	col := must(FromInt64s([]int64{1, 2}, 2, 1))(t)
	v := must(col.Expand(2, 3))(t)
	c := must(To(v, Float32))(t)
	closeAll(t, col, v, c)
	if !c.IsContiguous() {
		t.Error("To of a view is not contiguous")
	}
	wantFloats(t, must(c.Float32s())(t), []float32{1, 1, 1, 2, 2, 2})
}

func TestUnaryContextForms(t *testing.T) {
	c := NewContext()
	defer c.Close()
	x := must(c.FromFloat64s([]float64{0, 1}, 2))(t)
	e := must(c.Exp(x))(t)
	n := must(c.Unary(UnaryNeg, x))(t)
	h := must(c.UnaryWith(UnaryHardtanh, x, Param(0.5), Param(0.75)))(t)
	out := must(c.Zeros(Float64, 2))(t)
	y := must(c.FromFloat64s([]float64{-2, 2}, 2))(t)
	b := must(c.FromBools([]bool{true}, 1))(t)
	closeAll(t, x, e, n, h, out, y, b)
	wantFloats(t, must(e.Float64s())(t), []float64{1, math.E})
	wantFloats(t, must(n.Float64s())(t), []float64{math.Copysign(0, -1), -1})
	wantFloats(t, must(h.Float64s())(t), []float64{0.5, 0.75})
	ok(t, c.AbsOut(x, out))
	wantFloats(t, must(out.Float64s())(t), []float64{0, 1})
	ok(t, c.ReluInPlace(y))
	wantFloats(t, must(y.Float64s())(t), []float64{0, 2})
	_, err := c.Neg(b)
	wantErr(t, err, ErrDtype, negBoolMessage, nil)
	i := must(c.To(x, Int8))(t)
	defer i.Close()
	if i.DType() != Int8 {
		t.Errorf("To Int8: %v", i.DType())
	}
}

func TestUnaryNamesMatchTheLibrary(t *testing.T) {
	for op := UnaryOp(-1); op <= NumUnaryOps; op++ {
		if got, want := op.String(), cUnaryOpName(op); got != want {
			t.Errorf("UnaryOp(%d): %q, C says %q", op, got, want)
		}
	}
	if UnaryLeakyRelu.String() != "leaky_relu" {
		t.Errorf("UnaryLeakyRelu is %q", UnaryLeakyRelu)
	}
}
