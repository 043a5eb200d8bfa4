package bcast

import (
	"fmt"
	"math"
	"testing"
)

// makeTensor builds a tensor of any dtype from float64 values, converting in
// Go (never through the library).
func makeTensor(t testing.TB, dt DType, v []float64, shape ...int64) *Tensor {
	t.Helper()
	var x *Tensor
	var err error
	switch dt {
	case Bool:
		s := make([]bool, len(v))
		for i := range v {
			s[i] = v[i] != 0
		}
		x, err = FromBools(s, shape...)
	case Uint8:
		x, err = FromUint8s(conv[uint8](v), shape...)
	case Int8:
		x, err = FromInt8s(conv[int8](v), shape...)
	case Int16:
		x, err = FromInt16s(conv[int16](v), shape...)
	case Int32:
		x, err = FromInt32s(conv[int32](v), shape...)
	case Int64:
		x, err = FromInt64s(conv[int64](v), shape...)
	case Float16:
		s := make([]uint16, len(v))
		for i := range v {
			s[i] = F16FromFloat32(float32(v[i]))
		}
		x, err = FromFloat16Bits(s, shape...)
	case BFloat16:
		s := make([]uint16, len(v))
		for i := range v {
			s[i] = BF16FromFloat32(float32(v[i]))
		}
		x, err = FromBFloat16Bits(s, shape...)
	case Float32:
		x, err = FromFloat32s(conv[float32](v), shape...)
	case Float64:
		x, err = FromFloat64s(v, shape...)
	default:
		t.Fatalf("makeTensor: dtype %v", dt)
	}
	if err != nil {
		t.Fatalf("makeTensor(%v): %v", dt, err)
	}
	return x
}

func conv[T int8 | uint8 | int16 | int32 | int64 | float32](v []float64) []T {
	s := make([]T, len(v))
	for i := range v {
		s[i] = T(v[i])
	}
	return s
}

func widen[T int8 | uint8 | int16 | int32 | int64 | float32 | float64](s []T, err error) ([]float64, error) {
	if err != nil {
		return nil, err
	}
	v := make([]float64, len(s))
	for i := range s {
		v[i] = float64(s[i])
	}
	return v, nil
}

// values reads any tensor back as float64 through its typed accessor.
func values(t testing.TB, x *Tensor) []float64 {
	t.Helper()
	var v []float64
	var err error
	switch x.DType() {
	case Bool:
		var b []bool
		b, err = x.Bools()
		for _, e := range b {
			if e {
				v = append(v, 1)
			} else {
				v = append(v, 0)
			}
		}
	case Uint8:
		v, err = widen(x.Uint8s())
	case Int8:
		v, err = widen(x.Int8s())
	case Int16:
		v, err = widen(x.Int16s())
	case Int32:
		v, err = widen(x.Int32s())
	case Int64:
		v, err = widen(x.Int64s())
	case Float16:
		var h []uint16
		h, err = x.Float16Bits()
		for _, e := range h {
			v = append(v, float64(F16ToFloat32(e)))
		}
	case BFloat16:
		var h []uint16
		h, err = x.BFloat16Bits()
		for _, e := range h {
			v = append(v, float64(BF16ToFloat32(e)))
		}
	case Float32:
		v, err = widen(x.Float32s())
	case Float64:
		v, err = x.Float64s()
	}
	if err != nil {
		t.Fatalf("values: %v", err)
	}
	return v
}

func isFloat(dt DType) bool { return dt >= Float16 }

func bitsOf(dt DType) int { return 8 * dt.Size() }

// wrapInt reduces an integer to dt's width, as C's conversions do.
func wrapInt(x int64, dt DType) float64 {
	switch dt {
	case Uint8:
		return float64(uint8(x))
	case Int8:
		return float64(int8(x))
	case Int16:
		return float64(int16(x))
	case Int32:
		return float64(int32(x))
	}
	return float64(x)
}

// roundTo rounds a float64 to dt's precision.
func roundTo(x float64, dt DType) float64 {
	switch dt {
	case Float32:
		return float64(float32(x))
	case Float16:
		return float64(F16ToFloat32(F16FromFloat32(float32(x))))
	case BFloat16:
		return float64(BF16ToFloat32(BF16FromFloat32(float32(x))))
	}
	return x
}

// A reference for one op. f works in float arithmetic, rounding each step
// with r; i works on integers of width bits (unsigned for Uint8).
type refOp struct {
	op       Op
	f        func(a, b float64, r func(float64) float64) float64
	i        func(a, b int64, bits int, unsigned bool) int64
	boolOut  bool // comparisons and logical ops
	intFloat bool // integer operands compute in Float32
	approx   bool // transcendental: compare with a tolerance
	noFloat  bool // bitwise ops and shifts refuse floats
	noInt    bool // hypot refuses integers
}

func id(x float64) float64 { return x }

func floatDivFloor(a, b float64, r func(float64) float64) float64 {
	if b == 0 {
		return a / b
	}
	mod := math.Mod(a, b)
	div := r(r(a-mod) / b)
	if mod != 0 && (b < 0) != (mod < 0) {
		div = r(div - 1)
	}
	if div == 0 {
		return math.Copysign(0, a/b)
	}
	fl := math.Floor(div)
	if div-fl > 0.5 {
		fl++
	}
	return fl
}

func floatRemainder(a, b float64, r func(float64) float64) float64 {
	mod := math.Mod(a, b)
	if mod != 0 && (b < 0) != (mod < 0) {
		mod = r(mod + b)
	}
	return mod
}

