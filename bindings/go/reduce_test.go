package bcast

import (
	"fmt"
	"math"
	"sync"
	"testing"
)

// Reductions against naive Go loops: every op over every subset of dims of
// a 3-D tensor, integer and bool dtypes, NaN and ties, empty and 0-dim
// inputs, an expanded input, ReduceEx's options, MaxDim and MinDim, the Out
// forms, PyTorch's refusals and the Context methods.

// refGroups returns the result's shape and, per output element in row-major
// order, the input elements it reduces, for dims in [0, len(shape)) (none:
// every dim).
func refGroups[T any](data []T, shape []int64, dims []int, keepdim bool) ([]int64, [][]T) {
	reduced := func(d int) bool {
		if len(dims) == 0 {
			return true
		}
		for _, r := range dims {
			if r == d {
				return true
			}
		}
		return false
	}
	kept := make([]int64, len(shape))
	nOut := int64(1)
	for d, s := range shape {
		kept[d] = s
		if reduced(d) {
			kept[d] = 1
		}
		nOut *= kept[d]
	}
	out := make([][]T, nOut)
	idx := make([]int64, len(shape))
	for flat := range data {
		rest := int64(flat)
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d] = rest % shape[d]
			rest /= shape[d]
		}
		pos := int64(0)
		for d := range shape {
			i := idx[d]
			if reduced(d) {
				i = 0
			}
			pos = pos*kept[d] + i
		}
		out[pos] = append(out[pos], data[flat])
	}
	if keepdim {
		return kept, out
	}
	res := []int64{}
	for d, s := range shape {
		if !reduced(d) {
			res = append(res, s)
		}
	}
	return res, out
}

func refVar(v []float64, correction float64) float64 {
	mean := 0.0
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return ss / math.Max(0, float64(len(v))-correction)
}

// refFirstIndex is the index of the first NaN, else of the first value
// better than every other.
func refFirstIndex(v []float64, better func(a, b float64) bool) float64 {
	best := 0
	for i, x := range v {
		if math.IsNaN(v[best]) {
			break
		}
		if math.IsNaN(x) || better(x, v[best]) {
			best = i
		}
	}
	return float64(best)
}

func refReduce(op ReduceOp, v []float64) float64 {
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	switch op {
	case ReduceSum, ReduceNansum, ReduceMean, ReduceNanmean:
		s, n := 0.0, 0
		for _, x := range v {
			if math.IsNaN(x) && (op == ReduceNansum || op == ReduceNanmean) {
				continue
			}
			s += x
			n++
		}
		if op == ReduceMean || op == ReduceNanmean {
			return s / float64(n)
		}
		return s
	case ReduceProd:
		p := 1.0
		for _, x := range v {
			p *= x
		}
		return p
	case ReduceAmax, ReduceAmin:
		m := v[0]
		for _, x := range v {
			if math.IsNaN(x) || math.IsNaN(m) {
				m = math.NaN()
			} else if op == ReduceAmax {
				m = math.Max(m, x)
			} else {
				m = math.Min(m, x)
			}
		}
		return m
	case ReduceArgmax:
		return refFirstIndex(v, func(a, b float64) bool { return a > b })
	case ReduceArgmin:
		return refFirstIndex(v, func(a, b float64) bool { return a < b })
	case ReduceAny, ReduceAll:
		some, every := false, true
		for _, x := range v {
			some = some || x != 0
			every = every && x != 0
		}
		if op == ReduceAny {
			return b2f(some)
		}
		return b2f(every)
	case ReduceCountNonzero:
		n := 0.0
		for _, x := range v {
			n += b2f(x != 0)
		}
		return n
	case ReduceVar:
		return refVar(v, 1)
	case ReduceStd:
		return math.Sqrt(refVar(v, 1))
	case ReduceLogsumexp:
		m := math.Inf(-1)
		for _, x := range v {
			m = math.Max(m, x)
		}
		s := 0.0
		for _, x := range v {
			s += math.Exp(x - m)
		}
		return m + math.Log(s)
	}
	panic("no reference for " + op.String())
}

