package bcast

import (
	"errors"
	"fmt"
	"math/rand"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The iterator and ForEach against a naive reference in plain Go (refIndex
// over the broadcast shape): every layout, strided (permuted, with gaps)
// and contiguous operands, mixed dtypes through conversion, failing and
// panicking funcs, pull mode on goroutines, reset. The funcs compute
// out = 3*in0 + in1 - in2 on small integers, exact in every dtype used.

var iterCoef = [3]float64{3, 1, -1}

type iterLayout struct {
	name   string
	shapes [][]int64
	// Non-nil: the last input is an Expand view of a tensor of this shape
	// to the last shape (strides 0 on the expanded dims).
	expandFrom []int64
}

var iterLayouts = []iterLayout{
	{"same", [][]int64{{37, 53}, {37, 53}}, nil},
	{"row", [][]int64{{37, 53}, {53}}, nil},
	{"column", [][]int64{{37, 53}, {37, 1}}, nil},
	{"outer", [][]int64{{37, 1}, {1, 53}}, nil},
	{"0-dim", [][]int64{{37, 53}, {}}, nil},
	{"all 0-dim", [][]int64{{}, {}}, nil},
	{"one input", [][]int64{{6, 7}}, nil},
	{"middle", [][]int64{{5, 1, 7}, {5, 6, 1}, {6, 7}}, nil},
	{"short rows", [][]int64{{64, 3}, {64, 1}, {3}}, nil},
	{"empty", [][]int64{{0, 5}, {5}}, nil},
	{"large row", [][]int64{{300, 1000}, {1000}}, nil},
	{"large column", [][]int64{{1000, 300}, {1000, 1}, {300}}, nil},
	{"expanded column", [][]int64{{37, 53}, {37, 53}}, []int64{37, 1}},
	{"expanded middle", [][]int64{{4, 5, 6}, {4, 5, 6}}, []int64{1, 5, 1}},
}

// layoutInputs makes l's inputs with mk from small integers, and returns
// their values in row-major order over their shapes.
func layoutInputs(t testing.TB, rng *rand.Rand, l iterLayout, mk func(vals []float64, shape []int64) *Tensor) ([][]float64, []*Tensor) {
	t.Helper()
	vals := make([][]float64, len(l.shapes))
	ins := make([]*Tensor, len(l.shapes))
	for k, s := range l.shapes {
		if k == len(l.shapes)-1 && l.expandFrom != nil {
			src := smallInts(rng, numel(l.expandFrom), false)
			ins[k] = must(mk(src, l.expandFrom).Expand(s...))(t)
			closeAll(t, ins[k])
			vals[k] = make([]float64, numel(s))
			for i := range vals[k] {
				vals[k][i] = src[refIndex(i, s, l.expandFrom)]
			}
			continue
		}
		vals[k] = smallInts(rng, numel(s), false)
		ins[k] = mk(vals[k], s)
	}
	return vals, ins
}

// smallInts returns n integers in -40..40 (0..80 when unsigned).
func smallInts(rng *rand.Rand, n int, unsigned bool) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(rng.Intn(81))
		if !unsigned {
			v[i] -= 40
		}
	}
	return v
}

// iterReference is 3*in0 + in1 - in2 over the broadcast shape.
func iterReference(vals [][]float64, shapes [][]int64) ([]float64, []int64) {
	shape, okShape := refBroadcastShape(shapes...)
	if !okShape {
		panic("iterReference: not broadcastable")
	}
	out := make([]float64, numel(shape))
	for i := range out {
		for k := range vals {
			out[i] += iterCoef[k] * vals[k][refIndex(i, shape, shapes[k])]
		}
	}
	return out, shape
}

// stridedTensor wraps vals (row-major over shape) as T in a layout with the
// dims in reverse order in memory and a gap after every element: a
// transposed, non-contiguous tensor.
func stridedTensor[T Element](t testing.TB, p *runtime.Pinner, vals []float64, shape []int64) *Tensor {
	t.Helper()
	strides := make([]int64, len(shape))
	size, st := int64(1), int64(2)
	for d := range shape {
		strides[d] = st
		st *= max(shape[d], 1)
		size += (shape[d] - 1) * strides[d]
	}
	if len(vals) == 0 {
		size = 0
	}
	data := make([]T, size)
	for i, v := range vals {
		off, rest := int64(0), i
		for d := len(shape) - 1; d >= 0; d-- {
			off += int64(rest%int(shape[d])) * strides[d]
			rest /= int(shape[d])
		}
		data[off] = T(v)
	}
	x := must(WrapSliceStrided(p, data, shape, strides))(t)
	closeAll(t, x)
	return x
}

