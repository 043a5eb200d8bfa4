package bcast_test

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	bcast "github.com/bcast-lib/bcast/bindings/go"
)

// Broadcasting a column against a row, as in the notes.
func Example() {
	a, _ := bcast.FromInt64s([]int64{1, 2, 3}, 3, 1)
	b, _ := bcast.FromInt64s([]int64{4, 5, 6, 7}, 1, 4)
	defer a.Close()
	defer b.Close()

	c, err := bcast.Add(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	v, _ := c.Int64s()
	fmt.Println(c, v)
	// Output: Tensor(Int64, [3, 4]) [5 6 7 8 6 7 8 9 7 8 9 10]
}

// Errors carry PyTorch's message, a code usable with errors.Is, and the
// failing dimension and sizes.
func Example_errors() {
	x, _ := bcast.Zeros(bcast.Float32, 5, 2, 4, 1)
	y, _ := bcast.Zeros(bcast.Float32, 3, 1, 1)
	defer x.Close()
	defer y.Close()

	_, err := bcast.Add(x, y)
	fmt.Println(err)
	fmt.Println(errors.Is(err, bcast.ErrNotBroadcastable))
	var e *bcast.Error
	if errors.As(err, &e) {
		fmt.Printf("%v dim=%d sizes %d and %d\n", e.Code, e.Detail.Dim, e.Detail.SizeA, e.Detail.SizeB)
	}
	// Output:
	// The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1
	// true
	// BC_ERR_NOT_BROADCASTABLE dim=1 sizes 2 and 3
}

func ExampleFromFloat32s() {
	m, _ := bcast.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	s, _ := bcast.FromFloat32s([]float32{10}) // no sizes: 0-dim
	defer m.Close()
	defer s.Close()
	fmt.Println(m, s)

	_, err := bcast.FromFloat32s([]float32{1, 2, 3}, 2, 2)
	fmt.Println(err)
	// Output:
	// Tensor(Float32, [2, 3]) Tensor(Float32, [])
	// 3 values given for shape [2, 2] (4 elements)
}

func ExampleTensor_Close() {
	x, _ := bcast.Zeros(bcast.Int32, 2)
	x.Close()
	x.Close() // idempotent
	_, err := x.Int32s()
	fmt.Println(err)
	// Output: use of closed Tensor
}

func ExampleAddOut() {
	a, _ := bcast.FromFloat64s([]float64{1, 2}, 2)
	b, _ := bcast.FromFloat64s([]float64{10, 20}, 2, 1)
	out, _ := bcast.Zeros(bcast.Float64, 2, 2)
	defer a.Close()
	defer b.Close()
	defer out.Close()

	if err := bcast.AddOut(a, b, out); err != nil {
		fmt.Println(err)
	}
	v, _ := out.Float64s()
	fmt.Println(v)
	// Output: [11 12 21 22]
}

// In-place operations may not change the shape of the tensor written.
func ExampleAddInPlace() {
	x, _ := bcast.Zeros(bcast.Float32, 1, 3, 1)
	y, _ := bcast.Zeros(bcast.Float32, 3, 1, 7)
	defer x.Close()
	defer y.Close()

	err := bcast.AddInPlace(x, y)
	fmt.Println(err)
	fmt.Println(errors.Is(err, bcast.ErrShapeMismatch))
	// Output:
	// output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]
	// true
}

func ExampleBinary() {
	a, _ := bcast.FromInt32s([]int32{-7, 7}, 2)
	b, _ := bcast.FromInt32s([]int32{2}, 1)
	defer a.Close()
	defer b.Close()
	for _, op := range []bcast.Op{bcast.OpDivTrunc, bcast.OpDivFloor, bcast.OpRemainder, bcast.OpFmod, bcast.OpDiv} {
		c, err := bcast.Binary(op, a, b)
		if err != nil {
			fmt.Println(err)
			continue
		}
		if c.DType() == bcast.Float32 {
			v, _ := c.Float32s()
			fmt.Println(op, c.DType(), v)
		} else {
			v, _ := c.Int32s()
			fmt.Println(op, c.DType(), v)
		}
		c.Close()
	}
	// Output:
	// div_trunc Int32 [-3 3]
	// div_floor Int32 [-4 3]
	// remainder Int32 [1 1]
	// fmod Int32 [-1 1]
	// div Float32 [-3.5 3.5]
}

func ExampleBroadcastShapes() {
	s, _ := bcast.BroadcastShapes([]int64{5, 1, 4, 1}, []int64{3, 1, 1})
	fmt.Println(s)
	_, err := bcast.BroadcastShapes([]int64{5, 2, 4, 1}, []int64{3, 1, 1})
	fmt.Println(err)
	// Output:
	// [5 3 4 1]
	// The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1
}

func ExampleBroadcastShapesN() {
	s, _ := bcast.BroadcastShapesN([]int64{2, 1}, []int64{3}, []int64{1, 1, 1})
	fmt.Println(s)
	_, err := bcast.BroadcastShapesN([]int64{2}, []int64{3})
	fmt.Println(err)
	// Output:
	// [1 2 3]
	// Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 had (3,); but expected shape should be broadcastable to [2]
}

func ExampleTensor_Expand() {
	x, _ := bcast.FromFloat32s([]float32{1, 2, 3}, 3, 1)
	defer x.Close()
	v, _ := x.Expand(2, 3, 2)
	defer v.Close()
	strides, _ := v.Strides()
	values, _ := v.Float32s()
	fmt.Println(v, strides, values)

	_, err := x.Expand(3, 4, 5)
	fmt.Println(err)
	// Output:
	// Tensor(Float32, [2, 3, 2]) [0 1 0] [1 1 2 2 3 3 1 1 2 2 3 3]
	// The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [3, 4, 5].  Tensor sizes: [3, 1]
}

func ExampleBroadcastTensors() {
	a, _ := bcast.FromInt64s([]int64{1, 2}, 2, 1)
	b, _ := bcast.FromInt64s([]int64{7, 8, 9}, 3)
	defer a.Close()
	defer b.Close()
	views, _ := bcast.BroadcastTensors(a, b)
	for _, v := range views {
		values, _ := v.Int64s()
		fmt.Println(v, values)
		v.Close()
	}
	// Output:
	// Tensor(Int64, [2, 3]) [1 1 1 2 2 2]
	// Tensor(Int64, [2, 3]) [7 8 9 7 8 9]
}

// SumToShape is the gradient of broadcasting: it sums the broadcast
// dimensions away.
func ExampleTensor_SumToShape() {
	g, _ := bcast.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	defer g.Close()
	s, _ := g.SumToShape(1, 3)
	defer s.Close()
	v, _ := s.Float32s()
	fmt.Println(s, v)
	// Output: Tensor(Float32, [1, 3]) [5 7 9]
}

func ExampleWhere() {
	cond, _ := bcast.FromBools([]bool{true, false}, 2, 1)
	a, _ := bcast.FromFloat32s([]float32{1, 2, 3}, 3)
	b, _ := bcast.FromFloat32s([]float32{0})
	defer cond.Close()
	defer a.Close()
	defer b.Close()
	w, _ := bcast.Where(cond, a, b)
	defer w.Close()
	v, _ := w.Float32s()
	fmt.Println(w, v)
	// Output: Tensor(Float32, [2, 3]) [1 2 3 0 0 0]
}

func ExampleClamp() {
	x, _ := bcast.FromInt32s([]int32{-5, 0, 5}, 3)
	hi, _ := bcast.FromInt32s([]int32{1})
	defer x.Close()
	defer hi.Close()
	c, _ := bcast.Clamp(x, nil, hi) // no lower bound
	defer c.Close()
	v, _ := c.Int32s()
	fmt.Println(v)
	// Output: [-5 0 1]
}

// A unary op with its parameters in PyTorch's order: leaky_relu(x, 0.5),
// then nan_to_num(y, posinf=100) with nan left at its default.
func ExampleUnaryWith() {
	x, _ := bcast.FromFloat32s([]float32{-2, 3}, 2)
	defer x.Close()
	r, _ := bcast.UnaryWith(bcast.UnaryLeakyRelu, x, bcast.Param(0.5))
	defer r.Close()
	v, _ := r.Float32s()
	fmt.Println(v)

	y, _ := bcast.FromFloat64s([]float64{math.NaN(), math.Inf(1), 1.5}, 3)
	defer y.Close()
	n, _ := bcast.UnaryWith(bcast.UnaryNanToNum, y, bcast.DefaultParam, bcast.Param(100))
	defer n.Close()
	w, _ := n.Float64s()
	fmt.Println(w)
	// Output:
	// [-1 3]
	// [0 100 1.5]
}

// Unary ops by name, and the error PyTorch gives for -x on bool.
func ExampleSum() {
	x, _ := bcast.FromInt32s([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	defer x.Close()
	rows, _ := bcast.Sum(x, []int{1}, false)
	defer rows.Close()
	v, _ := rows.Int64s() // integer sums are Int64, as in PyTorch
	fmt.Println(rows.Shape(), v)

	all, _ := bcast.Sum(x, nil, true)
	defer all.Close()
	fmt.Println(all.Shape())
	// Output:
	// [2] [6 15]
	// [1 1]
}

func ExampleReduceEx() {
	x, _ := bcast.FromFloat64s([]float64{1, 2, 3, 4}, 4)
	defer x.Close()
	v, _ := bcast.ReduceEx(bcast.ReduceVar, x, nil, false, bcast.WithCorrection(0))
	defer v.Close()
	w, _ := v.Float64s()
	fmt.Println(w)
	// Output:
	// [1.25]
}

func ExampleMaxDim() {
	x, _ := bcast.FromFloat32s([]float32{3, 7, 7, 1, 9, 2}, 2, 3)
	defer x.Close()
	values, indices, _ := bcast.MaxDim(x, 1, false)
	defer values.Close()
	defer indices.Close()
	v, _ := values.Float32s()
	i, _ := indices.Int64s() // the first of equal values
	fmt.Println(v, i)
	// Output:
	// [7 9] [1 1]
}

func ExampleExp() {
	x, _ := bcast.FromInt64s([]int64{0, 1}, 2)
	defer x.Close()
	e, _ := bcast.Exp(x) // integers give Float32
	defer e.Close()
	v, _ := e.Float32s()
	fmt.Println(e.DType(), v)

	b, _ := bcast.FromBools([]bool{true})
	defer b.Close()
	_, err := bcast.Neg(b)
	fmt.Println(errors.Is(err, bcast.ErrDtype))
	// Output:
	// Float32 [1 2.7182817]
	// true
}

// The backwards-compatibility warning of the notes, sent to a Go function.
func ExampleSetWarningHandler() {
	bcast.SetWarningHandler(func(msg string) { fmt.Println("warning:", msg) })
	bcast.SetBroadcastWarning(true)
	defer bcast.SetWarningHandler(nil)
	defer bcast.SetBroadcastWarning(false)

	a, _ := bcast.FromFloat32s([]float32{1, 1, 1, 1}, 4, 1)
	b, _ := bcast.FromFloat32s([]float32{1, 1, 1, 1}, 4)
	defer a.Close()
	defer b.Close()
	c, _ := bcast.Add(a, b)
	defer c.Close()
	fmt.Println(c)
	// Output:
	// warning: self and other do not have the same shape, but are broadcastable, and have the same number of elements. Changing behavior in a backwards incompatible manner to broadcasting rather than viewing as 1-dimensional.
	// Tensor(Float32, [4, 4])
}

func ExampleSetLegacyPointwise() {
	bcast.SetWarningHandler(func(msg string) { fmt.Println("warning:", msg) })
	bcast.SetLegacyPointwise(true)
	defer bcast.SetWarningHandler(nil)
	defer bcast.SetLegacyPointwise(false)

	a, _ := bcast.FromInt64s([]int64{1, 2, 3, 4, 5, 6}, 2, 3)
	b, _ := bcast.FromInt64s([]int64{10, 20, 30, 40, 50, 60}, 3, 2)
	defer a.Close()
	defer b.Close()
	c, _ := bcast.Add(a, b)
	defer c.Close()
	v, _ := c.Int64s()
	fmt.Println(c, v)
	// Output:
	// warning: other is not broadcastable to self, but they have the same number of elements. Falling back to deprecated pointwise behavior.
	// Tensor(Int64, [2, 3]) [11 22 33 44 55 66]
}

func ExampleSetBroadcastPolicy() {
	_ = bcast.SetBroadcastPolicy(bcast.PolicyError)
	defer bcast.SetBroadcastPolicy(bcast.PolicyAllow)

	a, _ := bcast.Zeros(bcast.Float32, 2, 3)
	b, _ := bcast.Zeros(bcast.Float32, 3)
	s, _ := bcast.Zeros(bcast.Float32)
	defer a.Close()
	defer b.Close()
	defer s.Close()
	_, err := bcast.Add(a, b)
	fmt.Println(errors.Is(err, bcast.ErrPolicy))
	c, err := bcast.Add(a, s) // scalars are exempt
	fmt.Println(c, err)
	c.Close()
	// Output:
	// true
	// Tensor(Float32, [2, 3]) <nil>
}

func ExampleSetWarningsAsErrors() {
	bcast.SetBroadcastWarning(true)
	bcast.SetWarningsAsErrors(true)
	defer bcast.SetBroadcastWarning(false)
	defer bcast.SetWarningsAsErrors(false)

	a, _ := bcast.Zeros(bcast.Float32, 4, 1)
	b, _ := bcast.Zeros(bcast.Float32, 4)
	defer a.Close()
	defer b.Close()
	_, err := bcast.Add(a, b)
	fmt.Println(errors.Is(err, bcast.ErrPolicy))
	// Output: true
}

// The dtype an op gives, to size an out= tensor: a float scalar with an
// Int32 tensor gives Float32 (PyTorch's default dtype), a 0-dim Float64
// tensor outranks the scalar.
func ExampleResultType() {
	x, _ := bcast.Zeros(bcast.Int32, 3)
	z, _ := bcast.Zeros(bcast.Float64) // 0-dim
	defer x.Close()
	defer z.Close()

	d1, _ := bcast.ResultType([]*bcast.Tensor{x}, []bcast.Scalar{bcast.FloatScalar(0.5)})
	d2, _ := bcast.ResultType([]*bcast.Tensor{x, z}, []bcast.Scalar{bcast.FloatScalar(0.5)})
	fmt.Println(d1, d2, bcast.CanCast(bcast.Float32, bcast.Int32))
	// Output: Float32 Float64 false
}

// Two parts of a program with their own settings, used from any goroutine.
func ExampleContext() {
	strict := bcast.NewContext()
	defer strict.Close()
	_ = strict.SetBroadcastPolicy(bcast.PolicyError)

	chatty := bcast.NewContext()
	defer chatty.Close()
	_ = chatty.SetBroadcastPolicy(bcast.PolicyWarn)
	chatty.SetWarningHandler(func(msg string) { fmt.Println("warning:", msg) })

	a, _ := strict.Zeros(bcast.Float32, 2, 3)
	b, _ := strict.Zeros(bcast.Float32, 3)
	defer a.Close()
	defer b.Close()
	_, err := strict.Add(a, b)
	fmt.Println(err)
	c, _ := chatty.Add(a, b)
	fmt.Println(c)
	c.Close()
	c, _ = bcast.Add(a, b) // Default(): broadcasts silently
	fmt.Println(c)
	c.Close()
	// Output:
	// broadcast policy is 'error': self with shape [2, 3] and other with shape [3] would be implicitly broadcast to [2, 3]
	// warning: implicit broadcast: self with shape [2, 3] and other with shape [3] broadcast to [2, 3]
	// Tensor(Float32, [2, 3])
	// Tensor(Float32, [2, 3])
}

// Numbers as operands promote as Python numbers do in PyTorch.
func ExampleBinaryScalar() {
	x, _ := bcast.FromInt32s([]int32{1, 2, 4}, 3)
	defer x.Close()
	half, _ := bcast.MulScalar(x, bcast.FloatScalar(0.5)) // int32 * 0.5 is Float32
	defer half.Close()
	v, _ := half.Float32s()
	fmt.Println(half.DType(), v)
	r, _ := bcast.RSubScalar(bcast.IntScalar(2), x) // 2 - x stays Int32
	defer r.Close()
	w, _ := r.Int32s()
	fmt.Println(r.DType(), w)
	u, _ := bcast.FromUint8s([]uint8{1}, 1)
	defer u.Close()
	s, _ := bcast.AddScalar(u, bcast.IntScalar(300)) // uint8 + 300 wraps
	defer s.Close()
	b, _ := s.Uint8s()
	fmt.Println(s.DType(), b)
	// Output:
	// Float32 [0.5 1 2]
	// Int32 [1 0 -2]
	// Uint8 [45]
}

// A host-defined op, out = a*x + y, over operands of three layouts and
// three dtypes: an Int32 column, a Float32 row and a Float64 0-dim tensor.
// The func sees every operand as a []float64 row (converted by bcast, the
// column's and the 0-dim tensor's one value repeated along the row), and
// the result is converted into a Float32 output.
func ExampleForEach3Out() {
	a, _ := bcast.FromInt32s([]int32{1, 2, 3}, 3, 1)            // column
	x, _ := bcast.FromFloat32s([]float32{0.5, 1, 1.5, 2}, 1, 4) // row
	y, _ := bcast.FromFloat64s([]float64{10})                   // 0-dim
	out, _ := bcast.Zeros(bcast.Float32, 3, 4)
	defer a.Close()
	defer x.Close()
	defer y.Close()
	defer out.Close()

	err := bcast.ForEach3Out(a, x, y, out, func(o, a, x, y []float64) {
		for j := range o {
			o[j] = a[j]*x[j] + y[j]
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := out.Float32s()
	fmt.Println(out, v)
	// Output: Tensor(Float32, [3, 4]) [10.5 11 11.5 12 11 12 13 14 11.5 13 14.5 16]
}

// Go slices as tensors without copying: ops and iterators read and write
// the slices themselves while they are pinned.
func ExampleWrapSlice() {
	var p runtime.Pinner
	defer p.Unpin() // after the tensors' deferred Closes below

	m := []float32{1, 2, 3, 4, 5, 6} // (2, 3)
	bias := []float32{10, 20, 30}    // (3,)
	mt, _ := bcast.WrapSlice(&p, m, 2, 3)
	bt, _ := bcast.WrapSlice(&p, bias, 3)
	defer mt.Close()
	defer bt.Close()

	_ = bcast.AddInPlace(mt, bt) // m += bias, in m itself
	fmt.Println(m)

	// A transposed view of the same (2, 3) slice, as a (3, 2) tensor.
	tr, _ := bcast.WrapSliceStrided(&p, m, []int64{3, 2}, []int64{1, 3})
	defer tr.Close()
	v, _ := tr.Float32s()
	fmt.Println(v)

	// A Go func writing the slice through an iterator: m = max(m, 24).
	_ = bcast.ForEach1Out(mt, mt, func(o, x []float32) {
		for j := range o {
			o[j] = max(x[j], 24)
		}
	})
	fmt.Println(m)
	// Output:
	// [11 22 33 14 25 36]
	// [11 14 22 25 33 36]
	// [24 24 33 24 25 36]
}

// The lower-level form: Row gives an input repeated along a row (here the
// 0-dim limit) as its single value, for a loop that specialises on it; an
// error stops the run and comes back with ErrCallback.
func ExampleIter_Run() {
	x, _ := bcast.FromFloat64s([]float64{-2, 0.5, 3, 7}, 4)
	limit, _ := bcast.FromFloat64s([]float64{2.5})
	defer x.Close()
	defer limit.Close()

	it, err := bcast.NewIter([]*bcast.Tensor{x, limit}, nil, nil) // Float64 output
	if err != nil {
		fmt.Println(err)
		return
	}
	defer it.Close()
	clip := func(b *bcast.Block) error {
		for i := 0; i < b.NumRows(); i++ {
			o, v, l := bcast.Row[float64](b, 0, i), bcast.Row[float64](b, 1, i), bcast.Row[float64](b, 2, i)
			if !b.Repeated(2) {
				return errors.New("limit must be one value")
			}
			for j := range o {
				o[j] = min(v[j], l[0])
			}
		}
		return nil
	}
	fmt.Println(it.Run(clip))
	out, _ := it.Output()
	defer out.Close()
	v, _ := out.Float64s()
	fmt.Println(v)

	err = it.Run(func(*bcast.Block) error { return errors.New("no") })
	fmt.Println(err, errors.Is(err, bcast.ErrCallback))
	// Output:
	// <nil>
	// [-2 0.5 2.5 2.5]
	// no true
}

// A fused leaky ReLU, where(x > 0, x, 0.1 * x), built node by node: one
// pass over x, bit for bit the eager chain's result.
func ExampleNewExpr() {
	e, err := bcast.NewExpr(1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	x, _ := e.Input(0)
	zero, _ := e.Number(bcast.IntScalar(0))
	pos, _ := e.Call("gt", x, zero)
	slope, _ := e.Number(bcast.FloatScalar(0.5))
	neg, _ := e.Binary(bcast.OpMul, slope, x)
	if _, err := e.Call("where", pos, x, neg); err != nil {
		fmt.Println(err)
		return
	}

	t, _ := bcast.FromFloat32s([]float32{-4, -1, 0, 2}, 4)
	defer t.Close()
	y, err := e.Eval(t)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer y.Close()
	v, _ := y.Float32s()
	fmt.Println(e.NumNodes(), y, v)

	// A dtype error is the eager op's.
	if _, err := e.Call("bitwise_not", x); err != nil {
		fmt.Println(err)
		return
	}
	_, err = e.Eval(t)
	fmt.Println(errors.Is(err, bcast.ErrDtype))
	// Output:
	// 6 Tensor(Float32, [4]) [-2 -0.5 0 2]
	// true
}