// resultFloat64s reads a result of any dtype the reductions give as float64.
func resultFloat64s(t testing.TB, x *Tensor) []float64 {
	t.Helper()
	var out []float64
	switch x.DType() {
	case Float64:
		out = must(x.Float64s())(t)
	case Float32:
		for _, v := range must(x.Float32s())(t) {
			out = append(out, float64(v))
		}
	case Int64:
		for _, v := range must(x.Int64s())(t) {
			out = append(out, float64(v))
		}
	case Int32:
		for _, v := range must(x.Int32s())(t) {
			out = append(out, float64(v))
		}
	case Uint8:
		for _, v := range must(x.Uint8s())(t) {
			out = append(out, float64(v))
		}
	case Bool:
		for _, v := range must(x.Bools())(t) {
			if v {
				out = append(out, 1)
			} else {
				out = append(out, 0)
			}
		}
	default:
		t.Fatalf("unexpected result dtype %v", x.DType())
	}
	return out
}

func near(got, want, rel float64) bool {
	return math.IsNaN(got) && math.IsNaN(want) || got == want ||
		math.Abs(got-want) <= rel*math.Abs(want)
}

func wantNear(t testing.TB, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values, want %d: %v vs %v", what, len(got), len(want), got, want)
	}
	for i := range got {
		if !near(got[i], want[i], 1e-13) {
			t.Fatalf("%s [%d]: got %v, want %v", what, i, got[i], want[i])
		}
	}
}

// data234 is a 2x3x4 tensor's distinct values, some negative, none zero.
func data234() []float64 {
	v := make([]float64, 24)
	for i := range v {
		v[i] = float64((i*7)%24)*0.375 - 4.1
	}
	return v
}

func TestReduceEveryOpOverEveryDims(t *testing.T) {
	data := data234()
	shape := []int64{2, 3, 4}
	x := must(FromFloat64s(data, shape...))(t)
	closeAll(t, x)
	for op := ReduceOp(0); op < NumReduceOps; op++ {
		arg := op == ReduceArgmax || op == ReduceArgmin
		for m := 0; m < 8; m++ {
			var dims []int
			for d := 0; d < 3; d++ {
				if m>>d&1 == 1 {
					dims = append(dims, d)
				}
			}
			if arg && len(dims) > 1 {
				continue
			}
			for _, keepdim := range []bool{false, true} {
				what := fmt.Sprintf("%v dims %v keepdim %v", op, dims, keepdim)
				wantShp, groups := refGroups(data, shape, dims, keepdim)
				var want []float64
				if arg && len(dims) == 0 {
					want = []float64{refReduce(op, data)} // the flattened index
				} else {
					for _, g := range groups {
						want = append(want, refReduce(op, g))
					}
				}
				got := must(Reduce(op, x, dims, keepdim))(t)
				if len(dims) == 0 && !keepdim {
					wantShape(t, got)
				} else if !(arg && len(dims) == 0) {
					wantShape(t, got, wantShp...)
				}
				wantDT := Float64
				switch op {
				case ReduceArgmax, ReduceArgmin, ReduceCountNonzero:
					wantDT = Int64
				case ReduceAny, ReduceAll:
					wantDT = Bool
				}
				if got.DType() != wantDT {
					t.Fatalf("%s: dtype %v, want %v", what, got.DType(), wantDT)
				}
				wantNear(t, what, resultFloat64s(t, got), want)
				got.Close()
			}
		}
	}
}