// typedTensor makes a contiguous tensor of dtype d holding vals.
func typedTensor(t testing.TB, d DType, vals []float64, shape []int64) *Tensor {
	t.Helper()
	x := must(FromFloat64s(vals, shape...))(t)
	defer x.Close()
	y := must(To(x, d))(t)
	closeAll(t, y)
	return y
}

// sum3 is the ForEach funcs' op, for any arity.
func sum3[T Element](out []T, in ...[]T) {
	for j := range out {
		var v T
		for k, x := range in {
			v += T(iterCoef[k]) * x[j]
		}
		out[j] = v
	}
}

// forEachAny runs sum3 through the ForEach of the inputs' arity, into out
// or (out nil) a new tensor.
func forEachAny[T Element](c *Context, ins []*Tensor, out *Tensor) (*Tensor, error) {
	switch len(ins) {
	case 1:
		f := func(o, a []T) { sum3(o, a) }
		if out != nil {
			return nil, ForEach1OutOn(c, ins[0], out, f)
		}
		return ForEach1On(c, ins[0], f)
	case 2:
		f := func(o, a, b []T) { sum3(o, a, b) }
		if out != nil {
			return nil, ForEach2OutOn(c, ins[0], ins[1], out, f)
		}
		return ForEach2On(c, ins[0], ins[1], f)
	default:
		f := func(o, a, b, x []T) { sum3(o, a, b, x) }
		if out != nil {
			return nil, ForEach3OutOn(c, ins[0], ins[1], ins[2], out, f)
		}
		return ForEach3On(c, ins[0], ins[1], ins[2], f)
	}
}

