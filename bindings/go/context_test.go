package bcast

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// newContext returns a Context closed when the test ends.
func newContext(t testing.TB) *Context {
	c := NewContext()
	t.Cleanup(func() { c.Close() })
	return c
}

func policyErrorMsg(m int64) string {
	return fmt.Sprintf("broadcast policy is 'error': self with shape [2, %d] and other with shape [%d] "+
		"would be implicitly broadcast to [2, %d]", m, m, m)
}

func policyWarnMsg(m int64) string {
	return fmt.Sprintf("implicit broadcast: self with shape [2, %d] and other with shape [%d] "+
		"broadcast to [2, %d]", m, m, m)
}

func TestContextStartsFromDefaults(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	if c.BroadcastWarning() || c.LegacyPointwise() || c.WarningsAsErrors() || c.BroadcastPolicy() != PolicyAllow {
		t.Fatal("a new Context does not start from the defaults")
	}
	if c.NumThreads() < 1 {
		t.Fatalf("NumThreads() = %d", c.NumThreads())
	}
}

func TestContextSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	for _, on := range []bool{true, false, true} {
		c.SetBroadcastWarning(on)
		c.SetLegacyPointwise(on)
		c.SetWarningsAsErrors(on)
		if c.BroadcastWarning() != on || c.LegacyPointwise() != on || c.WarningsAsErrors() != on {
			t.Fatalf("settings do not read back %v", on)
		}
	}
	for _, p := range []Policy{PolicyWarn, PolicyError, PolicyAllow} {
		ok(t, c.SetBroadcastPolicy(p))
		if c.BroadcastPolicy() != p {
			t.Fatalf("policy %v reads back %v", p, c.BroadcastPolicy())
		}
	}
	ok(t, c.SetBroadcastPolicy(PolicyWarn))
	wantErr(t, c.SetBroadcastPolicy(Policy(7)), ErrInvalidArgument, "unknown broadcast policy 7", nil)
	if c.BroadcastPolicy() != PolicyWarn {
		t.Fatalf("a refused policy changed it to %v", c.BroadcastPolicy())
	}
	n := c.NumThreads()
	ok(t, c.SetNumThreads(1))
	if c.NumThreads() != 1 {
		t.Fatalf("NumThreads() = %d after SetNumThreads(1)", c.NumThreads())
	}
	ok(t, c.SetNumThreads(0))
	if c.NumThreads() != n {
		t.Fatalf("NumThreads() = %d after restoring the default %d", c.NumThreads(), n)
	}
	// None of it reached the default context.
	if Default().BroadcastWarning() || Default().BroadcastPolicy() != PolicyAllow || Default().WarningsAsErrors() {
		t.Fatal("a Context's settings changed Default()")
	}
}

func TestContextPolicyAndWarningsAsErrors(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	var warnings []string
	c.SetWarningHandler(func(m string) { warnings = append(warnings, m) })
	a := must(c.Zeros(Float32, 2, 3))(t)
	b := must(c.Zeros(Float32, 3))(t)
	s := must(c.Zeros(Float32))(t)
	closeAll(t, a, b, s)

	ok(t, c.SetBroadcastPolicy(PolicyError))
	_, err := c.Add(a, b)
	wantErr(t, err, ErrPolicy, policyErrorMsg(3), nil)
	must(c.Add(a, a))(t).Close()
	must(c.Add(a, s))(t).Close() // 0-dim operands are exempt
	// The same call on the default context broadcasts.
	must(Add(a, b))(t).Close()

	ok(t, c.SetBroadcastPolicy(PolicyWarn))
	must(c.Add(a, b))(t).Close()
	wantEqual(t, warnings, []string{policyWarnMsg(3)})

	c.SetWarningsAsErrors(true)
	_, err = c.Add(a, b)
	wantErr(t, err, ErrPolicy, policyWarnMsg(3), nil)
	wantEqual(t, warnings, []string{policyWarnMsg(3)})
	ok(t, c.SetBroadcastPolicy(PolicyAllow))
	c.SetBroadcastWarning(true)
	x := must(c.FromFloat32s([]float32{1, 2, 3, 4}, 4, 1))(t)
	y := must(c.FromFloat32s([]float32{1, 1, 1, 1}, 4))(t)
	closeAll(t, x, y)
	_, err = c.Add(x, y)
	wantErr(t, err, ErrPolicy, msgBroadcastWarning, nil)
	c.SetWarningsAsErrors(false)
	must(c.Add(x, y))(t).Close()
	wantEqual(t, warnings, []string{policyWarnMsg(3), msgBroadcastWarning})
	c.SetWarningHandler(nil)
	c.SetBroadcastWarning(false)
	must(c.Add(x, y))(t).Close()
	wantEqual(t, warnings, []string{policyWarnMsg(3), msgBroadcastWarning})
}