func TestReduceNamedFunctions(t *testing.T) {
	data := data234()
	x := must(FromFloat64s(data, 2, 3, 4))(t)
	closeAll(t, x)
	_, g1 := refGroups(data, []int64{2, 3, 4}, []int{1}, true)
	var want []float64
	for _, g := range g1 {
		want = append(want, refReduce(ReduceSum, g))
	}
	s := must(Sum(x, []int{1}, true))(t)
	closeAll(t, s)
	wantShape(t, s, 2, 1, 4)
	wantNear(t, "Sum", must(s.Float64s())(t), want)

	m := must(Mean(x, nil, false))(t)
	closeAll(t, m)
	wantShape(t, m)
	wantNear(t, "Mean", must(m.Float64s())(t), []float64{refReduce(ReduceMean, data)})

	// Negative dims count from the end.
	a := must(Amax(x, []int{-1, -3}, false))(t)
	b := must(Amax(x, []int{2, 0}, false))(t)
	closeAll(t, a, b)
	wantShape(t, a, 3)
	wantEqual(t, must(a.Float64s())(t), must(b.Float64s())(t))
	_, g02 := refGroups(data, []int64{2, 3, 4}, []int{0, 2}, false)
	for i, g := range g02 {
		if got, w := must(a.Float64s())(t)[i], refReduce(ReduceAmax, g); got != w {
			t.Fatalf("Amax [%d]: %v, want %v", i, got, w)
		}
	}

	for _, f := range []struct {
		op ReduceOp
		fn func(*Tensor, []int, bool) (*Tensor, error)
	}{
		{ReduceNansum, Nansum}, {ReduceProd, Prod}, {ReduceNanmean, Nanmean}, {ReduceAmin, Amin},
		{ReduceArgmax, Argmax}, {ReduceArgmin, Argmin}, {ReduceAny, Any}, {ReduceAll, All},
		{ReduceCountNonzero, CountNonzero}, {ReduceVar, Var}, {ReduceStd, Std},
		{ReduceLogsumexp, Logsumexp},
	} {
		_, gs := refGroups(data, []int64{2, 3, 4}, []int{2}, false)
		var want []float64
		for _, g := range gs {
			want = append(want, refReduce(f.op, g))
		}
		got := must(f.fn(x, []int{2}, false))(t)
		wantNear(t, f.op.String(), resultFloat64s(t, got), want)
		got.Close()
	}
}

func TestReduceIntegerAndBoolDtypes(t *testing.T) {
	big := []int32{math.MaxInt32, math.MaxInt32, 7, -3, 1 << 20, 5}
	x := must(FromInt32s(big, 2, 3))(t)
	closeAll(t, x)
	s := must(Sum(x, []int{1}, false))(t)
	p := must(Prod(x, []int{0}, false))(t)
	m := must(Amax(x, []int{0}, false))(t)
	closeAll(t, s, p, m)
	if s.DType() != Int64 || p.DType() != Int64 || m.DType() != Int32 {
		t.Fatalf("dtypes %v %v %v", s.DType(), p.DType(), m.DType())
	}
	var ws, wp []int64
	for r := 0; r < 2; r++ {
		sum := int64(0)
		for c := 0; c < 3; c++ {
			sum += int64(big[r*3+c])
		}
		ws = append(ws, sum)
	}
	for c := 0; c < 3; c++ {
		wp = append(wp, int64(big[c])*int64(big[c+3]))
	}
	wantEqual(t, must(s.Int64s())(t), ws)
	wantEqual(t, must(p.Int64s())(t), wp)
	wantEqual(t, must(m.Int32s())(t), []int32{math.MaxInt32, math.MaxInt32, 7})

	b := must(FromBools([]bool{true, false, true, true, false, false}, 2, 3))(t)
	bs := must(Sum(b, []int{1}, false))(t)
	ba := must(All(b, []int{0}, false))(t)
	bc := must(CountNonzero(b, []int{0}, false))(t)
	closeAll(t, b, bs, ba, bc)
	if bs.DType() != Int64 || ba.DType() != Bool {
		t.Fatalf("bool sum %v, all %v", bs.DType(), ba.DType())
	}
	wantEqual(t, must(bs.Int64s())(t), []int64{2, 1})
	wantEqual(t, must(ba.Bools())(t), []bool{true, false, false})
	wantEqual(t, must(bc.Int64s())(t), []int64{2, 0, 1})

	u := must(FromUint8s([]uint8{0, 3, 0, 0}, 2, 2))(t)
	ua := must(Any(u, []int{1}, false))(t)
	ul := must(Logsumexp(u, []int{1}, false))(t)
	closeAll(t, u, ua, ul)
	if ua.DType() != Uint8 || ul.DType() != Float32 {
		t.Fatalf("uint8 any %v, logsumexp %v", ua.DType(), ul.DType())
	}
	wantEqual(t, must(ua.Uint8s())(t), []uint8{1, 0})
	for i, w := range []float64{math.Log(1 + math.Exp(3)), math.Log(2)} {
		if g := float64(must(ul.Float32s())(t)[i]); math.Abs(g-w) > 2e-7*w {
			t.Fatalf("logsumexp [%d]: %v, want %v", i, g, w)
		}
	}
}

