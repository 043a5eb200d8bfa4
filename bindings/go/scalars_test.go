package bcast

import (
	"bufio"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Scalar operands against PyTorch's answers in tests/data/scalar_ops.txt
// (written by tests/gen_scalar_ops.py).

type scalarRow struct {
	line, op, pos, number string
	dtype                 DType
	ok                    bool
	errText               string
	rdtype                DType
	bits                  []uint64
}

func scalarTable(t *testing.T) (map[DType][]uint64, []scalarRow) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "tests", "data", "scalar_ops.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inputs := map[DType][]uint64{}
	var rows []scalarRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	hexes := func(fs []string) []uint64 {
		var v []uint64
		for _, s := range fs {
			u, err := strconv.ParseUint(s, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			v = append(v, u)
		}
		return v
	}
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		if len(fs) == 0 || fs[0] == "#" {
			continue
		}
		switch fs[0] {
		case "in":
			inputs[dtypeNamed(t, fs[1])] = hexes(fs[2:])
		case "b", "be":
			r := scalarRow{line: line, op: fs[1], dtype: dtypeNamed(t, fs[2]), pos: fs[3], number: fs[4]}
			if fs[5] == "!" {
				r.errText = strings.SplitN(line, " ! ", 2)[1]
			} else {
				r.ok = true
				r.rdtype = dtypeNamed(t, fs[6])
				r.bits = hexes(fs[7:])
			}
			rows = append(rows, r)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return inputs, rows
}

func parseNumber(t *testing.T, s string) Scalar {
	v := s[2:]
	switch s[0] {
	case 'b':
		return BoolScalar(v == "1")
	case 'i':
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return IntScalar(i)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatal(err)
	}
	return FloatScalar(f)
}

func tensorFromBits(t *testing.T, d DType, bits []uint64) *Tensor {
	n := int64(len(bits))
	var x *Tensor
	var err error
	switch d {
	case Bool:
		v := make([]bool, n)
		for i, b := range bits {
			v[i] = b != 0
		}
		x, err = FromBools(v, n)
	case Uint8:
		v := make([]uint8, n)
		for i, b := range bits {
			v[i] = uint8(b)
		}
		x, err = FromUint8s(v, n)
	case Int8:
		v := make([]int8, n)
		for i, b := range bits {
			v[i] = int8(b)
		}
		x, err = FromInt8s(v, n)
	case Int16:
		v := make([]int16, n)
		for i, b := range bits {
			v[i] = int16(b)
		}
		x, err = FromInt16s(v, n)
	case Int32:
		v := make([]int32, n)
		for i, b := range bits {
			v[i] = int32(b)
		}
		x, err = FromInt32s(v, n)
	case Int64:
		v := make([]int64, n)
		for i, b := range bits {
			v[i] = int64(b)
		}
		x, err = FromInt64s(v, n)
	case Float16, BFloat16:
		v := make([]uint16, n)
		for i, b := range bits {
			v[i] = uint16(b)
		}
		if d == Float16 {
			x, err = FromFloat16Bits(v, n)
		} else {
			x, err = FromBFloat16Bits(v, n)
		}
	case Float32:
		v := make([]float32, n)
		for i, b := range bits {
			v[i] = math.Float32frombits(uint32(b))
		}
		x, err = FromFloat32s(v, n)
	default:
		v := make([]float64, n)
		for i, b := range bits {
			v[i] = math.Float64frombits(b)
		}
		x, err = FromFloat64s(v, n)
	}
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// The elements' bits, and whether each is a NaN.
func tensorBits(t *testing.T, x *Tensor) ([]uint64, []bool) {
	var bits []uint64
	var nan []bool
	add := func(b uint64, isNaN bool) { bits = append(bits, b); nan = append(nan, isNaN) }
	var err error
	switch x.DType() {
	case Bool:
		var v []bool
		v, err = x.Bools()
		for _, e := range v {
			b := uint64(0)
			if e {
				b = 1
			}
			add(b, false)
		}
	case Uint8:
		var v []uint8
		v, err = x.Uint8s()
		for _, e := range v {
			add(uint64(e), false)
		}
	case Int8:
		var v []int8
		v, err = x.Int8s()
		for _, e := range v {
			add(uint64(uint8(e)), false)
		}
	case Int16:
		var v []int16
		v, err = x.Int16s()
		for _, e := range v {
			add(uint64(uint16(e)), false)
		}
	case Int32:
		var v []int32
		v, err = x.Int32s()
		for _, e := range v {
			add(uint64(uint32(e)), false)
		}
	case Int64:
		var v []int64
		v, err = x.Int64s()
		for _, e := range v {
			add(uint64(e), false)
		}
	case Float16:
		var v []uint16
		v, err = x.Float16Bits()
		for _, e := range v {
			add(uint64(e), e&0x7c00 == 0x7c00 && e&0x3ff != 0)
		}
	case BFloat16:
		var v []uint16
		v, err = x.BFloat16Bits()
		for _, e := range v {
			add(uint64(e), e&0x7f80 == 0x7f80 && e&0x7f != 0)
		}
	case Float32:
		var v []float32
		v, err = x.Float32s()
		for _, e := range v {
			add(uint64(math.Float32bits(e)), e != e)
		}
	default:
		var v []float64
		v, err = x.Float64s()
		for _, e := range v {
			add(math.Float64bits(e), e != e)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return bits, nan
}

// Exact bits (any NaN matches any NaN). pow, atan2 and hypot may differ by
// 1 ulp from PyTorch, so their float rows are compared only for NaN-ness
// and dtype here; the C++ test checks their ulps.
func checkRow(t *testing.T, r scalarRow, got *Tensor, err error) {
	t.Helper()
	if !r.ok {
		var e *Error
		if !errors.As(err, &e) || e.Message != r.errText {
			t.Errorf("%s: got %v", r.line, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v", r.line, err)
		return
	}
	defer got.Close()
	if got.DType() != r.rdtype {
		t.Errorf("%s: dtype %v", r.line, got.DType())
		return
	}
	bits, nan := tensorBits(t, got)
	want := tensorFromBits(t, r.rdtype, r.bits)
	defer want.Close()
	wbits, wnan := tensorBits(t, want)
	loose := r.rdtype >= Float16 && (r.op == "pow" || r.op == "atan2" || r.op == "hypot")
	for i := range bits {
		if nan[i] && wnan[i] || bits[i] == wbits[i] || loose && !nan[i] && !wnan[i] {
			continue
		}
		t.Errorf("%s: element %d is %x", r.line, i, bits[i])
		return
	}
}

func TestScalarOpsMatchPyTorch(t *testing.T) {
	inputs, rows := scalarTable(t)
	if len(rows) < 8000 {
		t.Fatalf("%d rows", len(rows))
	}
	ops := map[string]Op{}
	for i := Op(0); i < NumOps; i++ {
		ops[i.String()] = i
	}
	for _, r := range rows {
		x := tensorFromBits(t, r.dtype, inputs[r.dtype])
		s := parseNumber(t, r.number)
		var got *Tensor
		var err error
		if r.pos == "L" {
			got, err = BinaryScalar(ops[r.op], x, s)
		} else {
			got, err = RBinaryScalar(ops[r.op], s, x)
		}
		checkRow(t, r, got, err)
		// The same through a wrapped-number tensor.
		w, err := FromScalar(s)
		if err != nil {
			t.Fatal(err)
		}
		if !w.IsWrappedNumber() {
			t.Fatal("FromScalar: not a wrapped number")
		}
		if r.pos == "L" {
			got, err = Binary(ops[r.op], x, w)
		} else {
			got, err = Binary(ops[r.op], w, x)
		}
		checkRow(t, r, got, err)
		w.Close()
		x.Close()
	}
}

func TestScalarPromotionExamples(t *testing.T) {
	i32, _ := FromInt32s([]int32{1, 2, 4}, 3)
	defer i32.Close()
	r, err := MulScalar(i32, FloatScalar(0.5))
	if err != nil || r.DType() != Float32 {
		t.Fatalf("int32 * 0.5: %v %v", r, err)
	}
	h, _ := FromFloat16Bits([]uint16{0x3c00}, 1) // 1.0
	defer h.Close()
	r, err = AddScalar(h, FloatScalar(2.5))
	if err != nil || r.DType() != Float16 {
		t.Fatalf("f16 + 2.5: %v %v", r, err)
	}
	if b, _ := r.Float16Bits(); b[0] != 0x4300 { // 3.5
		t.Errorf("f16 1 + 2.5 = %x", b[0])
	}
	u, _ := FromUint8s([]uint8{1, 255}, 2)
	defer u.Close()
	if err := BinaryScalarInPlace(OpAdd, u, IntScalar(300)); err != nil {
		t.Fatal(err)
	}
	if v, _ := u.Uint8s(); v[0] != 45 || v[1] != 43 {
		t.Errorf("uint8 + 300 = %v", v)
	}
	r, err = RSubScalar(IntScalar(2), i32)
	if v, _ := r.Int32s(); err != nil || v[0] != 1 || v[2] != -2 {
		t.Errorf("2 - x = %v %v", v, err)
	}
	r, err = RDivScalar(FloatScalar(1), i32)
	if v, _ := r.Float32s(); err != nil || v[1] != 0.5 {
		t.Errorf("1 / x = %v %v", v, err)
	}
	out, _ := Zeros(Float64, 3)
	defer out.Close()
	if err := RBinaryScalarOut(OpPow, IntScalar(2), i32, out); err != nil {
		t.Fatal(err)
	}
	if v, _ := out.Float64s(); v[2] != 16 {
		t.Errorf("2 ** x = %v", v)
	}
	if err := BinaryScalarInPlace(OpMul, i32, FloatScalar(0.5)); err == nil {
		t.Error("int32 *= 0.5 succeeded")
	} else if e := err.(*Error); e.Code != ErrDtype ||
		e.Message != "result type Float can't be cast to the desired output type Int" {
		t.Errorf("int32 *= 0.5: %v", err)
	}
	if _, err := PowScalar(i32, IntScalar(-1)); err == nil ||
		err.(*Error).Message != "Integers to negative integer powers are not allowed." {
		t.Errorf("int ** -1: %v", err)
	}
}

func TestClampAndLerpScalar(t *testing.T) {
	x, _ := FromInt32s([]int32{-5, 0, 5}, 3)
	defer x.Close()
	lo, hi := IntScalar(-1), FloatScalar(2.5)
	r, err := ClampScalar(x, &lo, &hi)
	if err != nil || r.DType() != Float32 {
		t.Fatalf("clamp: %v %v", r, err)
	}
	if v, _ := r.Float32s(); v[0] != -1 || v[2] != 2.5 {
		t.Errorf("clamp = %v", v)
	}
	one := IntScalar(1)
	if err := ClampScalarInPlace(x, &one, nil); err != nil {
		t.Fatal(err)
	}
	if v, _ := x.Int32s(); v[0] != 1 || v[2] != 5 {
		t.Errorf("clamp_ = %v", v)
	}
	if _, err := ClampScalar(x, nil, nil); err == nil || err.(*Error).Code != ErrInvalidArgument {
		t.Errorf("no bounds: %v", err)
	}
	u, _ := FromUint8s([]uint8{1}, 1)
	defer u.Close()
	big := IntScalar(300)
	if _, err := ClampScalar(u, &big, nil); err == nil ||
		err.(*Error).Message != "Clamp min value 300 is outside the representable range of Byte" {
		t.Errorf("uint8 clamp min 300: %v", err)
	}
	a, _ := FromFloat32s([]float32{0, 10}, 2)
	b, _ := FromFloat32s([]float32{10, 20}, 2)
	defer a.Close()
	defer b.Close()
	r, err = LerpScalar(a, b, FloatScalar(0.25))
	if v, _ := r.Float32s(); err != nil || v[0] != 2.5 || v[1] != 12.5 {
		t.Errorf("lerp = %v %v", v, err)
	}
	bad := Scalar{kind: 7}
	if _, err := BinaryScalar(OpAdd, a, bad); err == nil || err.(*Error).Code != ErrInvalidArgument {
		t.Errorf("bad kind: %v", err)
	}
	if _, err := FromScalar(bad); err == nil {
		t.Error("FromScalar with a bad kind succeeded")
	}
}