func intPow(a, b int64) int64 {
	if b < 0 {
		switch {
		case a == 1:
			return 1
		case a == -1 && b%2 != 0:
			return -1
		case a == -1:
			return 1
		}
		return 0
	}
	p := int64(1)
	for ; b > 0; b-- {
		p *= a
	}
	return p
}

func boolOf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func cmpRef(f func(a, b float64) bool) func(a, b float64, _ func(float64) float64) float64 {
	return func(a, b float64, _ func(float64) float64) float64 { return boolOf(f(a, b)) }
}

func cmpInt(f func(a, b float64) bool) func(a, b int64, _ int, _ bool) int64 {
	return func(a, b int64, _ int, _ bool) int64 { return int64(boolOf(f(float64(a), float64(b)))) }
}

var refOps = []refOp{
	{op: OpAdd, f: func(a, b float64, r func(float64) float64) float64 { return a + b },
		i: func(a, b int64, _ int, _ bool) int64 { return a + b }},
	{op: OpSub, f: func(a, b float64, r func(float64) float64) float64 { return a - b },
		i: func(a, b int64, _ int, _ bool) int64 { return a - b }},
	{op: OpMul, f: func(a, b float64, r func(float64) float64) float64 { return a * b },
		i: func(a, b int64, _ int, _ bool) int64 { return a * b }},
	{op: OpDiv, f: func(a, b float64, r func(float64) float64) float64 { return a / b }, intFloat: true},
	{op: OpDivTrunc, f: func(a, b float64, r func(float64) float64) float64 { return math.Trunc(r(a / b)) },
		i: func(a, b int64, _ int, _ bool) int64 { return a / b }},
	{op: OpDivFloor, f: floatDivFloor,
		i: func(a, b int64, _ int, _ bool) int64 {
			q := a / b
			if a%b != 0 && (a < 0) != (b < 0) {
				q--
			}
			return q
		}},
	{op: OpRemainder, f: floatRemainder,
		i: func(a, b int64, _ int, _ bool) int64 {
			m := a % b
			if m != 0 && (m < 0) != (b < 0) {
				m += b
			}
			return m
		}},
	{op: OpFmod, f: func(a, b float64, r func(float64) float64) float64 { return math.Mod(a, b) },
		i: func(a, b int64, _ int, _ bool) int64 { return a % b }},
	{op: OpPow, f: func(a, b float64, r func(float64) float64) float64 { return math.Pow(a, b) },
		i: func(a, b int64, _ int, _ bool) int64 { return intPow(a, b) }, approx: true},
	{op: OpMaximum, f: func(a, b float64, r func(float64) float64) float64 {
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		return math.Max(a, b)
	}, i: func(a, b int64, _ int, _ bool) int64 { return max(a, b) }},
	{op: OpMinimum, f: func(a, b float64, r func(float64) float64) float64 {
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		return math.Min(a, b)
	}, i: func(a, b int64, _ int, _ bool) int64 { return min(a, b) }},
	{op: OpFmax, f: func(a, b float64, r func(float64) float64) float64 {
		if math.IsNaN(a) {
			return b
		}
		if math.IsNaN(b) {
			return a
		}
		return math.Max(a, b)
	}, i: func(a, b int64, _ int, _ bool) int64 { return max(a, b) }},
	{op: OpFmin, f: func(a, b float64, r func(float64) float64) float64 {
		if math.IsNaN(a) {
			return b
		}
		if math.IsNaN(b) {
			return a
		}
		return math.Min(a, b)
	}, i: func(a, b int64, _ int, _ bool) int64 { return min(a, b) }},
	{op: OpAtan2, f: func(a, b float64, r func(float64) float64) float64 { return math.Atan2(a, b) },
		intFloat: true, approx: true},
	{op: OpHypot, f: func(a, b float64, r func(float64) float64) float64 { return math.Hypot(a, b) },
		approx: true, noInt: true},
	{op: OpCopysign, f: func(a, b float64, r func(float64) float64) float64 { return math.Copysign(a, b) },
		intFloat: true},
	{op: OpEq, f: cmpRef(func(a, b float64) bool { return a == b }), i: cmpInt(func(a, b float64) bool { return a == b }), boolOut: true},
	{op: OpNe, f: cmpRef(func(a, b float64) bool { return a != b }), i: cmpInt(func(a, b float64) bool { return a != b }), boolOut: true},
	{op: OpLt, f: cmpRef(func(a, b float64) bool { return a < b }), i: cmpInt(func(a, b float64) bool { return a < b }), boolOut: true},
	{op: OpLe, f: cmpRef(func(a, b float64) bool { return a <= b }), i: cmpInt(func(a, b float64) bool { return a <= b }), boolOut: true},
	{op: OpGt, f: cmpRef(func(a, b float64) bool { return a > b }), i: cmpInt(func(a, b float64) bool { return a > b }), boolOut: true},
	{op: OpGe, f: cmpRef(func(a, b float64) bool { return a >= b }), i: cmpInt(func(a, b float64) bool { return a >= b }), boolOut: true},
	{op: OpLogicalAnd, f: cmpRef(func(a, b float64) bool { return a != 0 && b != 0 }), i: cmpInt(func(a, b float64) bool { return a != 0 && b != 0 }), boolOut: true},
	{op: OpLogicalOr, f: cmpRef(func(a, b float64) bool { return a != 0 || b != 0 }), i: cmpInt(func(a, b float64) bool { return a != 0 || b != 0 }), boolOut: true},
	{op: OpLogicalXor, f: cmpRef(func(a, b float64) bool { return (a != 0) != (b != 0) }), i: cmpInt(func(a, b float64) bool { return (a != 0) != (b != 0) }), boolOut: true},
	{op: OpBitwiseAnd, i: func(a, b int64, _ int, _ bool) int64 { return a & b }, noFloat: true},
	{op: OpBitwiseOr, i: func(a, b int64, _ int, _ bool) int64 { return a | b }, noFloat: true},
	{op: OpBitwiseXor, i: func(a, b int64, _ int, _ bool) int64 { return a ^ b }, noFloat: true},
	{op: OpShiftLeft, i: func(a, b int64, bits int, _ bool) int64 {
		if b < 0 || b >= int64(bits) {
			return 0
		}
		return a << b
	}, noFloat: true},
	{op: OpShiftRight, i: func(a, b int64, bits int, unsigned bool) int64 {
		if b < 0 || b >= int64(bits) {
			if a < 0 && !unsigned {
				return -1
			}
			return 0
		}
		return a >> b
	}, noFloat: true},
}

