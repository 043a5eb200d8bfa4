package bcast

import (
	"runtime"
	"sync"
	"testing"
)

func TestCloseIsIdempotent(t *testing.T) {
	x := must(Zeros(Float32, 2))(t)
	ok(t, x.Close())
	ok(t, x.Close())
	var nilT *Tensor
	ok(t, nilT.Close())
	if s := x.String(); s != "Tensor(closed)" {
		t.Errorf("String() of a closed tensor: %q", s)
	}

	// Concurrent Close frees once.
	y := must(Zeros(Float32, 2))(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); y.Close() }()
	}
	wg.Wait()
}

func TestUseAfterClose(t *testing.T) {
	x := must(FromFloat32s([]float32{1, 2}, 2))(t)
	y := must(FromFloat32s([]float32{1, 2}, 2))(t)
	defer y.Close()
	x.Close()
	const msg = "use of closed Tensor"
	_, err := Add(x, y)
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	_, err = Add(y, x)
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	wantErr(t, AddInPlace(x, y), ErrInvalidArgument, msg, nil)
	wantErr(t, AddOut(y, y, x), ErrInvalidArgument, msg, nil)
	_, err = x.Float32s()
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	_, err = x.Expand(3, 2)
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	_, err = x.Clone()
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	_, err = BroadcastTensors(y, x)
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	_, err = x.Strides()
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	if x.IsContiguous() {
		t.Error("closed tensor reports contiguous")
	}
	// The cached shape and dtype stay readable.
	wantShape(t, x, 2)
}

func TestNilTensorIsRefusedByC(t *testing.T) {
	y := must(Zeros(Float32, 2))(t)
	defer y.Close()
	_, err := Add(nil, y)
	wantErr(t, err, ErrInvalidArgument, "", nil)
	wantErr(t, AddInPlace(nil, y), ErrInvalidArgument, "", nil)
	wantErr(t, Copy(y, nil), ErrInvalidArgument, "", nil)
	_, err = (*Tensor)(nil).Float32s()
	wantErr(t, err, ErrInvalidArgument, "", nil)
}

func TestConstructorChecks(t *testing.T) {
	_, err := FromFloat32s([]float32{1, 2, 3}, 2, 2)
	wantErr(t, err, ErrInvalidArgument, "3 values given for shape [2, 2] (4 elements)", nil)
	_, err = FromInt64s([]int64{1, 2})
	wantErr(t, err, ErrInvalidArgument, "2 values given for shape [] (1 element)", nil)
	// Shapes the Go side cannot count go to C, which refuses them itself.
	_, err = FromFloat32s([]float32{1}, -1)
	wantErr(t, err, ErrInvalidArgument, "", nil)
	_, err = Zeros(Float32, 2, -3)
	wantErr(t, err, ErrInvalidArgument, "", nil)
	tooMany := make([]int64, 33)
	for i := range tooMany {
		tooMany[i] = 1
	}
	_, err = FromFloat32s([]float32{1}, tooMany...)
	wantErr(t, err, ErrInvalidArgument, "", nil)
	_, err = FromUint8s(nil, 1<<40, 1<<40)
	if err == nil {
		t.Fatal("an overflowing shape was accepted")
	}
	_, err = Empty(DType(42), 2)
	wantErr(t, err, ErrInvalidArgument, "", nil)

	// Empty data needs no pointer.
	e := must(FromFloat64s(nil, 3, 0))(t)
	defer e.Close()
	wantShape(t, e, 3, 0)
	if v := must(e.Float64s())(t); len(v) != 0 {
		t.Fatalf("values %v", v)
	}

	// Accessors check the dtype.
	_, err = e.Float32s()
	wantErr(t, err, ErrDtype, "tensor has dtype Float64 (torch.float64), not Float32 (torch.float32)", nil)
}

