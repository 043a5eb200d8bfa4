package bcast

import "testing"

// BenchmarkAdd32 measures the per-call cost of the binding on an op too
// small for the arithmetic to matter: a 32-element float32 add.
func BenchmarkAdd32(b *testing.B) {
	x := must(FromFloat32s(iotaF32(32, 0), 32))(b)
	y := must(FromFloat32s(iotaF32(32, 1), 32))(b)
	closeAll(b, x, y)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := Add(x, y)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkAdd32Out is BenchmarkAdd32 without the allocation of a result.
func BenchmarkAdd32Out(b *testing.B) {
	x := must(FromFloat32s(iotaF32(32, 0), 32))(b)
	y := must(FromFloat32s(iotaF32(32, 1), 32))(b)
	out := must(Zeros(Float32, 32))(b)
	closeAll(b, x, y, out)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := AddOut(x, y, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdd32Parallel is BenchmarkAdd32 from GOMAXPROCS goroutines at
// once on one Context: each call takes a lane of its own.
func BenchmarkAdd32Parallel(b *testing.B) {
	x := must(FromFloat32s(iotaF32(32, 0), 32))(b)
	y := must(FromFloat32s(iotaF32(32, 1), 32))(b)
	closeAll(b, x, y)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c, err := Add(x, y)
			if err != nil {
				b.Error(err)
				return
			}
			c.Close()
		}
	})
}