func TestReduceNaNAndTies(t *testing.T) {
	nan := math.NaN()
	x := must(FromFloat64s([]float64{1, nan, 3, nan, -2, 5, 0, 4}, 2, 4))(t)
	closeAll(t, x)
	amax := must(Amax(x, []int{1}, false))(t)
	amin := must(Amin(x, []int{1}, false))(t)
	am := must(Argmax(x, []int{1}, false))(t)
	an := must(Argmin(x, []int{1}, false))(t)
	flat := must(Argmax(x, nil, false))(t)
	ns := must(Nansum(x, []int{1}, false))(t)
	nm := must(Nanmean(x, []int{1}, false))(t)
	cn := must(CountNonzero(x, []int{1}, false))(t)
	closeAll(t, amax, amin, am, an, flat, ns, nm, cn)
	wantFloats(t, must(amax.Float64s())(t), []float64{nan, 5})
	wantFloats(t, must(amin.Float64s())(t), []float64{nan, -2})
	wantEqual(t, must(am.Int64s())(t), []int64{1, 1})
	wantEqual(t, must(an.Int64s())(t), []int64{1, 0})
	wantEqual(t, must(flat.Int64s())(t), []int64{1})
	wantFloats(t, must(ns.Float64s())(t), []float64{4, 7})
	wantFloats(t, must(nm.Float64s())(t), []float64{2, 1.75})
	wantEqual(t, must(cn.Int64s())(t), []int64{4, 3})

	ties := must(FromInt64s([]int64{2, 7, 7, 1, 1, 7, 2, 1}, 2, 4))(t)
	tm := must(Argmax(ties, []int{1}, false))(t)
	tn := must(Argmin(ties, []int{1}, false))(t)
	closeAll(t, ties, tm, tn)
	wantEqual(t, must(tm.Int64s())(t), []int64{1, 1})
	wantEqual(t, must(tn.Int64s())(t), []int64{3, 0})
	v, i, err := MinDim(ties, 0, false)
	ok(t, err)
	closeAll(t, v, i)
	wantEqual(t, must(v.Int64s())(t), []int64{1, 7, 2, 1})
	wantEqual(t, must(i.Int64s())(t), []int64{1, 0, 1, 0})
}

func TestReduceEmptyAndZeroDim(t *testing.T) {
	e := must(Zeros(Float32, 2, 0, 3))(t)
	closeAll(t, e)
	s := must(Sum(e, []int{1}, false))(t)
	p := must(Prod(e, []int{1}, true))(t)
	a := must(All(e, []int{1}, false))(t)
	m := must(Amax(e, []int{2}, false))(t)
	closeAll(t, s, p, a, m)
	wantShape(t, s, 2, 3)
	wantFloats(t, must(s.Float32s())(t), make([]float32, 6))
	wantShape(t, p, 2, 1, 3)
	wantFloats(t, must(p.Float32s())(t), []float32{1, 1, 1, 1, 1, 1})
	wantEqual(t, must(a.Bools())(t), []bool{true, true, true, true, true, true})
	wantShape(t, m, 2, 0)
	_, err := Amax(e, []int{1}, false)
	wantErr(t, err, ErrInvalidArgument, "amax(): Expected reduction dim 1 to have non-zero size.", nil)
	_, _, err = MaxDim(e, 1, false)
	wantErr(t, err, ErrInvalidArgument, "", nil)

	z := must(FromFloat64s([]float64{2.5}))(t)
	closeAll(t, z)
	for _, dims := range [][]int{{0}, {-1}, nil} {
		r := must(Sum(z, dims, false))(t)
		wantShape(t, r)
		wantFloats(t, must(r.Float64s())(t), []float64{2.5})
		r.Close()
	}
	v, i, err := MaxDim(z, 0, false)
	ok(t, err)
	closeAll(t, v, i)
	wantShape(t, i)
	wantEqual(t, must(i.Int64s())(t), []int64{0})
	_, err = Sum(z, []int{1}, false)
	wantErr(t, err, ErrInvalidArgument, "Dimension out of range (expected to be in range of [-1, 0], but got 1)", nil)
}