func wantValues(t testing.TB, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: element %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestForEachEveryLayout: every layout, contiguous and strided operands,
// float64 and float32 funcs, allocated and given outputs (a strided one
// too).
func TestForEachEveryLayout(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	p := testPinner(t)
	for _, l := range iterLayouts {
		for _, strided := range []bool{false, true} {
			what := fmt.Sprintf("%s strided=%v", l.name, strided)
			vals, ins := layoutInputs(t, rng, l, func(v []float64, s []int64) *Tensor {
				if strided {
					return stridedTensor[float64](t, p, v, s)
				}
				return typedTensor(t, Float64, v, s)
			})
			want, shape := iterReference(vals, l.shapes)
			got := must(forEachAny[float64](defaultContext, ins, nil))(t)
			wantShape(t, got, shape...)
			if got.DType() != Float64 {
				t.Fatalf("%s: allocated %v, want Float64", what, got.DType())
			}
			wantValues(t, what, must(got.Float64s())(t), want)
			got.Close()

			// Into a given output: float32 func, strided output.
			var out *Tensor
			if strided {
				out = stridedTensor[float32](t, p, make([]float64, len(want)), shape)
			} else {
				out = must(Zeros(Float32, shape...))(t)
				closeAll(t, out)
			}
			if _, err := forEachAny[float32](defaultContext, ins, out); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			f := must(To(out, Float64))(t)
			wantValues(t, what+" into out", must(f.Float64s())(t), want)
			f.Close()
		}
	}
}

// testPinner returns a Pinner that is unpinned when the test ends, after
// the tensors registered with closeAll later are closed (cleanups run last
// registered first): the order WrapSlice's rules ask for.
func testPinner(t testing.TB) *runtime.Pinner {
	p := new(runtime.Pinner)
	t.Cleanup(p.Unpin)
	return p
}

// TestForEachMixedDTypes: operands of other dtypes than the func's are
// converted in and out, in every arity.
func TestForEachMixedDTypes(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	shapes := [][]int64{{40, 30}, {30}, {40, 1}}
	for _, dts := range [][4]DType{
		{Int64, Int32, Int16, Float32},
		{Float32, Uint8, Float16, BFloat16},
		{Int16, Float64, Int8, Int64},
		{Float16, Bool, Float32, Int32},
	} {
		for nin := 1; nin <= 3; nin++ {
			vals := make([][]float64, nin)
			ins := make([]*Tensor, nin)
			for k := 0; k < nin; k++ {
				vals[k] = smallInts(rng, numel(shapes[k]), dts[k+1] == Uint8)
				if dts[k+1] == Bool {
					for i := range vals[k] {
						vals[k][i] = float64(rng.Intn(2))
					}
				}
				ins[k] = typedTensor(t, dts[k+1], vals[k], shapes[k])
			}
			want, shape := iterReference(vals, shapes[:nin])
			out := must(Zeros(dts[0], shape...))(t)
			closeAll(t, out)
			what := fmt.Sprintf("%v <- %v", dts[0], dts[1:nin+1])
			if _, err := forEachAny[float64](defaultContext, ins, out); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			f := must(To(out, Float64))(t)
			wantValues(t, what, must(f.Float64s())(t), want)
			f.Close()
			// The same through an int32 func, into a new Int32 tensor.
			r := must(forEachAny[int32](defaultContext, ins, nil))(t)
			if r.DType() != Int32 {
				t.Fatalf("%s: allocated %v", what, r.DType())
			}
			f = must(To(r, Float64))(t)
			wantValues(t, what+" int32", must(f.Float64s())(t), want)
			f.Close()
			r.Close()
		}
	}
}

// TestForEachInPlaceAndRefusals: out may be an input; what ops refuse, the
// iterator refuses with their texts.
func TestForEachInPlaceAndRefusals(t *testing.T) {
	a := must(FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3))(t)
	b := must(FromFloat32s([]float32{10, 20, 30}, 3))(t)
	closeAll(t, a, b)
	add := func(o, x, y []float32) {
		for j := range o {
			o[j] = x[j] + y[j]
		}
	}
	ok(t, ForEach2Out(a, b, a, add))
	wantFloats(t, must(a.Float32s())(t), []float32{11, 22, 33, 14, 25, 36})

	c4 := must(Zeros(Float32, 4))(t)
	closeAll(t, c4)
	_, err := ForEach2(b, c4, add)
	wantErr(t, err, ErrNotBroadcastable,
		"The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0", nil)
	err = ForEach2Out(a, b, b, add)
	wantErr(t, err, ErrShapeMismatch, "", nil)
	s := must(FromFloat32s([]float32{1}))(t)
	ex := must(s.Expand(2, 3))(t)
	closeAll(t, s, ex)
	err = ForEach2Out(a, b, ex, add)
	wantErr(t, err, ErrOverlap, "", nil)
	shut := must(Zeros(Float32, 3))(t)
	shut.Close()
	_, err = ForEach2(a, shut, add)
	wantErr(t, err, ErrInvalidArgument, "use of closed Tensor", nil)

	ctx := NewContext()
	defer ctx.Close()
	ok(t, ctx.SetBroadcastPolicy(PolicyError))
	_, err = ForEach2On(ctx, a, b, add)
	wantErr(t, err, ErrPolicy, "", nil)
	_, err = ForEach2On(ctx, a, a, add) // same shapes: allowed
	ok(t, err)
}