func TestEveryElementType(t *testing.T) {
	check := func(x *Tensor, err error) func(DType) *Tensor {
		return func(dt DType) *Tensor {
			t.Helper()
			if err != nil {
				t.Fatalf("%v: %v", dt, err)
			}
			if x.DType() != dt {
				t.Fatalf("dtype %v, want %v", x.DType(), dt)
			}
			wantShape(t, x, 2, 2)
			if !x.IsContiguous() {
				t.Errorf("%v: new tensor not contiguous", dt)
			}
			wantEqual(t, must(x.Strides())(t), []int64{2, 1})
			return x
		}
	}
	b := check(FromBools([]bool{true, false, false, true}, 2, 2))(Bool)
	wantEqual(t, must(b.Bools())(t), []bool{true, false, false, true})
	u8 := check(FromUint8s([]uint8{0, 1, 254, 255}, 2, 2))(Uint8)
	wantEqual(t, must(u8.Uint8s())(t), []uint8{0, 1, 254, 255})
	i8 := check(FromInt8s([]int8{-128, -1, 0, 127}, 2, 2))(Int8)
	wantEqual(t, must(i8.Int8s())(t), []int8{-128, -1, 0, 127})
	i16 := check(FromInt16s([]int16{-32768, -1, 0, 32767}, 2, 2))(Int16)
	wantEqual(t, must(i16.Int16s())(t), []int16{-32768, -1, 0, 32767})
	i32 := check(FromInt32s([]int32{-1 << 31, -1, 0, 1<<31 - 1}, 2, 2))(Int32)
	wantEqual(t, must(i32.Int32s())(t), []int32{-1 << 31, -1, 0, 1<<31 - 1})
	i64 := check(FromInt64s([]int64{-1 << 63, -1, 0, 1<<63 - 1}, 2, 2))(Int64)
	wantEqual(t, must(i64.Int64s())(t), []int64{-1 << 63, -1, 0, 1<<63 - 1})
	h := check(FromFloat16Bits([]uint16{0x3c00, 0x7c00, 0x8000, 0x0001}, 2, 2))(Float16)
	wantEqual(t, must(h.Float16Bits())(t), []uint16{0x3c00, 0x7c00, 0x8000, 0x0001})
	bf := check(FromBFloat16Bits([]uint16{0x3f80, 0x7f80, 0x8000, 0x0001}, 2, 2))(BFloat16)
	wantEqual(t, must(bf.BFloat16Bits())(t), []uint16{0x3f80, 0x7f80, 0x8000, 0x0001})
	f32 := check(FromFloat32s([]float32{1.5, -0, 3e38, 1e-45}, 2, 2))(Float32)
	wantFloats(t, must(f32.Float32s())(t), []float32{1.5, -0, 3e38, 1e-45})
	f64 := check(FromFloat64s([]float64{1.5, -0, 1e308, 5e-324}, 2, 2))(Float64)
	wantFloats(t, must(f64.Float64s())(t), []float64{1.5, -0, 1e308, 5e-324})
	for _, x := range []*Tensor{b, u8, i8, i16, i32, i64, h, bf, f32, f64} {
		x.Close()
	}
	z := must(Zeros(Float16, 3))(t)
	defer z.Close()
	wantEqual(t, must(z.Float16Bits())(t), []uint16{0, 0, 0})
	if s := z.String(); s != "Tensor(Float16, [3])" {
		t.Errorf("String() = %q", s)
	}
	em := must(Empty(Int16, 4, 1))(t)
	defer em.Close()
	wantShape(t, em, 4, 1)
}

func TestNamesMatchTheLibrary(t *testing.T) {
	for c := Code(0); c <= ErrPolicy+1; c++ {
		if got, want := c.String(), cStatusString(c); got != want {
			t.Errorf("Code(%d): %q, C says %q", c, got, want)
		}
	}
	for d := DType(0); d <= Float64+1; d++ {
		if got, want := d.ScalarTypeName(), cDTypeName(d); got != want {
			t.Errorf("DType(%d).ScalarTypeName(): %q, C says %q", d, got, want)
		}
		if got, want := d.Size(), cDTypeSize(d); got != want {
			t.Errorf("DType(%d).Size(): %d, C says %d", d, got, want)
		}
	}
	for op := Op(0); op <= NumOps; op++ {
		if got, want := op.String(), cOpName(op); got != want {
			t.Errorf("Op(%d): %q, C says %q", op, got, want)
		}
	}
	if Version() != HeaderVersion() {
		t.Errorf("library version %d, header %d", Version(), HeaderVersion())
	}
	if VersionString() == "" || SIMDTarget() == "" {
		t.Error("empty version or SIMD target")
	}
}

// TestGCPressure drops tensors without Close and runs the collector between
// calls: views must keep their storage alive after their base handle is
// finalized, and no finalizer may free a handle that a call is still using.
func TestGCPressure(t *testing.T) {
	iters := 100
	if testing.Short() {
		iters = 25
	}
	// Collections also run while C works, so that a handle left unreachable
	// during a call would be finalized under it.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for i := 0; i < iters; i++ {
		base, err := FromInt64s([]int64{int64(i), int64(i + 1)}, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		const w = 1 << 15 // wide enough for the call to take a while
		view, err := base.Expand(2, w)
		if err != nil {
			t.Fatal(err)
		}
		base = nil // only the finalizer frees it now
		runtime.GC()
		ov := make([]int64, w)
		for k := range ov {
			ov[k] = int64(k) * 10
		}
		other, err := FromInt64s(ov, w)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		sum, err := Add(view, other) // view and other are unreachable after this call
		runtime.GC()
		if err != nil {
			t.Fatal(err)
		}
		v, err := sum.Int64s()
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 2*w; k++ {
			if want := int64(i+k/w) + int64(k%w)*10; v[k] != want {
				t.Fatalf("iteration %d: element %d is %d, want %d", i, k, v[k], want)
			}
		}
		if i%2 == 0 {
			sum.Close() // mix explicit and finalizer frees
		}
		// A failing call on unreachable operands.
		bad, _ := Zeros(Float32, 5)
		_, err = Add(bad, other) // 5 against w
		wantErr(t, err, ErrNotBroadcastable, "", nil)
		runtime.GC()
	}
	// Let the finalizers of the last round run too.
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
}

// TestFinalizerFreesForgottenTensors makes many tensors without closing them:
// with finalizers working, the garbage collector keeps them in check.
func TestFinalizerFreesForgottenTensors(t *testing.T) {
	for i := 0; i < 2000; i++ {
		x, err := Zeros(Float64, 64, 64) // 32 KiB of C memory each
		if err != nil {
			t.Fatal(err)
		}
		_ = x
		if i%100 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
}