func TestReduceExpandedInput(t *testing.T) {
	row := must(FromFloat64s([]float64{1.5, -2, 4}, 1, 3))(t)
	ex := must(row.Expand(5, 3))(t)
	closeAll(t, row, ex)
	s := must(Sum(ex, []int{0}, false))(t)
	v := must(Var(ex, []int{0}, false))(t)
	am := must(Argmax(ex, []int{1}, true))(t)
	closeAll(t, s, v, am)
	wantFloats(t, must(s.Float64s())(t), []float64{7.5, -10, 20})
	wantFloats(t, must(v.Float64s())(t), []float64{0, 0, 0})
	wantShape(t, am, 5, 1)
	wantEqual(t, must(am.Int64s())(t), []int64{2, 2, 2, 2, 2})
}

func TestReduceExOptions(t *testing.T) {
	i := must(FromInt32s([]int32{1, 2, 4, 8}, 2, 2))(t)
	closeAll(t, i)
	_, err := Mean(i, []int{1}, false)
	wantErr(t, err, ErrDtype, "", nil)
	m := must(ReduceEx(ReduceMean, i, []int{1}, false, WithDType(Float64)))(t)
	s := must(ReduceEx(ReduceSum, i, []int{0}, false, WithDType(Float32)))(t)
	closeAll(t, m, s)
	if m.DType() != Float64 || s.DType() != Float32 {
		t.Fatalf("dtypes %v %v", m.DType(), s.DType())
	}
	wantFloats(t, must(m.Float64s())(t), []float64{1.5, 6})
	wantFloats(t, must(s.Float32s())(t), []float32{5, 10})
	_, err = ReduceEx(ReduceAmax, i, []int{0}, false, WithDType(Float64))
	wantErr(t, err, ErrInvalidArgument, "", nil)

	data := data234()
	x := must(FromFloat64s(data, 2, 3, 4))(t)
	closeAll(t, x)
	_, groups := refGroups(data, []int64{2, 3, 4}, []int{2}, true)
	for _, c := range []float64{0, 1, 2.5} {
		v := must(ReduceEx(ReduceVar, x, []int{2}, true, WithCorrection(c)))(t)
		sd := must(ReduceEx(ReduceStd, x, []int{2}, true, WithCorrection(c)))(t)
		wantShape(t, v, 2, 3, 1)
		var wv, ws []float64
		for _, g := range groups {
			wv = append(wv, refVar(g, c))
			ws = append(ws, math.Sqrt(refVar(g, c)))
		}
		wantNear(t, fmt.Sprint("var correction ", c), must(v.Float64s())(t), wv)
		wantNear(t, fmt.Sprint("std correction ", c), must(sd.Float64s())(t), ws)
		v.Close()
		sd.Close()
	}
	// No options: the defaults.
	d := must(ReduceEx(ReduceVar, x, []int{0}, false))(t)
	r := must(Var(x, []int{0}, false))(t)
	closeAll(t, d, r)
	wantFloats(t, must(d.Float64s())(t), must(r.Float64s())(t))

	// With a dtype, out's dtype must be that dtype.
	o32 := must(Zeros(Float32, 2))(t)
	o64 := must(Zeros(Float64, 2))(t)
	closeAll(t, o32, o64)
	wantErr(t, ReduceExOut(ReduceMean, i, []int{1}, false, o32, WithDType(Float64)), ErrDtype, "", nil)
	ok(t, ReduceExOut(ReduceMean, i, []int{1}, false, o64, WithDType(Float64)))
	wantFloats(t, must(o64.Float64s())(t), []float64{1.5, 6})
}