// TestIterRows: Iter.Run with Row gives a repeated input as its one value,
// and the Block's accessors describe the operands.
func TestIterRows(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for _, l := range iterLayouts {
		vals, ins := layoutInputs(t, rng, l, func(v []float64, s []int64) *Tensor {
			return typedTensor(t, Int32, v, s)
		})
		want, shape := iterReference(vals, l.shapes)
		it := must(NewIter(ins, nil, nil))(t) // each operand in its own dtype: Int32
		if it.Numel() != int64(len(want)) {
			t.Fatalf("%s: Numel %d, want %d", l.name, it.Numel(), len(want))
		}
		if (it.NumChunks() == 0) != (len(want) == 0) {
			t.Fatalf("%s: %d chunks for %d elements", l.name, it.NumChunks(), len(want))
		}
		var elems atomic.Int64
		err := it.Run(func(b *Block) error {
			if b.NumOperands() != len(ins)+1 || b.RowLen() < 1 || b.NumRows() < 1 || b.Repeated(0) {
				return fmt.Errorf("block %+v", *b)
			}
			for k := 0; k < b.NumOperands(); k++ {
				inner, _ := b.Strides(k)
				if b.DType(k) != Int32 || (inner != 4 && inner != 0) || (inner == 0) != b.Repeated(k) {
					return fmt.Errorf("operand %d: %v, inner stride %d", k, b.DType(k), inner)
				}
			}
			elems.Add(int64(b.RowLen() * b.NumRows()))
			for i := 0; i < b.NumRows(); i++ {
				out := Row[int32](b, 0, i)
				for j := range out {
					var v int32
					for k := 1; k < b.NumOperands(); k++ {
						r := Row[int32](b, k, i)
						if b.Repeated(k) {
							if len(r) != 1 {
								return fmt.Errorf("repeated row of %d", len(r))
							}
							v += int32(iterCoef[k-1]) * r[0]
						} else {
							v += int32(iterCoef[k-1]) * r[j]
						}
					}
					out[j] = v
				}
			}
			return nil
		})
		ok(t, err)
		if elems.Load() != int64(len(want)) {
			t.Fatalf("%s: the func saw %d elements, want %d", l.name, elems.Load(), len(want))
		}
		out := must(it.Output())(t)
		ok(t, it.Close())
		wantShape(t, out, shape...)
		f := must(To(out, Float64))(t)
		wantValues(t, l.name, must(f.Float64s())(t), want)
		f.Close()
		out.Close()
	}
}

// TestIterRowOfTheWrongType: Row with another type than the loop dtype's
// panics, and the panic reaches the caller of Run.
func TestIterRowOfTheWrongType(t *testing.T) {
	a := must(FromFloat64s([]float64{1, 2, 3}, 3))(t)
	closeAll(t, a)
	it := must(NewIter([]*Tensor{a}, nil, nil))(t)
	defer it.Close()
	p := catchPanic(func() { _ = it.Run(func(b *Block) error { Row[float32](b, 1, 0); return nil }) })
	if p != "bcast: Row[Float32] of operand 1, which the loop sees as Float64" {
		t.Fatalf("panic %v", p)
	}
	ok(t, it.Run(func(b *Block) error { Row[float64](b, 0, 0)[0] = 1; return nil }))
}