// Operand values: a has shape (2, 4, 1) and b shape (4), so the result is
// (2, 4, 4). Signed values cover signs, zero and (for floats) NaN and zero
// divisors; integer divisors are never zero.
var (
	shapeA, shapeB = []int64{2, 4, 1}, []int64{4}
	floatA         = []float64{-7, -2.5, -1, 0, 1, 2.5, math.NaN(), 8}
	floatB         = []float64{3, -2, 0.5, 0}
	intA           = []float64{-7, -2, -1, 0, 1, 2, 3, 8}
	intB           = []float64{3, -2, 1, 5}
	uintA          = []float64{0, 1, 2, 3, 7, 8, 200, 255}
	uintB          = []float64{3, 9, 1, 5}
)

// expected computes dtype and values of op(a, b) for operands of dtype dt,
// or the error the op must give.
func expected(o refOp, dt DType, av, bv []float64) (DType, []float64, *Error) {
	out := dt
	switch {
	case o.boolOut:
		out = Bool
	case !isFloat(dt) && o.intFloat:
		out = Float32
	}
	if isFloat(dt) && o.noFloat {
		return 0, nil, &Error{Code: ErrDtype}
	}
	if !isFloat(dt) && o.noInt {
		return 0, nil, &Error{Code: ErrDtype, Message: fmt.Sprintf("\"%s_cpu\" not implemented for '%s'", o.op, dt.ScalarTypeName())}
	}
	res, _ := refBinary(av, shapeA, bv, shapeB, func(a, b float64) float64 {
		switch {
		case isFloat(dt):
			// Half types compute in Float32 and round once at the end.
			step := dt
			if dt == Float16 || dt == BFloat16 {
				step = Float32
			}
			v := o.f(a, b, func(x float64) float64 { return roundTo(x, step) })
			if o.boolOut {
				return v
			}
			return roundTo(roundTo(v, step), dt)
		case o.i != nil:
			v := o.i(int64(a), int64(b), bitsOf(dt), dt == Uint8)
			if o.boolOut {
				return float64(v)
			}
			return wrapInt(v, dt)
		default: // integers computed as Float32
			r := func(x float64) float64 { return roundTo(x, Float32) }
			return r(o.f(a, b, r))
		}
	})
	return out, res, nil
}

func closeEnough(got, want float64, approx bool, dt DType) bool {
	if sameFloat(got, want) {
		return true
	}
	if !approx || math.IsNaN(got) || math.IsNaN(want) || math.IsInf(want, 0) {
		return false
	}
	tol := 1e-12
	if dt != Float64 {
		tol = 1e-5
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func checkValues(t *testing.T, what string, got, want []float64, approx bool, dt DType) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !closeEnough(got[i], want[i], approx, dt) {
			t.Fatalf("%s: element %d: got %v, want %v\n got %v\nwant %v", what, i, got[i], want[i], got, want)
		}
	}
}

// TestBinaryOps runs every op on every non-bool dtype in its three forms
// against the references above.
func TestBinaryOps(t *testing.T) {
	dtypes := []DType{Uint8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64}
	for _, o := range refOps {
		for _, dt := range dtypes {
			t.Run(fmt.Sprintf("%v/%v", o.op, dt), func(t *testing.T) {
				av, bv := intA, intB
				switch {
				case isFloat(dt):
					av, bv = floatA, floatB
				case dt == Uint8:
					av, bv = uintA, uintB
				}
				a := makeTensor(t, dt, av, shapeA...)
				b := makeTensor(t, dt, bv, shapeB...)
				closeAll(t, a, b)
				// Inputs as the tensors hold them (rounded for f16/bf16).
				av, bv = values(t, a), values(t, b)
				outDT, want, wantE := expected(o, dt, av, bv)
				approx := o.approx && (isFloat(dt) || o.intFloat)
				if dt == Float16 || dt == BFloat16 {
					approx = approx || o.op == OpPow
				}

				c, err := Binary(o.op, a, b)
				if wantE != nil {
					wantErr(t, err, wantE.Code, wantE.Message, nil)
					return
				}
				ok(t, err)
				defer c.Close()
				wantShape(t, c, 2, 4, 4)
				if c.DType() != outDT {
					t.Fatalf("dtype %v, want %v", c.DType(), outDT)
				}
				checkValues(t, "allocating", values(t, c), want, approx, outDT)

				out := must(Zeros(outDT, 2, 4, 4))(t)
				defer out.Close()
				ok(t, BinaryOut(o.op, a, b, out))
				checkValues(t, "out", values(t, out), want, approx, outDT)

				// In place into a copy of a grown to the broadcast shape.
				grown := must(a.Expand(2, 4, 4))(t)
				self := must(grown.Clone())(t)
				grown.Close()
				defer self.Close()
				err = BinaryInPlace(o.op, self, b)
				if !canCast(outDT, dt) {
					wantErr(t, err, ErrDtype, fmt.Sprintf(
						"result type %s can't be cast to the desired output type %s", outDT.ScalarTypeName(), dt.ScalarTypeName()), nil)
					return
				}
				ok(t, err)
				inPlace := make([]float64, len(want))
				for i, w := range want {
					inPlace[i] = castRef(w, dt)
				}
				checkValues(t, "in place", values(t, self), inPlace, approx, dt)
			})
		}
	}
}