func TestReduceOutForms(t *testing.T) {
	data := data234()
	x := must(FromFloat64s(data, 2, 3, 4))(t)
	out := must(Zeros(Float64, 1, 3, 1))(t)
	closeAll(t, x, out)
	_, groups := refGroups(data, []int64{2, 3, 4}, []int{0, 2}, true)
	var ws, wm []float64
	for _, g := range groups {
		ws = append(ws, refReduce(ReduceSum, g))
		wm = append(wm, refReduce(ReduceAmin, g))
	}
	ok(t, SumOut(x, []int{0, 2}, true, out))
	wantNear(t, "SumOut", must(out.Float64s())(t), ws)
	ok(t, ReduceOut(ReduceAmin, x, []int{0, 2}, true, out))
	wantFloats(t, must(out.Float64s())(t), wm)

	// sum computes in out's dtype; argmax needs Int64.
	i := must(FromInt32s([]int32{1, 2, 3, 4}, 2, 2))(t)
	f := must(Zeros(Float64, 2))(t)
	i32 := must(Zeros(Int32, 2))(t)
	i64 := must(Zeros(Int64, 2))(t)
	closeAll(t, i, f, i32, i64)
	ok(t, SumOut(i, []int{1}, false, f))
	wantFloats(t, must(f.Float64s())(t), []float64{3, 7})
	wantErr(t, ArgmaxOut(i, []int{1}, false, i32), ErrDtype, "", nil)
	ok(t, ArgmaxOut(i, []int{1}, false, i64))
	wantEqual(t, must(i64.Int64s())(t), []int64{1, 1})

	// A shape other than the result's is refused; out is unchanged.
	wrong := must(FromFloat64s([]float64{9, 9}, 2))(t)
	closeAll(t, wrong)
	wantErr(t, SumOut(x, []int{0, 2}, false, wrong), ErrShapeMismatch, "", nil)
	wantFloats(t, must(wrong.Float64s())(t), []float64{9, 9})
}

func TestMaxDimMinDim(t *testing.T) {
	data := data234()
	shape := []int64{2, 3, 4}
	x := must(FromFloat64s(data, shape...))(t)
	closeAll(t, x)
	for dim := 0; dim < 3; dim++ {
		for _, keepdim := range []bool{false, true} {
			wantShp, groups := refGroups(data, shape, []int{dim}, keepdim)
			for _, isMax := range []bool{true, false} {
				what := fmt.Sprintf("dim %d keepdim %v max %v", dim, keepdim, isMax)
				valOp, argOp := ReduceAmin, ReduceArgmin
				if isMax {
					valOp, argOp = ReduceAmax, ReduceArgmax
				}
				var wv []float64
				var wi []int64
				for _, g := range groups {
					wv = append(wv, refReduce(valOp, g))
					wi = append(wi, int64(refReduce(argOp, g)))
				}
				var v, i *Tensor
				var err error
				if isMax {
					v, i, err = MaxDim(x, dim-3, keepdim)
				} else {
					v, i, err = Default().MinDim(x, dim, keepdim)
				}
				ok(t, err)
				wantShape(t, v, wantShp...)
				wantShape(t, i, wantShp...)
				if v.DType() != Float64 || i.DType() != Int64 {
					t.Fatalf("%s: dtypes %v %v", what, v.DType(), i.DType())
				}
				wantFloats(t, must(v.Float64s())(t), wv)
				wantEqual(t, must(i.Int64s())(t), wi)
				v.Close()
				i.Close()

				ov := must(Zeros(Float64, wantShp...))(t)
				oi := must(Zeros(Int64, wantShp...))(t)
				if isMax {
					ok(t, MaxDimOut(x, dim, keepdim, ov, oi))
				} else {
					ok(t, MinDimOut(x, dim, keepdim, ov, oi))
				}
				wantFloats(t, must(ov.Float64s())(t), wv)
				wantEqual(t, must(oi.Int64s())(t), wi)
				ov.Close()
				oi.Close()
			}
		}
	}
	// Bool is taken; Int32 indices are refused.
	b := must(FromBools([]bool{false, true, true, false}, 2, 2))(t)
	closeAll(t, b)
	v, i, err := MaxDim(b, 1, false)
	ok(t, err)
	closeAll(t, v, i)
	wantEqual(t, must(v.Bools())(t), []bool{true, true})
	wantEqual(t, must(i.Int64s())(t), []int64{1, 0})
	ov := must(Zeros(Bool, 2))(t)
	oi := must(Zeros(Int32, 2))(t)
	closeAll(t, ov, oi)
	wantErr(t, MaxDimOut(b, 1, false, ov, oi), ErrDtype, "", nil)
	// On failure both results are nil.
	v, i, err = MaxDim(b, 2, false)
	if err == nil || v != nil || i != nil {
		t.Fatalf("MaxDim out of range: %v %v %v", v, i, err)
	}
}