func catchPanic(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

var errBoom = errors.New("boom")

// bigPair is a (300, 1000) float32 tensor and a (1000,) row: several chunks.
func bigPair(t testing.TB) (*Tensor, *Tensor) {
	a := must(FromFloat32s(iotaF32(300*1000, 0), 300, 1000))(t)
	b := must(FromFloat32s(iotaF32(1000, 1), 1000))(t)
	closeAll(t, a, b)
	return a, b
}

// TestIterFailsAtEveryChunk: a func failing in chunk k stops the run there
// (one goroutine: no chunk after k starts) and Run returns its error; a
// later run starts afresh. RunChunk likewise.
func TestIterFailsAtEveryChunk(t *testing.T) {
	a, b := bigPair(t)
	one := NewContext()
	defer one.Close()
	ok(t, one.SetNumThreads(1))
	it := must(one.NewIter([]*Tensor{a, b}, nil, nil))(t)
	defer it.Close()
	n := it.NumChunks()
	if n < 4 {
		t.Fatalf("%d chunks", n)
	}
	for k := 0; k < n; k++ {
		var after atomic.Int64
		err := it.Run(func(blk *Block) error {
			if blk.Chunk() > k {
				after.Add(1)
			}
			if blk.Chunk() == k {
				return fmt.Errorf("chunk %d: %w", k, errBoom)
			}
			return nil
		})
		wantErr(t, err, ErrCallback, fmt.Sprintf("chunk %d: boom", k), nil)
		if !errors.Is(err, errBoom) {
			t.Fatalf("errors.Is(err, errBoom) is false for %v", err)
		}
		if after.Load() != 0 {
			t.Fatalf("chunk %d failed, and %d blocks of later chunks ran", k, after.Load())
		}
	}
	// Goroutines: the first error comes back whichever chunk failed.
	par := must(NewIter([]*Tensor{a, b}, nil, nil))(t)
	defer par.Close()
	for _, k := range []int{0, n / 2, n - 1} {
		err := par.Run(func(blk *Block) error {
			if blk.Chunk() == k {
				return errBoom
			}
			return nil
		})
		wantErr(t, err, ErrCallback, "boom", nil)
		var e *Error
		if !errors.As(err, &e) || e.Err != errBoom {
			t.Fatalf("Err of %v is not errBoom", err)
		}
	}
	ok(t, par.Run(func(*Block) error { return nil }))

	// RunChunk: a failure in chunk i stops the chunks after it until
	// ClearFailure.
	for i := 0; i < n; i++ {
		err := par.RunChunk(i, func(*Block) error { return errBoom })
		wantErr(t, err, ErrCallback, "boom", nil)
		ran := false
		err = par.RunChunk((i+1)%n, func(*Block) error { ran = true; return nil })
		wantErr(t, err, ErrCallback, "boom", nil)
		if ran {
			t.Fatalf("a chunk ran after chunk %d failed", i)
		}
		par.ClearFailure()
		ok(t, par.RunChunk((i+1)%n, func(*Block) error { return nil }))
	}
	wantErr(t, par.RunChunk(n, func(*Block) error { return nil }), ErrInvalidArgument,
		fmt.Sprintf("chunk %d of an iterator of %d chunks", n, n), nil)
}

type panicValue struct{ chunk int }

// TestIterPanics: a panic in the func is recovered before it reaches C,
// the run stops, and the first panic is raised again on the goroutine that
// called Run, ForEach or RunChunk; the iterator can run again.
func TestIterPanics(t *testing.T) {
	a, b := bigPair(t)
	it := must(NewIter([]*Tensor{a, b}, nil, nil))(t)
	defer it.Close()
	n := it.NumChunks()
	for _, k := range []int{0, n - 1} {
		p := catchPanic(func() {
			_ = it.Run(func(blk *Block) error {
				if blk.Chunk() == k {
					panic(panicValue{k})
				}
				return nil
			})
		})
		if p != (panicValue{k}) {
			t.Fatalf("recovered %v, want %v", p, panicValue{k})
		}
	}
	// A panic wins over an error of another chunk.
	p := catchPanic(func() {
		_ = it.Run(func(blk *Block) error {
			if blk.Chunk() == 0 {
				return errBoom
			}
			panic("late")
		})
	})
	if p != nil && p != "late" {
		t.Fatalf("recovered %v", p)
	}
	ok(t, it.Run(func(*Block) error { return nil }))
	p = catchPanic(func() { _ = it.RunChunk(1, func(*Block) error { panic(panicValue{1}) }) })
	if p != (panicValue{1}) {
		t.Fatalf("RunChunk: recovered %v", p)
	}
	it.ClearFailure()

	p = catchPanic(func() {
		_, _ = ForEach2(a, b, func(o, x, y []float32) {
			if x[0] > 150000 {
				panic("big")
			}
			for j := range o {
				o[j] = x[j] + y[j]
			}
		})
	})
	if p != "big" {
		t.Fatalf("ForEach2: recovered %v", p)
	}
	// panic(nil) is a *runtime.PanicNilError, not a silent success.
	p = catchPanic(func() { _, _ = ForEach1(b, func(o, x []float32) { panic(nil) }) })
	if _, isNil := p.(*runtime.PanicNilError); !isNil {
		t.Fatalf("panic(nil): recovered %T %v", p, p)
	}
}

// TestIterGoexit: a func calling runtime.Goexit ends its goroutine; the
// run stops, Run (when its own goroutine lives on) says so, and the
// iterator is left usable: unlocked, no goroutine still in it.
func TestIterGoexit(t *testing.T) {
	a, b := bigPair(t)
	it := must(NewIter([]*Tensor{a, b}, nil, nil))(t)
	defer it.Close()
	for rep := 0; rep < 4; rep++ {
		ended := errors.New("Run's goroutine ended")
		done := make(chan error, 1)
		go func() {
			err := ended
			defer func() { done <- err }()
			err = it.Run(func(*Block) error { runtime.Goexit(); return nil })
		}()
		if err := <-done; err != ended {
			wantErr(t, err, ErrCallback, errGoexit.Error(), nil)
		}
		ok(t, it.Run(func(*Block) error { return nil }))
	}
	// ForEach closes its iterator only once every goroutine has left it.
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = ForEach2(a, b, func(o, x, y []float32) { runtime.Goexit() })
	}()
	<-done
	r := must(ForEach2(a, b, func(o, x, y []float32) { copy(o, x) }))(t)
	closeAll(t, r)
	wantFloats(t, must(r.Float32s())(t), must(a.Float32s())(t))
}

