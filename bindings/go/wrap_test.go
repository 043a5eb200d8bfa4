package bcast

import (
	"runtime"
	"sync"
	"testing"
)

// Tensors over pinned Go slices: ops and iterators read and write the
// slices themselves, against naive loops in plain Go. Not parallel: the
// count of wrapped buffers (wrappedLive) is the process's.

// TestWrapSliceZeroCopy: ops and iterators on wrapped []float32, results
// in the Go slices, writes either way seen by the other side; every handle
// over the slices gone once the tensors are closed.
func TestWrapSliceZeroCopy(t *testing.T) {
	live := wrappedLive()
	p := testPinner(t)
	a, b, out := iotaF32(12, 1), iotaF32(4, 10), make([]float32, 12)
	ta := must(WrapSlice(p, a, 3, 4))(t)
	tb := must(WrapSlice(p, b, 4))(t)
	to := must(WrapSlice(p, out, 3, 4))(t)
	if got := wrappedLive() - live; got != 3 {
		t.Fatalf("%d wrapped buffers live, want 3", got)
	}
	sum := func(x, y float32) float32 { return x + y }

	// An op writes the Go slice.
	ok(t, AddOut(ta, tb, to))
	want, _ := refBinary(a, []int64{3, 4}, b, []int64{4}, sum)
	wantFloats(t, out, want)
	// A Go write is seen by the tensor.
	a[5] = 100
	wantFloats(t, must(ta.Float32s())(t)[5:6], []float32{100})
	// In place into a's own slice.
	before := append([]float32(nil), a...)
	ok(t, AddInPlace(ta, tb))
	want, _ = refBinary(before, []int64{3, 4}, b, []int64{4}, sum)
	wantFloats(t, a, want)
	// An allocating op over wrapped inputs: its result is C memory.
	c := must(Mul(ta, tb))(t)
	want, _ = refBinary(a, []int64{3, 4}, b, []int64{4}, func(x, y float32) float32 { return x * y })
	wantFloats(t, must(c.Float32s())(t), want)
	c.Close()

	// An iterator over wrapped operands into a wrapped output.
	ok(t, ForEach2Out(ta, tb, to, func(o, x, y []float32) {
		for j := range o {
			o[j] = x[j]*y[j] - 1
		}
	}))
	want, _ = refBinary(a, []int64{3, 4}, b, []int64{4}, func(x, y float32) float32 { return x*y - 1 })
	wantFloats(t, out, want)

	// A column, expanded: a view sharing the column's slice.
	col := []float32{1, 2, 3}
	tc := must(WrapSlice(p, col, 3, 1))(t)
	ex := must(tc.Expand(3, 4))(t)
	r := must(ForEach2(ex, ta, func(o, x, y []float32) {
		for j := range o {
			o[j] = x[j] - y[j]
		}
	}))(t)
	want, _ = refBinary(col, []int64{3, 1}, a, []int64{3, 4}, func(x, y float32) float32 { return x - y })
	wantFloats(t, must(r.Float32s())(t), want)
	r.Close()

	// An Iter whose output is a wrapped slice, and its output handle.
	it := must(NewIter([]*Tensor{ex}, to, nil))(t)
	ok(t, it.Run(func(blk *Block) error {
		for i := 0; i < blk.NumRows(); i++ {
			o, x := Row[float32](blk, 0, i), Row[float32](blk, 1, i)
			for j := range o {
				o[j] = 2 * x[min(j, len(x)-1)]
			}
		}
		return nil
	}))
	oh := must(it.Output())(t)
	for i := range out {
		if out[i] != 2*col[i/4] {
			t.Fatalf("out[%d] = %v, want %v", i, out[i], 2*col[i/4])
		}
	}
	out[0] = -7 // and the handle reads the slice
	wantFloats(t, must(oh.Float32s())(t)[:1], []float32{-7})

	// Every handle closed: nothing in C points to the slices any more, and
	// Unpin (at the end of the test) is safe.
	if wrappedLive()-live != 4 {
		t.Fatalf("%d wrapped buffers live, want 4", wrappedLive()-live)
	}
	for _, x := range []*Tensor{ta, tb, to, tc, ex, oh} {
		x.Close()
	}
	if wrappedLive()-live != 2 { // the iterator's views of ex (col) and to
		t.Fatalf("%d wrapped buffers live with the Iter open, want 2", wrappedLive()-live)
	}
	ok(t, it.Close())
	if got := wrappedLive() - live; got != 0 {
		t.Fatalf("%d wrapped buffers still referenced after every Close", got)
	}
}

// TestWrapSliceTypes: every Element type round-trips, 0-dim and empty
// slices too.
func TestWrapSliceTypes(t *testing.T) {
	p := testPinner(t)
	check := func(x *Tensor, err error, d DType, shape ...int64) {
		t.Helper()
		closeAll(t, must(x, err)(t))
		if x.DType() != d {
			t.Fatalf("%v: dtype %v, want %v", x, x.DType(), d)
		}
		wantShape(t, x, shape...)
	}
	u8 := []uint8{1, 2}
	x, err := WrapSlice(p, u8, 2)
	check(x, err, Uint8, 2)
	wantEqual(t, must(x.Uint8s())(t), u8)
	x, err = WrapSlice(p, []int8{-1, 2}, 2)
	check(x, err, Int8, 2)
	x, err = WrapSlice(p, []int16{-1, 2}, 1, 2)
	check(x, err, Int16, 1, 2)
	x, err = WrapSlice(p, []int32{7})
	check(x, err, Int32)
	wantEqual(t, must(x.Int32s())(t), []int32{7})
	x, err = WrapSlice(p, []int64{}, 0, 3)
	check(x, err, Int64, 0, 3)
	x, err = WrapSlice(p, []float64{1, 2, 3, 4}, 2, 2)
	check(x, err, Float64, 2, 2)
	wantEqual(t, must(x.Float64s())(t), []float64{1, 2, 3, 4})
	c := NewContext()
	defer c.Close()
	x, err = WrapSliceOn(c, p, []float32{1, 2, 3}, 3)
	check(x, err, Float32, 3)
}