// canCast is PyTorch's can_cast for out= and in-place results.
func canCast(from, to DType) bool {
	kind := func(d DType) int {
		switch {
		case d == Bool:
			return 0
		case isFloat(d):
			return 2
		}
		return 1
	}
	return kind(from) <= kind(to)
}

// castRef converts a reference value to dtype dt the way a C cast does for
// the values used here.
func castRef(v float64, dt DType) float64 {
	switch {
	case dt == Bool:
		return boolOf(v != 0)
	case isFloat(dt):
		return roundTo(v, dt)
	}
	return wrapInt(int64(v), dt)
}

func TestBoolOps(t *testing.T) {
	a := must(FromBools([]bool{false, true, true, false}, 2, 2))(t)
	b := must(FromBools([]bool{true, true}, 2))(t)
	closeAll(t, a, b)
	cases := []struct {
		op   Op
		want []bool
	}{
		{OpLogicalAnd, []bool{false, true, true, false}},
		{OpLogicalOr, []bool{true, true, true, true}},
		{OpLogicalXor, []bool{true, false, false, true}},
		{OpBitwiseAnd, []bool{false, true, true, false}},
		{OpBitwiseOr, []bool{true, true, true, true}},
		{OpBitwiseXor, []bool{true, false, false, true}},
		{OpEq, []bool{false, true, true, false}},
		{OpNe, []bool{true, false, false, true}},
		{OpLt, []bool{true, false, false, true}},
		{OpGe, []bool{false, true, true, false}},
		{OpAdd, []bool{true, true, true, true}},
		{OpMul, []bool{false, true, true, false}},
		{OpMaximum, []bool{true, true, true, true}},
	}
	for _, c := range cases {
		r, err := Binary(c.op, a, b)
		if err != nil {
			t.Errorf("%v: %v", c.op, err)
			continue
		}
		if r.DType() != Bool {
			t.Errorf("%v: dtype %v", c.op, r.DType())
		}
		got := must(r.Bools())(t)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%v: got %v, want %v", c.op, got, c.want)
				break
			}
		}
		r.Close()
	}
	_, err := Sub(a, b)
	wantErr(t, err, ErrDtype, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.", nil)
}

func TestTypePromotion(t *testing.T) {
	cases := []struct {
		a, b   DType
		aShape []int64
		bShape []int64
		op     Op
		want   DType
	}{
		{Uint8, Int8, []int64{2}, []int64{2}, OpAdd, Int16},
		{Float16, BFloat16, []int64{2}, []int64{2}, OpAdd, Float32},
		{Int32, Int64, []int64{2}, []int64{2}, OpMul, Int64},
		{Int32, Float16, []int64{2}, []int64{2}, OpAdd, Float16},
		{Bool, Int8, []int64{2}, []int64{2}, OpAdd, Int8},
		{Bool, Float64, []int64{2}, []int64{2}, OpAdd, Float64},
		{Int64, Int64, []int64{2}, []int64{2}, OpDiv, Float32},
		{Int16, Int16, []int64{2}, []int64{2}, OpAtan2, Float32},
		{Int16, Int16, []int64{2}, []int64{2}, OpCopysign, Float32},
		{Float64, Float64, []int64{2}, []int64{2}, OpLt, Bool},
		{Int8, Int8, []int64{2}, []int64{2}, OpLogicalXor, Bool},
		// 0-dim operands count only when their category is higher.
		{Int32, Float64, []int64{2}, nil, OpAdd, Float64},
		{Float32, Float64, []int64{2}, nil, OpAdd, Float32},
		{Int32, Int64, []int64{2}, nil, OpAdd, Int32},
		{Uint8, Int8, []int64{2}, nil, OpAdd, Uint8},
		{Bool, Int64, []int64{2}, nil, OpAdd, Int64},
		{Float16, Float64, nil, nil, OpAdd, Float64},
		{Float16, Float32, []int64{2}, nil, OpMul, Float16},
	}
	for _, c := range cases {
		a := must(Zeros(c.a, c.aShape...))(t)
		b := ones(t, c.b, c.bShape...)
		r, err := Binary(c.op, a, b)
		if err != nil {
			t.Errorf("%v %v(%v) %v(%v): %v", c.op, c.a, c.aShape, c.b, c.bShape, err)
		} else if r.DType() != c.want {
			t.Errorf("%v %v(%v) %v(%v): dtype %v, want %v", c.op, c.a, c.aShape, c.b, c.bShape, r.DType(), c.want)
		}
		r.Close()
		a.Close()
		b.Close()
	}
}

