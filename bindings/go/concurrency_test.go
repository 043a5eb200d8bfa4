package bcast

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// TestConcurrentCallsKeepTheirOwnErrors runs 64 goroutines, each making
// thousands of mixed good and failing calls whose results and error texts
// are unique to the goroutine and the iteration. The library keeps its last
// error per OS thread and goroutines hop between threads, so a binding that
// read the error in a second cgo call would sooner or later hand one
// goroutine another's message.
func TestConcurrentCallsKeepTheirOwnErrors(t *testing.T) {
	const workers = 64
	iters := 2500
	if testing.Short() {
		iters = 150
	}
	// A shared operand, read by every goroutine at once.
	shared := must(FromInt64s([]int64{1000, 2000, 3000}, 3))(t)
	defer shared.Close()
	// A wide one, so that some calls split their work between threads.
	wide := must(FromInt64s(iotaI64(1<<16, 0), 1<<16))(t)
	defer wide.Close()

	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			if err := worker(g, iters, shared, wide); err != nil {
				errs <- fmt.Errorf("goroutine %d: %w", g, err)
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
}

func worker(g, iters int, shared, wide *Tensor) error {
	for i := 0; i < iters; i++ {
		if i%64 == 0 {
			runtime.Gosched() // encourage moves between threads
		}
		if i%500 == 250 {
			if err := wideCall(g, i, wide); err != nil {
				return err
			}
		}
		// Sizes unique to (g, i): the error text names them.
		m := int64(2 + (g*iters+i)%97)
		switch i % 4 {
		case 0: // good: values depend on g and i
			a, err := FromInt64s([]int64{int64(g), int64(i)}, 2, 1)
			if err != nil {
				return err
			}
			c, err := Add(a, shared)
			if err != nil {
				a.Close()
				return fmt.Errorf("iteration %d: %v", i, err)
			}
			v, err := c.Int64s()
			a.Close()
			c.Close()
			if err != nil {
				return err
			}
			want := []int64{int64(g) + 1000, int64(g) + 2000, int64(g) + 3000, int64(i) + 1000, int64(i) + 2000, int64(i) + 3000}
			for k := range want {
				if v[k] != want[k] {
					return fmt.Errorf("iteration %d: got %v, want %v", i, v, want)
				}
			}
		case 1: // not broadcastable: sizes m and m+1 at dimension 1
			a, err := Zeros(Float32, 1, m)
			if err != nil {
				return err
			}
			b, err := Zeros(Float32, m+1)
			if err != nil {
				a.Close()
				return err
			}
			_, err = Mul(a, b)
			a.Close()
			b.Close()
			want := fmt.Sprintf("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension 1", m, m+1)
			if err := checkErr(err, ErrNotBroadcastable, want, Detail{Dim: 1, SizeA: m, SizeB: m + 1}); err != nil {
				return fmt.Errorf("iteration %d: %v", i, err)
			}
		case 2: // in place that would grow self
			a, err := Zeros(Int32, 1, m)
			if err != nil {
				return err
			}
			b, err := Zeros(Int32, int64(g+2), 1)
			if err != nil {
				a.Close()
				return err
			}
			err = AddInPlace(a, b)
			a.Close()
			b.Close()
			want := fmt.Sprintf("output with shape [1, %d] doesn't match the broadcast shape [%d, %d]", m, g+2, m)
			if e := checkErr(err, ErrShapeMismatch, want, Detail{}); e != nil {
				return fmt.Errorf("iteration %d: %v", i, e)
			}
		case 3: // a good shape query, then a failing expand
			s, err := BroadcastShapes([]int64{m, 1}, []int64{int64(g + 1)})
			if err != nil {
				return err
			}
			if len(s) != 2 || s[0] != m || s[1] != int64(g+1) {
				return fmt.Errorf("iteration %d: shape %v", i, s)
			}
			a, err := Zeros(Int64, m)
			if err != nil {
				return err
			}
			_, err = a.Expand(int64(g+1), m+1)
			a.Close()
			want := fmt.Sprintf("The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension 1.  Target sizes: [%d, %d].  Tensor sizes: [%d]", m+1, m, g+1, m+1, m)
			if e := checkErr(err, ErrShapeMismatch, want, Detail{Dim: 1, SizeA: m + 1, SizeB: m}); e != nil {
				return fmt.Errorf("iteration %d: %v", i, e)
			}
		}
	}
	return nil
}

// wideCall adds a (2, 1) column unique to (g, i) to the wide operand and
// checks every element of the (2, 65536) result.
func wideCall(g, i int, wide *Tensor) error {
	a, err := FromInt64s([]int64{int64(g) << 32, int64(i) << 32}, 2, 1)
	if err != nil {
		return err
	}
	defer a.Close()
	c, err := Add(a, wide)
	if err != nil {
		return fmt.Errorf("iteration %d: %v", i, err)
	}
	defer c.Close()
	v, err := c.Int64s()
	if err != nil {
		return err
	}
	n := len(v) / 2
	for k, e := range v {
		want := int64(k % n)
		if k < n {
			want += int64(g) << 32
		} else {
			want += int64(i) << 32
		}
		if e != want {
			return fmt.Errorf("iteration %d: wide element %d is %d, want %d", i, k, e, want)
		}
	}
	return nil
}

// checkErr is wantErr for goroutines other than the test's: it returns what
// is wrong instead of failing the test. A zero detail is not checked.
func checkErr(err error, code Code, msg string, detail Detail) error {
	var e *Error
	if !errors.As(err, &e) {
		return fmt.Errorf("want %v %q, got %v", code, msg, err)
	}
	if e.Code != code || e.Message != msg {
		return fmt.Errorf("got %v %q, want %v %q", e.Code, e.Message, code, msg)
	}
	if detail != (Detail{}) && e.Detail != detail {
		return fmt.Errorf("detail %+v, want %+v", e.Detail, detail)
	}
	return nil
}

// TestConcurrentInPlaceOnDistinctTensors writes many tensors at once, each
// from one goroutine, while all read one shared operand.
func TestConcurrentInPlaceOnDistinctTensors(t *testing.T) {
	const workers = 16
	shared := must(FromFloat64s([]float64{0.5, 0.25}, 2))(t)
	defer shared.Close()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			x, err := Zeros(Float64, 3, 2)
			if err != nil {
				errs <- err
				return
			}
			defer x.Close()
			for i := 0; i < 200; i++ {
				if err := AddInPlace(x, shared); err != nil {
					errs <- err
					return
				}
			}
			v, err := x.Float64s()
			if err != nil {
				errs <- err
				return
			}
			for k, e := range v {
				if want := []float64{100, 50}[k%2]; e != want {
					errs <- fmt.Errorf("goroutine %d: %v", g, v)
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
}
