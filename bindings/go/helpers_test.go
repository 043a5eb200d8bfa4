package bcast

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

// Independent references for the tests: a naive broadcast in plain Go,
// written from the rules in the notes, never from the library's code.

// refBroadcastShape aligns shapes from the right; ok is false when two sizes
// differ and neither is 1.
func refBroadcastShape(shapes ...[]int64) ([]int64, bool) {
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := n - len(s)
		for i, d := range s {
			switch {
			case out[off+i] == d || d == 1:
			case out[off+i] == 1:
				out[off+i] = d
			default:
				return nil, false
			}
		}
	}
	return out, true
}

func numel(shape []int64) int {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	return n
}

// refIndex maps the row-major index i of an element of shape out to the
// row-major index of the element of shape in that broadcasts to it.
func refIndex(i int, out, in []int64) int {
	idx := 0
	stride := 1
	for d := len(out) - 1; d >= 0; d-- {
		c := i % int(out[d])
		i /= int(out[d])
		k := d - (len(out) - len(in))
		if k >= 0 {
			if in[k] != 1 {
				idx += c * stride
			}
			stride *= int(in[k])
		}
	}
	return idx
}

// refBinary computes f over two broadcast operands.
func refBinary[T, U any](a []T, sa []int64, b []T, sb []int64, f func(T, T) U) ([]U, []int64) {
	so, ok := refBroadcastShape(sa, sb)
	if !ok {
		panic("refBinary: not broadcastable")
	}
	out := make([]U, numel(so))
	for i := range out {
		out[i] = f(a[refIndex(i, so, sa)], b[refIndex(i, so, sb)])
	}
	return out, so
}

func iota64(n int, start float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = start + float64(i)
	}
	return s
}

func iotaF32(n int, start float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = start + float32(i)
	}
	return s
}

func iotaI64(n int, start int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = start + int64(i)
	}
	return s
}

// must(f())(t) returns f's value, failing the test on f's error. (Go does
// not allow must(t, f()), hence the second call.)
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return v
	}
}

func ok(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// closeAll is registered with t.Cleanup by the tests that make tensors.
func closeAll(t testing.TB, ts ...*Tensor) {
	t.Cleanup(func() {
		for _, x := range ts {
			x.Close()
		}
	})
}

// wantErr checks the code, the exact message and (when detail is not nil)
// the detail of err.
func wantErr(t testing.TB, err error, code Code, msg string, detail *Detail) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %v %q, got none", code, msg)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %T %v", err, err)
	}
	if e.Code != code || !errors.Is(err, code) {
		t.Errorf("code: got %v, want %v (message %q)", e.Code, code, e.Message)
	}
	if msg != "" && e.Message != msg {
		t.Errorf("message:\n got %q\nwant %q", e.Message, msg)
	}
	if err.Error() != e.Message {
		t.Errorf("Error() %q differs from Message %q", err.Error(), e.Message)
	}
	if detail != nil && e.Detail != *detail {
		t.Errorf("detail: got %+v, want %+v", e.Detail, *detail)
	}
}

func wantShape(t testing.TB, x *Tensor, shape ...int64) {
	t.Helper()
	if got := x.Shape(); !reflect.DeepEqual(got, append([]int64{}, shape...)) {
		t.Fatalf("shape: got %v, want %v", got, shape)
	}
}

func wantEqual[T comparable](t testing.TB, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("element %d: got %v, want %v\n got %v\nwant %v", i, got[i], want[i], got, want)
		}
	}
}

// sameFloat is equality that also matches NaN with NaN and tells -0 from +0.
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

func wantFloats[T float32 | float64](t testing.TB, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range got {
		if !sameFloat(float64(got[i]), float64(want[i])) {
			t.Fatalf("element %d: got %v, want %v\n got %v\nwant %v", i, got[i], want[i], got, want)
		}
	}
}

// resetSettings restores every process-wide setting after a test.
func resetSettings(t testing.TB) {
	t.Cleanup(func() {
		SetBroadcastWarning(false)
		SetLegacyPointwise(false)
		SetWarningsAsErrors(false)
		if err := SetBroadcastPolicy(PolicyAllow); err != nil {
			t.Errorf("SetBroadcastPolicy: %v", err)
		}
		SetWarningHandler(nil)
	})
}

// collectWarnings installs a handler that records each message.
func collectWarnings(t testing.TB) func() []string {
	resetSettings(t)
	ch := make(chan string, 1024)
	SetWarningHandler(func(m string) { ch <- m })
	return func() []string {
		var got []string
		for {
			select {
			case m := <-ch:
				got = append(got, m)
			default:
				return got
			}
		}
	}
}

// collectWarningsOn installs a handler on c that records each message.
func collectWarningsOn(t testing.TB, c *Context) func() []string {
	ch := make(chan string, 1024)
	c.SetWarningHandler(func(m string) { ch <- m })
	return func() []string {
		var got []string
		for {
			select {
			case m := <-ch:
				got = append(got, m)
			default:
				return got
			}
		}
	}
}
