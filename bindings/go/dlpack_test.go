package bcast

import (
	"errors"
	"testing"
)

// TestDLPackRoundTrip exports and imports through the C library: values and
// shape kept, the memory shared (a write through the import shows in the
// original) and kept alive by the managed tensor after the original closes.
func TestDLPackRoundTrip(t *testing.T) {
	x, err := FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	m, err := x.ToDLPack()
	if err != nil {
		t.Fatal(err)
	}
	u, err := FromDLPack(m)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if got := u.Shape(); len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Fatalf("shape %v", got)
	}
	if err := BinaryScalarInPlace(OpAdd, u, FloatScalar(10)); err != nil {
		t.Fatal(err)
	}
	want := []float32{11, 12, 13, 14, 15, 16}
	got, err := x.Float32s()
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("original after a write through the import: %v, want %v", got, want)
		}
	}
	x.Close()
	got, err = u.Float32s()
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("import after the original closed: %v, want %v", got, want)
		}
	}
}

// TestDLPackVersionedEveryDType round-trips every dtype through DLPack 1.x.
func TestDLPackVersionedEveryDType(t *testing.T) {
	for d := Bool; d <= Float64; d++ {
		x, err := Zeros(d, 4)
		if err != nil {
			t.Fatal(err)
		}
		m, err := x.ToDLPackVersioned()
		x.Close()
		if err != nil {
			t.Fatal(d, err)
		}
		u, err := FromDLPackVersioned(m)
		if err != nil {
			t.Fatal(d, err)
		}
		if u.DType() != d || u.NumEl() != 4 || !u.IsWritable() {
			t.Fatalf("%v: got %v, %d elements, writable %v", d, u.DType(), u.NumEl(), u.IsWritable())
		}
		u.Close()
	}
}

// TestDLPackClosedTensor: a closed tensor is refused, not exported.
func TestDLPackClosedTensor(t *testing.T) {
	x, err := Zeros(Float32, 2)
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	if _, err := x.ToDLPack(); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("ToDLPack on a closed tensor: %v", err)
	}
}