// TestIterPullModeOnGoroutines: Run spreads the chunks over goroutines (at
// least two when GOMAXPROCS allows), every element once; RunChunk from the
// test's own goroutines, in reverse order, gives the same output; a
// Context's thread count bounds the goroutines.
func TestIterPullModeOnGoroutines(t *testing.T) {
	a, b := bigPair(t)
	av, bv := must(a.Float32s())(t), must(b.Float32s())(t)
	want, _ := refBinary(av, []int64{300, 1000}, bv, []int64{1000}, func(x, y float32) float32 { return x + y })
	add := func(blk *Block) error {
		for i := 0; i < blk.NumRows(); i++ {
			o, x, y := Row[float32](blk, 0, i), Row[float32](blk, 1, i), Row[float32](blk, 2, i)
			for j := range o {
				o[j] = x[j] + y[j]
			}
		}
		return nil
	}
	it := must(NewIter([]*Tensor{a, b}, nil, nil))(t)
	defer it.Close()
	n := it.NumChunks()
	var mu sync.Mutex
	workers := map[*Block]bool{}
	perChunk := make([]int64, n)
	var elems atomic.Int64
	second := make(chan struct{})
	var once sync.Once
	ok(t, it.Run(func(blk *Block) error {
		mu.Lock()
		workers[blk] = true
		perChunk[blk.Chunk()] += int64(blk.RowLen() * blk.NumRows())
		if len(workers) == 2 {
			once.Do(func() { close(second) })
		}
		mu.Unlock()
		if runtime.GOMAXPROCS(0) > 1 {
			// Hold the first goroutine until a second one has a chunk.
			select {
			case <-second:
			case <-time.After(5 * time.Second):
			}
		}
		elems.Add(int64(blk.RowLen() * blk.NumRows()))
		return add(blk)
	}))
	if runtime.GOMAXPROCS(0) > 1 && len(workers) < 2 {
		t.Errorf("Run used %d goroutine(s) for %d chunks", len(workers), n)
	}
	if elems.Load() != 300000 {
		t.Fatalf("the func saw %d elements", elems.Load())
	}
	var sum int64
	for _, e := range perChunk {
		sum += e
		if e == 0 {
			t.Fatalf("a chunk ran no block: %v", perChunk)
		}
	}
	out := must(it.Output())(t)
	wantFloats(t, must(out.Float32s())(t), want)
	out.Close()

	// The host's own goroutines, chunks in reverse.
	it2 := must(NewIter([]*Tensor{a, b}, nil, nil))(t)
	defer it2.Close()
	var next atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				if err := it2.RunChunk(n-1-k, add); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	out2 := must(it2.Output())(t)
	wantFloats(t, must(out2.Float32s())(t), want)
	out2.Close()

	// One thread on the Context: one goroutine.
	one := NewContext()
	defer one.Close()
	ok(t, one.SetNumThreads(1))
	it3 := must(one.NewIter([]*Tensor{a, b}, nil, nil))(t)
	defer it3.Close()
	seen := map[*Block]bool{}
	ok(t, it3.Run(func(blk *Block) error {
		seen[blk] = true // one goroutine: no lock needed, which -race checks
		return add(blk)
	}))
	if len(seen) != 1 {
		t.Errorf("a Context of one thread ran on %d goroutines", len(seen))
	}
}

