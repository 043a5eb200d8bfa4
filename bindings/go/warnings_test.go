package bcast

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestWarningHandlerGetsGoFunc(t *testing.T) {
	t.Parallel()
	ctx := newContext(t)
	a := must(ctx.FromFloat32s([]float32{1, 2, 3, 4}, 4, 1))(t)
	b := must(ctx.FromFloat32s([]float32{1, 2, 3, 4}, 4))(t)
	closeAll(t, a, b)
	ctx.SetBroadcastWarning(true)

	var first, second []string
	ctx.SetWarningHandler(func(m string) { first = append(first, m) })
	c := must(ctx.Add(a, b))(t)
	c.Close()
	ctx.SetWarningHandler(func(m string) { second = append(second, m) })
	c = must(ctx.Add(a, b))(t)
	c.Close()
	c = must(ctx.Mul(a, b))(t)
	c.Close()
	wantEqual(t, first, []string{msgBroadcastWarning})
	wantEqual(t, second, []string{msgBroadcastWarning, msgBroadcastWarning})

	// Back to the default handler (stderr): nothing reaches Go any more.
	ctx.SetWarningHandler(nil)
	c = must(ctx.Add(a, b))(t)
	c.Close()
	wantEqual(t, second, []string{msgBroadcastWarning, msgBroadcastWarning})
}

func TestWarningHandlerPanicIsRecovered(t *testing.T) {
	t.Parallel()
	ctx := newContext(t)
	a := must(ctx.FromFloat64s([]float64{1, 2}, 2, 1))(t)
	b := must(ctx.FromFloat64s([]float64{10, 20}, 2))(t)
	closeAll(t, a, b)
	ctx.SetBroadcastWarning(true)
	calls := 0
	ctx.SetWarningHandler(func(string) { calls++; panic("handler bug") })
	// The op still completes: the panic stops in the callback.
	c := must(ctx.Add(a, b))(t)
	defer c.Close()
	wantFloats(t, must(c.Float64s())(t), []float64{11, 21, 12, 22})
	if calls != 1 {
		t.Fatalf("handler called %d times", calls)
	}
	// And the binding is still usable, errors included.
	x := must(ctx.Zeros(Float64, 3, 1))(t)
	defer x.Close()
	_, err := ctx.Add(a, x)
	wantErr(t, err, ErrNotBroadcastable,
		"The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0", nil)
}

func TestWarningHandlerMayCallBcast(t *testing.T) {
	t.Parallel()
	ctx := newContext(t)
	a := must(ctx.FromInt32s([]int32{1, 2}, 2, 1))(t)
	b := must(ctx.FromInt32s([]int32{5, 6}, 2))(t)
	closeAll(t, a, b)
	ctx.SetBroadcastWarning(true)
	var inner []int32
	var innerErr error
	three := must(ctx.Zeros(Int32, 3))(t)
	defer three.Close()
	// A good call and a failing one from inside the handler (which must not
	// call t.Fatal: Goexit may not run in a cgo callback).
	ctx.SetWarningHandler(func(string) {
		c, err := ctx.Mul(b, b)
		if err != nil {
			innerErr = err
			return
		}
		inner, _ = c.Int32s()
		c.Close()
		_, innerErr = ctx.Add(b, three)
	})
	c := must(ctx.Add(a, b))(t)
	defer c.Close()
	wantEqual(t, must(c.Int32s())(t), []int32{6, 7, 7, 8})
	wantEqual(t, inner, []int32{25, 36})
	wantErr(t, innerErr, ErrNotBroadcastable, "", nil)
}

// TestWarningsFromManyGoroutines raises warnings from many goroutines while
// the handler is being replaced: every warning lands in a live handler and
// nothing crashes.
func TestWarningsFromManyGoroutines(t *testing.T) {
	resetSettings(t)
	a := must(FromFloat32s([]float32{1, 2, 3, 4}, 4, 1))(t)
	b := must(FromFloat32s([]float32{1, 2, 3, 4}, 4))(t)
	closeAll(t, a, b)
	SetBroadcastWarning(true)
	var got atomic.Int64
	var bad atomic.Int64
	handler := func(m string) {
		if m != msgBroadcastWarning {
			bad.Add(1)
		}
		got.Add(1)
	}
	SetWarningHandler(handler)
	const workers, iters = 16, 200
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < iters; i++ {
				c, err := Add(a, b)
				if err != nil {
					t.Error(err)
					return
				}
				c.Close()
			}
		}()
	}
	for i := 0; i < 50; i++ {
		SetWarningHandler(handler)
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d wrong messages", bad.Load())
	}
	// A warning that raced a change may be dropped, but not many.
	if n := got.Load(); n < workers*iters-100 || n > workers*iters {
		t.Fatalf("%d warnings for %d calls", n, workers*iters)
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	resetSettings(t)
	for _, on := range []bool{true, false} {
		SetBroadcastWarning(on)
		SetLegacyPointwise(on)
		SetWarningsAsErrors(on)
		if BroadcastWarning() != on || LegacyPointwise() != on || WarningsAsErrors() != on {
			t.Fatalf("settings do not read back %v", on)
		}
	}
	for _, p := range []Policy{PolicyWarn, PolicyError, PolicyAllow} {
		ok(t, SetBroadcastPolicy(p))
		if BroadcastPolicy() != p {
			t.Fatalf("policy %v reads back %v", p, BroadcastPolicy())
		}
	}
	if PolicyWarn.String() != "warn" || Policy(9).String() != "Policy(9)" {
		t.Error("Policy.String")
	}
	n := NumThreads()
	if n < 1 {
		t.Fatalf("NumThreads() = %d", n)
	}
	ok(t, SetNumThreads(1))
	if NumThreads() != 1 {
		t.Fatalf("NumThreads() = %d after SetNumThreads(1)", NumThreads())
	}
	ok(t, SetNumThreads(0))
	if NumThreads() != n {
		t.Fatalf("NumThreads() = %d after restoring the default %d", NumThreads(), n)
	}
	ok(t, SetSIMDCap(""))
	wantErr(t, SetSIMDCap("NO_SUCH_TARGET"), ErrInvalidArgument, "", nil)
	target := SIMDTarget()
	ok(t, SetSIMDCap(target))
	if SIMDTarget() != target {
		t.Errorf("capping at %q gives %q", target, SIMDTarget())
	}
	ok(t, SetSIMDCap(""))
}