func ones(t testing.TB, dt DType, shape ...int64) *Tensor {
	v := make([]float64, numel(shape))
	for i := range v {
		v[i] = 1
	}
	return makeTensor(t, dt, v, shape...)
}

func TestIntegerEdgeCases(t *testing.T) {
	// Division by zero: an error, and nothing written.
	a := must(FromInt64s([]int64{1, 2, 3}, 3))(t)
	z := must(FromInt64s([]int64{1, 0, 1}, 3))(t)
	out := must(FromInt64s([]int64{7, 7, 7}, 3))(t)
	closeAll(t, a, z, out)
	for _, op := range []Op{OpDivTrunc, OpDivFloor, OpRemainder, OpFmod} {
		_, err := Binary(op, a, z)
		wantErr(t, err, ErrDivisionByZero, "ZeroDivisionError", nil)
		err = BinaryOut(op, a, z, out)
		wantErr(t, err, ErrDivisionByZero, "ZeroDivisionError", nil)
		wantEqual(t, must(out.Int64s())(t), []int64{7, 7, 7})
		err = BinaryInPlace(op, out, z)
		wantErr(t, err, ErrDivisionByZero, "ZeroDivisionError", nil)
		wantEqual(t, must(out.Int64s())(t), []int64{7, 7, 7})
	}
	// True division of integers by zero is float division.
	d := must(Div(a, z))(t)
	wantFloats(t, must(d.Float32s())(t), []float32{1, float32(math.Inf(1)), 3})
	d.Close()

	// Shifts by the bit width or more, and by negative amounts.
	x := must(FromInt32s([]int32{1, -8, 5, -1}, 4))(t)
	s := must(FromInt32s([]int32{32, 40, -1, 31}, 4))(t)
	closeAll(t, x, s)
	l := must(ShiftLeft(x, s))(t)
	wantEqual(t, must(l.Int32s())(t), []int32{0, 0, 0, math.MinInt32})
	l.Close()
	r := must(ShiftRight(x, s))(t)
	wantEqual(t, must(r.Int32s())(t), []int32{0, -1, 0, -1})
	r.Close()

	// Integer powers with negative exponents.
	base := must(FromInt64s([]int64{1, -1, -1, 2, -2, 0}, 6))(t)
	exp := must(FromInt64s([]int64{-3, -3, -2, -1, -1, 2}, 6))(t)
	closeAll(t, base, exp)
	p := must(Pow(base, exp))(t)
	wantEqual(t, must(p.Int64s())(t), []int64{1, -1, 1, 0, 0, 0})
	p.Close()

	// Wrap-around of 8-bit arithmetic.
	i8 := must(FromInt8s([]int8{127, -128}, 2))(t)
	one := must(FromInt8s([]int8{1}))(t)
	closeAll(t, i8, one)
	w := must(Add(i8, one))(t)
	wantEqual(t, must(w.Int8s())(t), []int8{-128, -127})
	w.Close()
}

func TestHalfPrecisionRoundsOnce(t *testing.T) {
	// 2049 is not a float16; 2048 + 1 rounds to even (2048), 2048 + 3 to 2052.
	a := must(FromFloat16Bits([]uint16{F16FromFloat32(2048), F16FromFloat32(2048), F16FromFloat32(0.1)}, 3))(t)
	b := must(FromFloat16Bits([]uint16{F16FromFloat32(1), F16FromFloat32(3), F16FromFloat32(0.2)}, 3))(t)
	closeAll(t, a, b)
	c := must(Add(a, b))(t)
	defer c.Close()
	got := must(c.Float16Bits())(t)
	want := []uint16{
		F16FromFloat32(2048),
		F16FromFloat32(2052),
		F16FromFloat32(F16ToFloat32(F16FromFloat32(0.1)) + F16ToFloat32(F16FromFloat32(0.2))),
	}
	wantEqual(t, got, want)
}

func TestHalfConversions(t *testing.T) {
	cases := []struct {
		f    float32
		h, b uint16
	}{
		{1, 0x3c00, 0x3f80},
		{-2, 0xc000, 0xc000},
		{65504, 0x7bff, 0x4780},
		{65520, 0x7c00, 0x4780},
		{float32(math.Ldexp(1, -24)), 0x0001, 0x3380},
		{float32(math.Ldexp(1, -25)), 0x0000, 0x3300},
		{float32(math.Ldexp(3, -26)), 0x0001, 0x3340},
		{float32(math.Inf(-1)), 0xfc00, 0xff80},
		{float32(math.Copysign(0, -1)), 0x8000, 0x8000},
		{1 + 1.0/1024 + 1.0/2048, 0x3c02, 0x3f80},
		{1 + 1.0/256, 0x3c04, 0x3f80},
		{1 + 3.0/512, 0x3c06, 0x3f81},
	}
	for _, c := range cases {
		if got := F16FromFloat32(c.f); got != c.h {
			t.Errorf("F16FromFloat32(%g) = %#04x, want %#04x", c.f, got, c.h)
		}
		if got := BF16FromFloat32(c.f); got != c.b {
			t.Errorf("BF16FromFloat32(%g) = %#04x, want %#04x", c.f, got, c.b)
		}
	}
	for h := 0; h < 0x10000; h++ {
		f := F16ToFloat32(uint16(h))
		if math.IsNaN(float64(f)) {
			if F16FromFloat32(f)&0x7c00 != 0x7c00 || F16FromFloat32(f)&0x3ff == 0 {
				t.Fatalf("NaN %#04x does not round-trip as NaN", h)
			}
			continue
		}
		if got := F16FromFloat32(f); got != uint16(h) {
			t.Fatalf("float16 %#04x -> %g -> %#04x", h, f, got)
		}
		if got := BF16FromFloat32(BF16ToFloat32(uint16(h))); got != uint16(h) && !math.IsNaN(float64(BF16ToFloat32(uint16(h)))) {
			t.Fatalf("bfloat16 %#04x does not round-trip", h)
		}
	}
}