// TestIterReset: a plan reused on new operands of the same shapes and
// dtypes; others are refused and the iterator keeps its operands.
func TestIterReset(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	p := testPinner(t)
	v := [][]float64{smallInts(rng, 1200, false), smallInts(rng, 30, false), smallInts(rng, 1200, false), smallInts(rng, 30, false)}
	a1, b1 := typedTensor(t, Int32, v[0], []int64{40, 30}), typedTensor(t, Int32, v[1], []int64{30})
	a2, b2 := stridedTensor[int32](t, p, v[2], []int64{40, 30}), typedTensor(t, Int32, v[3], []int64{30})
	shapes := [][]int64{{40, 30}, {30}}
	loop := []DType{Float64, Float64, Float64}
	it := must(NewIter([]*Tensor{a1, b1}, nil, loop))(t)
	defer it.Close()
	sum := func(blk *Block) error {
		for i := 0; i < blk.NumRows(); i++ {
			o, x, y := Row[float64](blk, 0, i), Row[float64](blk, 1, i), Row[float64](blk, 2, i)
			for j := range o {
				yy := y[0]
				if !blk.Repeated(2) {
					yy = y[j]
				}
				o[j] = 3*x[j] + yy
			}
		}
		return nil
	}
	ok(t, it.Run(sum))
	out1 := must(it.Output())(t)
	ok(t, it.Reset([]*Tensor{a2, b2}, nil))
	ok(t, it.Run(sum))
	out2 := must(it.Output())(t)
	closeAll(t, out1, out2)
	want1, _ := iterReference(v[:2], shapes)
	want2, _ := iterReference(v[2:], shapes)
	for _, c := range []struct {
		out  *Tensor
		want []float64
	}{{out1, want1}, {out2, want2}} {
		if c.out.DType() != Float64 {
			t.Fatalf("output dtype %v, want loop[0]'s", c.out.DType())
		}
		wantValues(t, "reset", must(c.out.Float64s())(t), c.want)
	}
	wrong := typedTensor(t, Int32, smallInts(rng, 40*31, false), []int64{40, 31})
	wantErr(t, it.Reset([]*Tensor{wrong, b2}, nil), ErrShapeMismatch,
		"input 0 has shape [40, 31], the iterator was planned for [40, 30]", nil)
	wantErr(t, it.Reset([]*Tensor{a2, typedTensor(t, Int16, v[3], []int64{30})}, nil), ErrDtype, "", nil)
	wantErr(t, it.Reset([]*Tensor{a2}, nil), ErrInvalidArgument, "1 inputs given to an iterator made with 2", nil)
	// Into a given output, then kept after a refusal.
	out3 := must(Zeros(Float64, 40, 30))(t)
	closeAll(t, out3)
	ok(t, it.Reset([]*Tensor{a1, b1}, out3))
	ok(t, it.Run(sum))
	wantValues(t, "reset into out", must(out3.Float64s())(t), want1)
	wantErr(t, it.Reset([]*Tensor{a1, b1}, typedTensor(t, Int32, want1, []int64{40, 30})), ErrDtype, "", nil)
	ok(t, it.Run(sum))
	wantValues(t, "kept", must(out3.Float64s())(t), want1)
	ok(t, it.Close())
	ok(t, it.Close())
	wantErr(t, it.Run(sum), ErrInvalidArgument, "use of closed Iter", nil)
	wantErr(t, it.Reset([]*Tensor{a1, b1}, nil), ErrInvalidArgument, "use of closed Iter", nil)
	_, err := it.Output()
	wantErr(t, err, ErrInvalidArgument, "use of closed Iter", nil)
	wantErr(t, it.RunChunk(0, sum), ErrInvalidArgument, "use of closed Iter", nil)
}