func TestReduceRefusals(t *testing.T) {
	x := must(Zeros(Float32, 2, 3))(t)
	b := must(Zeros(Bool, 3))(t)
	i := must(Zeros(Int64, 3))(t)
	closeAll(t, x, b, i)
	_, err := Sum(x, []int{2}, false)
	wantErr(t, err, ErrInvalidArgument, "Dimension out of range (expected to be in range of [-2, 1], but got 2)", nil)
	_, err = Sum(x, []int{0, -2}, false)
	wantErr(t, err, ErrInvalidArgument, "dim 0 appears multiple times in the list of dims", nil)
	_, err = Argmax(b, nil, false)
	wantErr(t, err, ErrDtype, "", nil)
	for _, op := range []ReduceOp{ReduceMean, ReduceNanmean, ReduceVar, ReduceStd} {
		_, err = Reduce(op, i, []int{0}, false)
		wantErr(t, err, ErrDtype, "", nil)
	}
	closed := must(Zeros(Float32, 2))(t)
	closed.Close()
	_, err = Sum(closed, nil, false)
	wantErr(t, err, ErrInvalidArgument, "use of closed Tensor", nil)
	_, _, err = MaxDim(closed, 0, false)
	wantErr(t, err, ErrInvalidArgument, "use of closed Tensor", nil)
}

func TestReduceOpNamesMatchC(t *testing.T) {
	for op := ReduceOp(0); op < NumReduceOps; op++ {
		if got, want := op.String(), cReduceOpName(op); got != want {
			t.Errorf("%d: Go %q, C %q", op, got, want)
		}
	}
	if ReduceOp(NumReduceOps).String() != "unknown" || cReduceOpName(NumReduceOps) != "unknown" {
		t.Errorf("an unknown op's name")
	}
	if ReduceCountNonzero.String() != "count_nonzero" {
		t.Errorf("ReduceCountNonzero is %q", ReduceCountNonzero.String())
	}
}

func TestReduceOnAContextFromManyGoroutines(t *testing.T) {
	c := newContext(t)
	data := data234()
	x := must(c.FromFloat64s(data, 2, 3, 4))(t)
	closeAll(t, x)
	_, groups := refGroups(data, []int64{2, 3, 4}, []int{1}, false)
	var want []float64
	for _, g := range groups {
		want = append(want, refReduce(ReduceLogsumexp, g))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 20; k++ {
				r, err := c.Logsumexp(x, []int{1}, false)
				if err != nil {
					errs <- err
					return
				}
				got, err := c.Float64s(r)
				r.Close()
				if err != nil {
					errs <- err
					return
				}
				for i := range got {
					if !near(got[i], want[i], 1e-13) {
						errs <- fmt.Errorf("goroutine %d: [%d] %v, want %v", g, i, got[i], want[i])
						return
					}
				}
				// Each goroutine reads its own error.
				_, err = c.Sum(x, []int{3 + g}, false)
				msg := fmt.Sprintf("Dimension out of range (expected to be in range of [-3, 2], but got %d)", 3+g)
				if e, isErr := err.(*Error); !isErr || e.Message != msg {
					errs <- fmt.Errorf("goroutine %d: error %v, want %q", g, err, msg)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	v, i, err := c.MaxDim(x, 2, true)
	ok(t, err)
	closeAll(t, v, i)
	wantShape(t, v, 2, 3, 1)
	o := must(c.Zeros(Float64, 3))(t)
	closeAll(t, o)
	ok(t, c.ReduceExOut(ReduceSum, x, []int{0, 2}, false, o))
	_, g02 := refGroups(data, []int64{2, 3, 4}, []int{0, 2}, false)
	var ws []float64
	for _, g := range g02 {
		ws = append(ws, refReduce(ReduceSum, g))
	}
	wantNear(t, "ReduceExOut", must(o.Float64s())(t), ws)
}