func TestAlpha(t *testing.T) {
	a := must(FromFloat64s([]float64{1, 2, 3}, 3))(t)
	b := must(FromFloat64s([]float64{10, 20}, 2, 1))(t)
	closeAll(t, a, b)
	c := must(AddAlpha(a, b, 0.5))(t)
	wantFloats(t, must(c.Float64s())(t), []float64{6, 7, 8, 11, 12, 13})
	c.Close()
	c = must(SubAlpha(a, b, 2))(t)
	wantFloats(t, must(c.Float64s())(t), []float64{-19, -18, -17, -39, -38, -37})
	out := must(Zeros(Float64, 2, 3))(t)
	defer out.Close()
	ok(t, AddAlphaOut(a, b, -1, out))
	wantFloats(t, must(out.Float64s())(t), []float64{-9, -8, -7, -19, -18, -17})
	ok(t, SubAlphaInPlace(out, a, 3))
	wantFloats(t, must(out.Float64s())(t), []float64{-12, -14, -16, -22, -24, -26})
	ok(t, AddAlphaInPlace(out, out, 1))
	wantFloats(t, must(out.Float64s())(t), []float64{-24, -28, -32, -44, -48, -52})
	c.Close()

	_, err := BinaryAlpha(OpMul, a, b, 2)
	wantErr(t, err, ErrInvalidArgument, "", nil)
	i := must(FromInt32s([]int32{1, 2}, 2))(t)
	defer i.Close()
	_, err = AddAlpha(i, i, 0.5)
	wantErr(t, err, ErrInvalidArgument, "", nil)
	k := must(AddAlpha(i, i, 3))(t)
	wantEqual(t, must(k.Int32s())(t), []int32{4, 8})
	k.Close()
}