// TestWrapSliceStrided: a transposed matrix and every other element of a
// slice, read and written in place.
func TestWrapSliceStrided(t *testing.T) {
	p := testPinner(t)
	// (3, 4) stored column by column.
	data := make([]float64, 12)
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			data[j*3+i] = float64(10*i + j)
		}
	}
	tr := must(WrapSliceStrided(p, data, []int64{3, 4}, []int64{1, 3}))(t)
	closeAll(t, tr)
	wantEqual(t, must(tr.Float64s())(t), []float64{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23})
	if tr.IsContiguous() {
		t.Fatal("a transposed wrap reports contiguous")
	}
	// Every other element: the gaps stay untouched.
	gaps := []int32{1, -1, 2, -1, 3, -1}
	ev := must(WrapSliceStrided(p, gaps, []int64{3}, []int64{2}))(t)
	closeAll(t, ev)
	ok(t, ForEach1Out(ev, ev, func(o, x []int32) {
		for j := range o {
			o[j] = 10 * x[j]
		}
	}))
	wantEqual(t, gaps, []int32{10, -1, 20, -1, 30, -1})

	_, err := WrapSliceStrided(p, data, []int64{3, 4}, []int64{1, 4})
	wantErr(t, err, ErrOutOfBounds, "", nil)
	_, err = WrapSliceStrided(p, data, []int64{3, 4}, []int64{1})
	wantErr(t, err, ErrInvalidArgument, "1 strides given for 2 dims", nil)
	_, err = WrapSliceStrided(p, data, []int64{3, 4}, []int64{1, -3})
	wantErr(t, err, ErrInvalidArgument, "", nil)
	zero := must(WrapSliceStrided(p, []float32{5}, nil, nil))(t) // 0-dim
	closeAll(t, zero)
	wantShape(t, zero)
}

// TestWrapSliceRefusals: the Go side's checks and C's, with nothing left
// wrapped.
func TestWrapSliceRefusals(t *testing.T) {
	live := wrappedLive()
	p := testPinner(t)
	_, err := WrapSlice(p, []float32{1, 2, 3, 4, 5}, 2, 3)
	wantErr(t, err, ErrInvalidArgument, "5 values given for shape [2, 3] (6 elements)", nil)
	_, err = WrapSlice(p, []float32{1, 2}, 1)
	wantErr(t, err, ErrInvalidArgument, "2 values given for shape [1] (1 element)", nil)
	_, err = WrapSlice(nil, []float32{1}, 1)
	wantErr(t, err, ErrInvalidArgument, "WrapSlice needs a *runtime.Pinner", nil)
	_, err = WrapSlice(p, []float32{1}, -1)
	wantErr(t, err, ErrInvalidArgument, "", nil)
	c := NewContext()
	c.Close()
	_, err = WrapSliceOn(c, p, []float32{1}, 1)
	wantErr(t, err, ErrInvalidArgument, "use of closed Context", nil)
	if wrappedLive() != live {
		t.Fatalf("a refused wrap left %d buffers wrapped", wrappedLive()-live)
	}
}

// TestWrapSliceFromGoroutines: goroutines wrap slices of their own under
// one Pinner each and run ops and iterators on them at once (-race).
func TestWrapSliceFromGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var p runtime.Pinner
			defer p.Unpin()
			n := 50000 + g
			a, out := iotaF32(n, float32(g)), make([]float32, n)
			b := []float32{float32(g)}
			ta, err1 := WrapSlice(&p, a, int64(n))
			tb, err2 := WrapSlice(&p, b)
			to, err3 := WrapSlice(&p, out, int64(n))
			if err1 != nil || err2 != nil || err3 != nil {
				t.Error(err1, err2, err3)
				return
			}
			defer func() { ta.Close(); tb.Close(); to.Close() }()
			for rep := 0; rep < 3; rep++ {
				if err := SubOut(ta, tb, to); err != nil {
					t.Error(err)
					return
				}
				for i := range out {
					if out[i] != a[i]-b[0] {
						t.Errorf("goroutine %d: out[%d] = %v, want %v", g, i, out[i], a[i]-b[0])
						return
					}
				}
				err := ForEach2Out(ta, tb, to, func(o, x, y []float32) {
					for j := range o {
						o[j] = x[j] * y[j]
					}
				})
				if err != nil {
					t.Error(err)
					return
				}
				for i := range out {
					if out[i] != a[i]*b[0] {
						t.Errorf("goroutine %d: out[%d] = %v, want %v", g, i, out[i], a[i]*b[0])
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
}

// TestWrapSliceDeferOrder: the documented pattern, a Pinner whose Unpin is
// deferred first, so that the deferred Closes of everything wrapped run
// before it.
func TestWrapSliceDeferOrder(t *testing.T) {
	live := wrappedLive()
	func() {
		var p runtime.Pinner
		defer p.Unpin() // runs last
		x := must(WrapSlice(&p, []float64{1, 2, 3}, 3))(t)
		defer x.Close()
		y := must(x.View())(t)
		defer y.Close()
		s := must(Sum(y, nil, false))(t)
		defer s.Close()
		if v := must(s.Float64s())(t); v[0] != 6 {
			t.Errorf("sum %v", v)
		}
	}()
	if d := wrappedLive() - live; d != 0 {
		t.Fatalf("%d wrapped buffers live after the deferred Closes", d)
	}
}