// TestContextHandlerMayCallSameContext calls the Context from its own
// handler: the nested call takes another lane.
func TestContextHandlerMayCallSameContext(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	c.SetBroadcastWarning(true)
	a := must(c.FromInt32s([]int32{1, 2}, 2, 1))(t)
	b := must(c.FromInt32s([]int32{5, 6}, 2))(t)
	three := must(c.Zeros(Int32, 3))(t)
	closeAll(t, a, b, three)
	var inner []int32
	var innerErr error
	c.SetWarningHandler(func(string) {
		p, err := c.Mul(b, b)
		if err != nil {
			innerErr = err
			return
		}
		inner, _ = p.Int32s()
		p.Close()
		_, innerErr = c.Add(b, three)
	})
	r := must(c.Add(a, b))(t)
	defer r.Close()
	wantEqual(t, must(r.Int32s())(t), []int32{6, 7, 7, 8})
	wantEqual(t, inner, []int32{25, 36})
	wantErr(t, innerErr, ErrNotBroadcastable,
		"The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0", nil)
}

// TestTwoContextsAtOnce uses a Context with PolicyError and one with
// PolicyWarn from many goroutines at once, with shapes unique to each call:
// every error, every warning and every handler count must belong to its own
// Context and call, and the default context must see none of it.
func TestTwoContextsAtOnce(t *testing.T) {
	t.Parallel()
	strict, loose := newContext(t), newContext(t)
	ok(t, strict.SetBroadcastPolicy(PolicyError))
	ok(t, loose.SetBroadcastPolicy(PolicyWarn))
	var strictWarnings, looseWarnings, badWarnings atomic.Int64
	strict.SetWarningHandler(func(string) { strictWarnings.Add(1) })
	var seen sync.Map // message -> count, for the loose context
	loose.SetWarningHandler(func(m string) {
		looseWarnings.Add(1)
		n, _ := seen.LoadOrStore(m, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	})
	var defaultCalls atomic.Int64
	const workers, iters = 24, 60
	var wg sync.WaitGroup
	errs := make(chan error, 3*workers)
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < iters; i++ {
				m := int64(2 + (g*iters+i)%101)
				a, err := Zeros(Float32, 2, m)
				if err != nil {
					errs <- err
					return
				}
				b, err := Zeros(Float32, m)
				if err != nil {
					errs <- err
					return
				}
				_, err = strict.Sub(a, b)
				if e := checkErr(err, ErrPolicy, policyErrorMsg(m), Detail{}); e != nil {
					errs <- fmt.Errorf("strict, goroutine %d iteration %d: %v", g, i, e)
				}
				runtime.Gosched()
				c, err := loose.Sub(a, b)
				if err != nil {
					errs <- fmt.Errorf("loose, goroutine %d iteration %d: %v", g, i, err)
				} else {
					c.Close()
				}
				// The default context broadcasts silently.
				c, err = Sub(a, b)
				if err != nil {
					errs <- fmt.Errorf("default, goroutine %d iteration %d: %v", g, i, err)
				} else {
					defaultCalls.Add(1)
					c.Close()
				}
				a.Close()
				b.Close()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		t.Error(err)
		if n++; n == 5 {
			break
		}
	}
	if strictWarnings.Load() != 0 || badWarnings.Load() != 0 {
		t.Errorf("strict context's handler called %d times", strictWarnings.Load())
	}
	if got := looseWarnings.Load(); got != workers*iters {
		t.Errorf("loose context's handler called %d times for %d calls", got, workers*iters)
	}
	// Each message names the shapes of its call: count them per size.
	want := map[string]int64{}
	for g := 0; g < workers; g++ {
		for i := 0; i < iters; i++ {
			want[policyWarnMsg(int64(2+(g*iters+i)%101))]++
		}
	}
	seen.Range(func(k, v any) bool {
		if w := want[k.(string)]; w != v.(*atomic.Int64).Load() {
			t.Errorf("warning %q came %d times, want %d", k, v.(*atomic.Int64).Load(), w)
		}
		delete(want, k.(string))
		return true
	})
	if len(want) != 0 {
		t.Errorf("%d warnings never came", len(want))
	}
	if defaultCalls.Load() != workers*iters {
		t.Errorf("%d default-context calls succeeded", defaultCalls.Load())
	}
	if Default().BroadcastPolicy() != PolicyAllow || cProcessPolicy() != PolicyAllow {
		t.Error("the Contexts' policies leaked into the defaults")
	}
}

// TestContextErrorsFollowTheirGoroutine makes failing calls whose messages
// are unique to the goroutine and iteration, yielding between the call and
// everything else so that goroutines hop between OS threads (the error is
// read in a second cgo call, possibly on another thread than the call).
func TestContextErrorsFollowTheirGoroutine(t *testing.T) {
	t.Parallel()
	// Several Ps, so that goroutines really do run on several threads.
	if n := runtime.GOMAXPROCS(0); n < 4 {
		runtime.GOMAXPROCS(4)
		t.Cleanup(func() { runtime.GOMAXPROCS(n) })
	}
	c := newContext(t)
	const workers = 32
	iters := 300
	if testing.Short() {
		iters = 40
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < iters; i++ {
				m := int64(2 + (g*iters+i)%89)
				a, err := c.Zeros(Int64, 1, m)
				if err != nil {
					errs <- err
					return
				}
				runtime.Gosched()
				b, err := c.Zeros(Int64, m+1)
				if err != nil {
					errs <- err
					return
				}
				runtime.Gosched()
				_, err = c.Mul(a, b)
				want := fmt.Sprintf("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1", m, m+1)
				if e := checkErr(err, ErrNotBroadcastable, want, Detail{Dim: 1, SizeA: m, SizeB: m + 1}); e != nil {
					errs <- fmt.Errorf("goroutine %d iteration %d: %v", g, i, e)
					return
				}
				runtime.Gosched()
				_, err = a.Expand(int64(g+1), m+1)
				want = fmt.Sprintf("The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension 1.  Target sizes: [%d, %d].  Tensor sizes: [1, %d]", m+1, m, g+1, m+1, m)
				if e := checkErr(err, ErrShapeMismatch, want, Detail{}); e != nil {
					errs <- fmt.Errorf("goroutine %d iteration %d: %v", g, i, e)
					return
				}
				a.Close()
				b.Close()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestContextLanesAreReused(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	a := must(c.Zeros(Float32, 4))(t)
	closeAll(t, a)
	for i := 0; i < 1000; i++ {
		must(c.Add(a, a))(t).Close()
	}
	if live, idle := c.lanes(); live != 1 || idle != 1 {
		t.Fatalf("one goroutine's calls made %d lanes (%d idle)", live, idle)
	}
	var wg sync.WaitGroup
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if x, err := c.Add(a, a); err == nil {
					x.Close()
				}
				if i%16 == 0 {
					c.SetBroadcastWarning(i%32 == 0) // lanes re-apply, never multiply
				}
			}
		}()
	}
	wg.Wait()
	live, idle := c.lanes()
	if live != idle || live > maxIdle() || live > 64+1 {
		t.Fatalf("after concurrent calls: %d lanes, %d idle (keeps at most %d)", live, idle, maxIdle())
	}
	for i := 0; i < 1000; i++ {
		must(c.Add(a, a))(t).Close()
	}
	if l2, _ := c.lanes(); l2 != live {
		t.Fatalf("sequential calls grew the lanes from %d to %d", live, l2)
	}
}

func TestContextClose(t *testing.T) {
	t.Parallel()
	c := NewContext()
	a := must(c.FromFloat32s([]float32{1, 2}, 2))(t)
	closeAll(t, a)
	must(c.Add(a, a))(t).Close()
	ok(t, c.Close())
	ok(t, c.Close())
	if live, _ := c.lanes(); live != 0 {
		t.Fatalf("%d lanes left after Close", live)
	}
	const msg = "use of closed Context"
	_, err := c.Add(a, a)
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	wantErr(t, c.AddInPlace(a, a), ErrInvalidArgument, msg, nil)
	_, err = c.Zeros(Float32, 2)
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	_, err = c.BroadcastShapes([]int64{2}, []int64{1})
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	_, err = c.BroadcastTensors(a, a)
	wantErr(t, err, ErrInvalidArgument, msg, nil)
	wantErr(t, c.SetBroadcastPolicy(PolicyError), ErrInvalidArgument, msg, nil)
	if c.NumThreads() != 0 {
		t.Error("NumThreads of a closed Context")
	}
	// Tensors made through it live on.
	wantFloats(t, must(a.Float32s())(t), []float32{1, 2})

	var nilCtx *Context
	_, err = nilCtx.Add(a, a)
	wantErr(t, err, ErrInvalidArgument, "nil *Context", nil)
	ok(t, nilCtx.Close())
	ok(t, Default().Close()) // does nothing
	must(Add(a, a))(t).Close()
}

// TestContextCopiesOut reads elements through a Context: the same values
// as the Tensor methods, errors reported there, and a closed Context
// refused.
func TestContextCopiesOut(t *testing.T) {
	t.Parallel()
	c := NewContext()
	defer c.Close()
	f := must(c.FromFloat32s([]float32{1, -2, 3.5}, 3))(t)
	i := must(c.FromInt64s([]int64{7, -8}, 2))(t)
	b := must(c.Lt(f, f))(t)
	defer closeAll(t, f, i, b)
	wantFloats(t, must(c.Float32s(f))(t), []float32{1, -2, 3.5})
	if got := must(c.Int64s(i))(t); len(got) != 2 || got[0] != 7 || got[1] != -8 {
		t.Errorf("Int64s: %v", got)
	}
	if got := must(c.Bools(b))(t); len(got) != 3 || got[0] || got[1] || got[2] {
		t.Errorf("Bools: %v", got)
	}
	// A view with a broadcast dimension copies out in row-major order.
	e := must(c.Expand(f, 2, 3))(t)
	defer e.Close()
	wantFloats(t, must(c.Float32s(e))(t), []float32{1, -2, 3.5, 1, -2, 3.5})
	_, err := c.Float64s(f)
	wantErr(t, err, ErrDtype, "tensor has dtype Float32 (torch.float32), not Float64 (torch.float64)", nil)
	ok(t, c.Close())
	_, err = c.Float32s(f)
	wantErr(t, err, ErrInvalidArgument, "use of closed Context", nil)
	wantFloats(t, must(f.Float32s())(t), []float32{1, -2, 3.5})
}

// TestContextCloseWhileInUse closes a Context while goroutines call it:
// each call succeeds or fails with the closed error, and every lane is
// freed in the end.
func TestContextCloseWhileInUse(t *testing.T) {
	t.Parallel()
	c := NewContext()
	a := must(Zeros(Float64, 256))(t)
	closeAll(t, a)
	var wg sync.WaitGroup
	var started sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			for i := 0; i < 2000; i++ {
				x, err := c.Mul(a, a)
				if err != nil {
					if e := checkErr(err, ErrInvalidArgument, "use of closed Context", Detail{}); e != nil {
						errs <- e
					}
					return
				}
				x.Close()
			}
		}()
	}
	started.Wait()
	c.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if live, idle := c.lanes(); live != 0 || idle != 0 {
		t.Fatalf("%d lanes (%d idle) left after Close", live, idle)
	}
}