func TestTernaryOps(t *testing.T) {
	cond := must(FromBools([]bool{true, false, true}, 3, 1))(t)
	a := must(FromFloat32s([]float32{1, 2, 3, 4}, 1, 4))(t)
	b := must(FromFloat32s([]float32{-1}))(t)
	closeAll(t, cond, a, b)

	w := must(Where(cond, a, b))(t)
	wantShape(t, w, 3, 4)
	wantFloats(t, must(w.Float32s())(t), []float32{1, 2, 3, 4, -1, -1, -1, -1, 1, 2, 3, 4})
	out := must(Zeros(Float32, 3, 4))(t)
	defer out.Close()
	ok(t, WhereOut(cond, b, a, out))
	wantFloats(t, must(out.Float32s())(t), []float32{-1, -1, -1, -1, 1, 2, 3, 4, -1, -1, -1, -1})
	ok(t, WhereInPlace(w, cond, b)) // w = where(cond, w, b)
	wantFloats(t, must(w.Float32s())(t), []float32{1, 2, 3, 4, -1, -1, -1, -1, 1, 2, 3, 4})
	w.Close()
	_, err := Where(a, a, b)
	wantErr(t, err, ErrDtype, "", nil)

	// addcmul / addcdiv: self + value * t1 (op) t2, three-way broadcast.
	sv, t1v, t2v := []float64{1, 2, 3}, []float64{2, 4}, []float64{0.5}
	s := must(FromFloat64s(sv, 3, 1))(t)
	t1 := must(FromFloat64s(t1v, 2))(t)
	t2 := must(FromFloat64s(t2v))(t)
	closeAll(t, s, t1, t2)
	var wantMul, wantDiv []float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			wantMul = append(wantMul, sv[i]+3*t1v[j]*t2v[0])
			wantDiv = append(wantDiv, sv[i]+3*t1v[j]/t2v[0])
		}
	}
	m := must(Addcmul(s, t1, t2, 3))(t)
	wantShape(t, m, 3, 2)
	wantFloats(t, must(m.Float64s())(t), wantMul)
	m.Close()
	d := must(Addcdiv(s, t1, t2, 3))(t)
	wantFloats(t, must(d.Float64s())(t), wantDiv)
	d.Close()
	o := must(Zeros(Float64, 3, 2))(t)
	defer o.Close()
	ok(t, AddcmulOut(s, t1, t2, 3, o))
	wantFloats(t, must(o.Float64s())(t), wantMul)
	ok(t, AddcdivOut(s, t1, t2, 3, o))
	wantFloats(t, must(o.Float64s())(t), wantDiv)
	g := must(s.Expand(3, 2))(t)
	self := must(g.Clone())(t)
	g.Close()
	defer self.Close()
	ok(t, AddcmulInPlace(self, t1, t2, 3))
	wantFloats(t, must(self.Float64s())(t), wantMul)
	ok(t, AddcdivInPlace(self, t1, t2, 0))
	wantFloats(t, must(self.Float64s())(t), wantMul)
	err = AddcmulInPlace(s, t1, t2, 1)
	wantErr(t, err, ErrShapeMismatch, "output with shape [3, 1] doesn't match the broadcast shape [3, 2]", nil)
	ii := must(FromInt64s([]int64{4, 6}, 2))(t)
	defer ii.Close()
	_, err = Addcdiv(s, ii, ii, 1)
	if err == nil {
		t.Error("addcdiv of integer tensors was accepted")
	}

	// lerp: start + weight * (end - start).
	st := must(FromFloat32s([]float32{0, 10}, 2))(t)
	en := must(FromFloat32s([]float32{4, 20}, 2))(t)
	wt := must(FromFloat32s([]float32{0, 0.25, 1}, 3, 1))(t)
	closeAll(t, st, en, wt)
	l := must(Lerp(st, en, wt))(t)
	wantShape(t, l, 3, 2)
	wantFloats(t, must(l.Float32s())(t), []float32{0, 10, 1, 12.5, 4, 20})
	l.Close()
	lo := must(Zeros(Float32, 3, 2))(t)
	defer lo.Close()
	ok(t, LerpOut(st, en, wt, lo))
	wantFloats(t, must(lo.Float32s())(t), []float32{0, 10, 1, 12.5, 4, 20})
	half := must(FromFloat32s([]float32{0.5}))(t)
	defer half.Close()
	ok(t, LerpInPlace(st, en, half))
	wantFloats(t, must(st.Float32s())(t), []float32{2, 15})
	d64 := must(FromFloat64s([]float64{1, 2}, 2))(t)
	defer d64.Close()
	_, err = Lerp(st, d64, half)
	wantErr(t, err, ErrDtype, "", nil)

	// clamp, with either bound missing.
	x := must(FromFloat32s([]float32{-5, 0, 5, float32(math.NaN())}, 4))(t)
	lob := must(FromFloat32s([]float32{-1, 1}, 2, 1))(t)
	hib := must(FromFloat32s([]float32{2}))(t)
	closeAll(t, x, lob, hib)
	nan := float32(math.NaN())
	c := must(Clamp(x, lob, hib))(t)
	wantShape(t, c, 2, 4)
	wantFloats(t, must(c.Float32s())(t), []float32{-1, 0, 2, nan, 1, 1, 2, nan})
	c.Close()
	c = must(Clamp(x, nil, hib))(t)
	wantFloats(t, must(c.Float32s())(t), []float32{-5, 0, 2, nan})
	c.Close()
	c = must(Clamp(x, lob, nil))(t)
	wantFloats(t, must(c.Float32s())(t), []float32{-1, 0, 5, nan, 1, 1, 5, nan})
	c.Close()
	_, err = Clamp(x, nil, nil)
	wantErr(t, err, ErrInvalidArgument, "", nil)
	co := must(Zeros(Float32, 4))(t)
	defer co.Close()
	ok(t, ClampOut(x, nil, hib, co))
	wantFloats(t, must(co.Float32s())(t), []float32{-5, 0, 2, nan})
	ok(t, ClampInPlace(x, hib, nil))
	wantFloats(t, must(x.Float32s())(t), []float32{2, 2, 5, nan})
}

func TestCopyConverts(t *testing.T) {
	src := must(FromFloat32s([]float32{1.7, -1.7, 300}, 3))(t)
	dst := must(Zeros(Int32, 2, 3))(t)
	closeAll(t, src, dst)
	ok(t, Copy(dst, src))
	wantEqual(t, must(dst.Int32s())(t), []int32{1, -1, 300, 1, -1, 300})
	b := must(Zeros(Bool, 3))(t)
	defer b.Close()
	ok(t, Copy(b, src))
	wantEqual(t, must(b.Bools())(t), []bool{true, true, true})
	big := must(Zeros(Float32, 4))(t)
	defer big.Close()
	if err := Copy(src, big); err == nil {
		t.Error("copy of 4 elements into 3 was accepted")
	}

	to := must(src.To(Float64))(t)
	defer to.Close()
	wantFloats(t, must(to.Float64s())(t), []float64{float64(float32(1.7)), float64(float32(-1.7)), 300})
}

func TestCastErrors(t *testing.T) {
	f := must(FromFloat32s([]float32{1.5, 2.5}, 2))(t)
	l := must(FromInt64s([]int64{1, 2}, 2))(t)
	bl := must(FromBools([]bool{true, false}, 2))(t)
	closeAll(t, f, l, bl)
	err := AddInPlace(l, f)
	wantErr(t, err, ErrDtype, "result type Float can't be cast to the desired output type Long", nil)
	wantEqual(t, must(l.Int64s())(t), []int64{1, 2})
	err = MulOut(f, f, l)
	wantErr(t, err, ErrDtype, "result type Float can't be cast to the desired output type Long", nil)
	err = AddInPlace(bl, l)
	wantErr(t, err, ErrDtype, "result type Long can't be cast to the desired output type Bool", nil)
	// The other way is allowed.
	ok(t, AddInPlace(f, l))
	wantFloats(t, must(f.Float32s())(t), []float32{2.5, 4.5})
	ok(t, AddInPlace(l, bl))
	wantEqual(t, must(l.Int64s())(t), []int64{2, 2})
}

func TestHypotOnIntegers(t *testing.T) {
	a := must(FromInt32s([]int32{3}, 1))(t)
	defer a.Close()
	_, err := Hypot(a, a)
	wantErr(t, err, ErrDtype, "\"hypot_cpu\" not implemented for 'Int'", nil)
}

