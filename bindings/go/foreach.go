package bcast

import "unsafe"

// The ForEach functions run a Go func elementwise over broadcast operands,
// a row at a time, every operand seen as a []T: out = f(inputs...) for a
// host-defined op, on bcast's broadcasting, layouts, dtype conversion and
// pull-mode goroutines (see Iter, which they use, and Block for the
// lower-level form).
//
// f gets one row of each operand per call: out, then the inputs in order,
// all of the same length (at least 1). An input that is one value along
// the row (a broadcast: a column, a 0-dim tensor) comes as a scratch slice
// filled with that value, so that f never has to tell the cases apart;
// Iter.Run with Row gives the single value instead, for a loop that
// specialises on it. f writes out and must not write the inputs, nor keep
// any of the slices after it returns: they are valid during the call only.
// f may run on several goroutines at once, on distinct rows; a panic in it
// is raised again on the goroutine that called ForEach once the run stops
// (see Iter for the rules).
//
// The allocating forms return a new contiguous tensor of T's dtype and the
// broadcast shape; the Out forms write into out, which has the broadcast
// shape and any dtype (converted from T as Copy converts). Operands of
// other dtypes than T's are converted in buffers. Go has no generic
// methods, so the Context forms are functions named with On, taking the
// Context first (ForEach2On(ctx, a, b, f)); the others run on Default().

// ForEach1 returns out = f(a) (see ForEach1On).
func ForEach1[T Element](a *Tensor, f func(out, a []T)) (*Tensor, error) {
	return ForEach1On(defaultContext, a, f)
}

// ForEach1On runs f over a on c into a new tensor of T's dtype and a's shape.
func ForEach1On[T Element](c *Context, a *Tensor, f func(out, a []T)) (*Tensor, error) {
	return forEach(c, []*Tensor{a}, nil, func(r *[maxOperands][]T) { f(r[0], r[1]) })
}

// ForEach1Out writes f(a) into out (see ForEach1OutOn).
func ForEach1Out[T Element](a, out *Tensor, f func(out, a []T)) error {
	return ForEach1OutOn(defaultContext, a, out, f)
}

// ForEach1OutOn writes f(a) into out on c; a broadcasts to out's shape.
func ForEach1OutOn[T Element](c *Context, a, out *Tensor, f func(out, a []T)) error {
	_, err := forEach(c, []*Tensor{a}, out, func(r *[maxOperands][]T) { f(r[0], r[1]) })
	return err
}

// ForEach2 returns out = f(a, b) (see ForEach2On).
func ForEach2[T Element](a, b *Tensor, f func(out, a, b []T)) (*Tensor, error) {
	return ForEach2On(defaultContext, a, b, f)
}

// ForEach2On runs f over a and b broadcast together on c, into a new tensor
// of T's dtype and the broadcast shape.
func ForEach2On[T Element](c *Context, a, b *Tensor, f func(out, a, b []T)) (*Tensor, error) {
	return forEach(c, []*Tensor{a, b}, nil, func(r *[maxOperands][]T) { f(r[0], r[1], r[2]) })
}

// ForEach2Out writes f(a, b) into out (see ForEach2OutOn).
func ForEach2Out[T Element](a, b, out *Tensor, f func(out, a, b []T)) error {
	return ForEach2OutOn(defaultContext, a, b, out, f)
}

// ForEach2OutOn writes f(a, b) into out on c; out has the broadcast shape.
func ForEach2OutOn[T Element](c *Context, a, b, out *Tensor, f func(out, a, b []T)) error {
	_, err := forEach(c, []*Tensor{a, b}, out, func(r *[maxOperands][]T) { f(r[0], r[1], r[2]) })
	return err
}

// ForEach3 returns out = f(a, b, x) (see ForEach3On).
func ForEach3[T Element](a, b, x *Tensor, f func(out, a, b, x []T)) (*Tensor, error) {
	return ForEach3On(defaultContext, a, b, x, f)
}

// ForEach3On runs f over a, b and x broadcast together on c, into a new
// tensor of T's dtype and the broadcast shape.
func ForEach3On[T Element](c *Context, a, b, x *Tensor, f func(out, a, b, x []T)) (*Tensor, error) {
	return forEach(c, []*Tensor{a, b, x}, nil, func(r *[maxOperands][]T) { f(r[0], r[1], r[2], r[3]) })
}

// ForEach3Out writes f(a, b, x) into out (see ForEach3OutOn).
func ForEach3Out[T Element](a, b, x, out *Tensor, f func(out, a, b, x []T)) error {
	return ForEach3OutOn(defaultContext, a, b, x, out, f)
}

// ForEach3OutOn writes f(a, b, x) into out on c; out has the broadcast
// shape.
func ForEach3OutOn[T Element](c *Context, a, b, x, out *Tensor, f func(out, a, b, x []T)) error {
	_, err := forEach(c, []*Tensor{a, b, x}, out, func(r *[maxOperands][]T) { f(r[0], r[1], r[2], r[3]) })
	return err
}

// forEach runs call over every row of the iteration of inputs into out
// (nil: a new tensor of T's dtype, returned), every operand seen as T.
func forEach[T Element](c *Context, inputs []*Tensor, out *Tensor, call func(rows *[maxOperands][]T)) (*Tensor, error) {
	loop := make([]DType, len(inputs)+1)
	for k := range loop {
		loop[k] = DTypeOf[T]()
	}
	it, err := c.NewIter(inputs, out, loop)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	if err := it.run(func() func(*Block) error { return rowsOf(call) }); err != nil {
		return nil, err
	}
	if out != nil {
		return nil, nil
	}
	return it.Output()
}

// rowsOf makes one goroutine's loop: call for each row of a block, with
// repeated inputs expanded into scratch rows of that goroutine's own.
func rowsOf[T Element](call func(rows *[maxOperands][]T)) func(*Block) error {
	var rows, scratch [maxOperands][]T
	return func(b *Block) error {
		n0 := b.n0
		for i := 0; i < b.n1; i++ {
			for k := 0; k < b.nops; k++ {
				p := unsafe.Add(b.data[k], int64(i)*b.outer[k])
				if b.inner[k] != 0 {
					rows[k] = unsafe.Slice((*T)(p), n0)
					continue
				}
				// One value along the row: filled again only when the
				// next row's value may differ (outer stride not 0).
				if i == 0 || b.outer[k] != 0 {
					if cap(scratch[k]) < n0 {
						scratch[k] = make([]T, n0)
					}
					s, v := scratch[k][:n0], *(*T)(p)
					for j := range s {
						s[j] = v
					}
				}
				rows[k] = scratch[k][:n0]
			}
			call(&rows)
		}
		rows = [maxOperands][]T{} // no pointer into the block outlives it
		return nil
	}
}