// TestContextHandlerChangesLoseNothing replaces the handler while many
// goroutines warn: each call keeps the handler it started with, so every
// warning arrives exactly once.
func TestContextHandlerChangesLoseNothing(t *testing.T) {
	t.Parallel()
	c := newContext(t)
	c.SetBroadcastWarning(true)
	a := must(c.FromFloat32s([]float32{1, 2, 3, 4}, 4, 1))(t)
	b := must(c.FromFloat32s([]float32{1, 2, 3, 4}, 4))(t)
	closeAll(t, a, b)
	var got, bad atomic.Int64
	handler := func(m string) {
		if m != msgBroadcastWarning {
			bad.Add(1)
		}
		got.Add(1)
	}
	c.SetWarningHandler(handler)
	const workers, iters = 16, 100
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < iters; i++ {
				if r, err := c.Add(a, b); err == nil {
					r.Close()
				}
			}
		}()
	}
	for i := 0; i < 50; i++ {
		c.SetWarningHandler(handler)
		runtime.Gosched()
	}
	wg.Wait()
	if bad.Load() != 0 || got.Load() != workers*iters {
		t.Fatalf("%d warnings (%d wrong) for %d calls", got.Load(), bad.Load(), workers*iters)
	}
}

// TestDefaultContextKeepsToGo checks that the package-level settings are
// the Go package's own: the C library's process-wide settings and new
// Contexts do not see them.
func TestDefaultContextKeepsToGo(t *testing.T) {
	resetSettings(t)
	ok(t, SetBroadcastPolicy(PolicyError))
	SetBroadcastWarning(true)
	SetWarningsAsErrors(true)
	if cProcessPolicy() != PolicyAllow || cProcessBroadcastWarning() || cProcessWarningsAsErrors() {
		t.Fatal("the Go package's settings reached the C library's process-wide settings")
	}
	if Default().BroadcastPolicy() != PolicyError || BroadcastPolicy() != PolicyError {
		t.Fatal("Default() does not hold the package-level settings")
	}
	c := newContext(t)
	if c.BroadcastPolicy() != PolicyAllow || c.BroadcastWarning() || c.WarningsAsErrors() {
		t.Fatal("a new Context took the package-level settings")
	}
	a := must(c.Zeros(Int32, 2, 3))(t)
	b := must(c.Zeros(Int32, 3))(t)
	closeAll(t, a, b)
	must(c.Add(a, b))(t).Close()
	_, err := Add(a, b)
	wantErr(t, err, ErrPolicy, policyErrorMsg(3), nil)
	var e *Error
	if !errors.As(err, &e) || e.Detail.Dim != -1 {
		t.Errorf("policy error detail: %+v", err)
	}
}

// TestForgottenContextIsFinalized drops Contexts without Close: the
// finalizer frees their lanes. Not parallel: it counts every lane.
func TestForgottenContextIsFinalized(t *testing.T) {
	a := must(Zeros(Float32, 3))(t)
	closeAll(t, a)
	before := liveLanes.Load()
	func() {
		for i := 0; i < 10; i++ {
			c := NewContext()
			c.SetBroadcastWarning(true)
			must(c.Add(a, a))(t).Close()
		}
	}()
	if n := liveLanes.Load() - before; n != 10 {
		t.Fatalf("10 Contexts hold %d lanes", n)
	}
	for i := 0; i < 100 && liveLanes.Load() != before; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := liveLanes.Load() - before; n != 0 {
		t.Fatalf("%d lanes of forgotten Contexts left", n)
	}
}