func TestExactAliasing(t *testing.T) {
	a := must(FromInt64s([]int64{1, 2, 3}, 3))(t)
	defer a.Close()
	ok(t, AddInPlace(a, a))
	wantEqual(t, must(a.Int64s())(t), []int64{2, 4, 6})
	ok(t, MulOut(a, a, a))
	wantEqual(t, must(a.Int64s())(t), []int64{4, 16, 36})
	v := must(a.View())(t)
	defer v.Close()
	ok(t, SubInPlace(v, a))
	wantEqual(t, must(a.Int64s())(t), []int64{0, 0, 0})
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	ctx := newContext(t)
	warnings := collectWarningsOn(t, ctx)
	a := must(ctx.Zeros(Float32, 2, 3))(t)
	b := must(ctx.Zeros(Float32, 3))(t)
	s := must(ctx.Zeros(Float32))(t)
	closeAll(t, a, b, s)

	ok(t, ctx.SetBroadcastPolicy(PolicyError))
	if ctx.BroadcastPolicy() != PolicyError {
		t.Fatalf("policy %v", ctx.BroadcastPolicy())
	}
	_, err := ctx.Add(a, b)
	wantErr(t, err, ErrPolicy, "", nil)
	c := must(ctx.Add(a, a))(t)
	c.Close()
	c = must(ctx.Add(a, s))(t) // 0-dim operands are exempt
	c.Close()
	cond := must(ctx.Zeros(Bool, 2, 3))(t)
	defer cond.Close()
	_, err = ctx.Where(cond, a, b)
	wantErr(t, err, ErrPolicy, "", nil)

	ok(t, ctx.SetBroadcastPolicy(PolicyWarn))
	c = must(ctx.Add(a, b))(t)
	c.Close()
	if w := warnings(); len(w) != 1 {
		t.Fatalf("policy warn: warnings %q", w)
	}
	c = must(ctx.Add(a, a))(t)
	c.Close()
	if w := warnings(); len(w) != 0 {
		t.Fatalf("policy warn, equal shapes: warnings %q", w)
	}

	// Warnings as errors: the warning text becomes the message, nothing is
	// written and the handler is not called.
	ctx.SetWarningsAsErrors(true)
	if !ctx.WarningsAsErrors() {
		t.Fatal("WarningsAsErrors() false")
	}
	ok(t, ctx.SetBroadcastPolicy(PolicyAllow))
	ctx.SetBroadcastWarning(true)
	x := must(ctx.FromFloat32s([]float32{1, 2, 3, 4}, 4, 1))(t)
	y := must(ctx.FromFloat32s([]float32{1, 1, 1, 1}, 4))(t)
	closeAll(t, x, y)
	_, err = ctx.Add(x, y)
	wantErr(t, err, ErrPolicy, msgBroadcastWarning, nil)
	if w := warnings(); len(w) != 0 {
		t.Fatalf("handler called with warnings as errors: %q", w)
	}
	ctx.SetBroadcastWarning(false)
	ctx.SetLegacyPointwise(true)
	u := must(ctx.FromFloat32s(iotaF32(6, 0), 2, 3))(t)
	v := must(ctx.FromFloat32s(iotaF32(6, 0), 3, 2))(t)
	closeAll(t, u, v)
	err = ctx.AddInPlace(u, v)
	wantErr(t, err, ErrPolicy, msgLegacyPointwise, nil)
	wantFloats(t, must(u.Float32s())(t), iotaF32(6, 0))

	err = ctx.SetBroadcastPolicy(Policy(7))
	wantErr(t, err, ErrInvalidArgument, "", nil)
}

// TestLargeAndThreaded checks a result big enough to be split between
// threads against the reference, with one thread and with the default.
func TestLargeAndThreaded(t *testing.T) {
	t.Parallel()
	ctx := newContext(t)
	const rows, cols = 1024, 513
	av, bv := iota64(rows, -300), iota64(cols, 0.5)
	a := must(ctx.FromFloat64s(av, rows, 1))(t)
	b := must(ctx.FromFloat64s(bv, cols))(t)
	closeAll(t, a, b)
	want, _ := refBinary(av, []int64{rows, 1}, bv, []int64{cols}, func(x, y float64) float64 { return x * y })
	var sums [][]float64
	for _, n := range []int{1, 0} {
		ok(t, ctx.SetNumThreads(n))
		c := must(ctx.Mul(a, b))(t)
		wantFloats(t, must(c.Float64s())(t), want)
		out := must(ctx.Zeros(Float32, rows, cols))(t)
		ok(t, ctx.MulOut(a, b, out)) // Double results cast into a Float out
		got := must(out.Float32s())(t)
		for i := range got {
			if got[i] != float32(want[i]) {
				t.Fatalf("out element %d: %v, want %v", i, got[i], float32(want[i]))
			}
		}
		s := must(c.SumToShape(1, cols))(t)
		sums = append(sums, must(s.Float64s())(t))
		s.Close()
		out.Close()
		c.Close()
	}
	// The sum does not depend on the thread count.
	wantFloats(t, sums[0], sums[1])
	for j := 0; j < cols; j++ {
		ref := 0.0
		for i := 0; i < rows; i++ {
			ref += want[i*cols+j]
		}
		if sums[0][j] != ref {
			t.Fatalf("column %d sums to %v, want %v", j, sums[0][j], ref)
		}
	}
}