// TestIterRefusals: NewIter's own checks and C's, with their texts.
func TestIterRefusals(t *testing.T) {
	a := must(FromFloat32s([]float32{1, 2, 3}, 3))(t)
	b := must(FromFloat32s([]float32{1, 2, 3, 4}, 4))(t)
	closeAll(t, a, b)
	_, err := NewIter(nil, nil, nil)
	wantErr(t, err, ErrInvalidArgument, "an iterator takes 1 to 3 inputs, not 0", nil)
	_, err = NewIter([]*Tensor{a, a, a, a}, nil, nil)
	wantErr(t, err, ErrInvalidArgument, "an iterator takes 1 to 3 inputs, not 4", nil)
	_, err = NewIter([]*Tensor{a}, nil, []DType{Float32})
	wantErr(t, err, ErrInvalidArgument,
		"1 loop dtypes given for 1 inputs: want 2 (the output's, then each input's)", nil)
	_, err = NewIter([]*Tensor{a, b}, nil, nil)
	wantErr(t, err, ErrNotBroadcastable,
		"The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0", nil)
	_, err = NewIter([]*Tensor{a, nil}, nil, nil)
	wantErr(t, err, ErrInvalidArgument, "input 1 is NULL", nil)
	_, err = NewIter([]*Tensor{a}, nil, []DType{DType(42), Float32})
	wantErr(t, err, ErrInvalidArgument, "unknown dtype 42 for the output", nil)
	s := must(FromFloat32s([]float32{1}))(t)
	closeAll(t, s)
	_, err = NewIter([]*Tensor{s, s}, b, nil)
	wantErr(t, err, ErrShapeMismatch, "output with shape [4] doesn't match the broadcast shape []", nil)

	// The promoted dtype by default; an empty iteration runs nothing.
	i8 := must(FromInt8s([]int8{1, 2, 3}, 3))(t)
	e := must(Zeros(Int16, 0, 3))(t)
	closeAll(t, i8, e)
	it := must(NewIter([]*Tensor{i8, e}, nil, nil))(t)
	defer it.Close()
	if it.Numel() != 0 || it.NumChunks() != 0 {
		t.Fatalf("empty: Numel %d, NumChunks %d", it.Numel(), it.NumChunks())
	}
	ok(t, it.Run(func(*Block) error { return errBoom }))
	out := must(it.Output())(t)
	closeAll(t, out)
	if out.DType() != Int16 {
		t.Fatalf("allocated %v, want Int16 (promoted)", out.DType())
	}
	wantShape(t, out, 0, 3)
	var nilIter *Iter
	ok(t, nilIter.Close())

	// The Context's lanes: an Iter holds one until Close.
	c := NewContext()
	it2 := must(c.NewIter([]*Tensor{a}, nil, nil))(t)
	if live, _ := c.lanes(); live != 1 {
		t.Fatalf("%d lanes live with an Iter open", live)
	}
	ok(t, c.Close())
	ok(t, it2.Run(func(*Block) error { return nil })) // runs on after the Context's Close
	ok(t, it2.Close())
	if live, _ := c.lanes(); live != 0 {
		t.Fatalf("%d lanes live after Close", live)
	}
	_, err = c.NewIter([]*Tensor{a}, nil, nil)
	wantErr(t, err, ErrInvalidArgument, "use of closed Context", nil)
}

// TestIterOutputOutlivesTheIterator: the output an iterator allocated lives
// on in a handle from Output.
func TestIterOutputOutlivesTheIterator(t *testing.T) {
	a := must(FromFloat64s([]float64{1, 2, 3, 4}, 2, 2))(t)
	closeAll(t, a)
	it := must(NewIter([]*Tensor{a}, nil, nil))(t)
	ok(t, it.Run(func(b *Block) error {
		for i := 0; i < b.NumRows(); i++ {
			o, x := Row[float64](b, 0, i), Row[float64](b, 1, i)
			for j := range o {
				o[j] = -x[j]
			}
		}
		return nil
	}))
	out := must(it.Output())(t)
	closeAll(t, out)
	ok(t, it.Close())
	runtime.GC()
	wantFloats(t, must(out.Float64s())(t), []float64{-1, -2, -3, -4})
}

// TestIterFuncAllocatesNothing: a Run whose func allocates nothing
// allocates a fixed amount, not one per block: here a few hundred blocks
// (float32 operands converted to a float64 loop, a tile at a time).
func TestIterFuncAllocatesNothing(t *testing.T) {
	a, b := bigPair(t)
	one := NewContext()
	defer one.Close()
	ok(t, one.SetNumThreads(1))
	it := must(one.NewIter([]*Tensor{a, b}, nil, []DType{Float64, Float64, Float64}))(t)
	defer it.Close()
	var blocks int
	ok(t, it.Run(func(*Block) error { blocks++; return nil }))
	nop := func(*Block) error { return nil }
	if n := testing.AllocsPerRun(10, func() { _ = it.Run(nop) }); n > 10 || blocks < 100 {
		t.Errorf("Run allocates %v times for %d blocks", n, blocks)
	}
}
